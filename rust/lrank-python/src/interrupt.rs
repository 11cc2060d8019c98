//! Ctrl-C during core work. Python's own SIGINT handler only notes the signal for the main
//! thread's next bytecode, which a fit of minutes inside the core would not reach until it ends.
//! While the main thread runs core work, [`SigintGuard`] puts a handler in front of Python's
//! that also asks the core to stop ([`lrank_core::interrupt`]) and then calls Python's, so the
//! work winds down in moments and Python raises `KeyboardInterrupt` as it always does.
//!
//! Only on Linux, only on the main thread (the one Python delivers SIGINT to; two threads
//! swapping the process's handler could leave ours behind), and only when Ctrl-C would raise
//! KeyboardInterrupt: Python's default handler (polars' C handler may sit in front of it), not
//! `SIG_DFL`, `SIG_IGN` or a Python handler of the user's. Work of other threads is never cut
//! short (see [`lrank_core::interrupt`]).

#[cfg(target_os = "linux")]
mod linux {
    use pyo3::prelude::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// The handler ours calls after asking the core to stop, and whether it takes three
    /// arguments (`SA_SIGINFO`: polars installs such a handler in front of Python's).
    static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
    static PREVIOUS_TAKES_INFO: AtomicBool = AtomicBool::new(false);

    type InfoHandler = extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void);

    extern "C" fn on_sigint(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        lrank_core::interrupt::request();
        let previous = PREVIOUS.load(Ordering::Relaxed);
        if previous == 0 {
            return;
        }
        // SAFETY: a handler read from sigaction, called with the arguments its flags promise.
        unsafe {
            if PREVIOUS_TAKES_INFO.load(Ordering::Relaxed) {
                std::mem::transmute::<usize, InfoHandler>(previous)(signal, info, context);
            } else {
                std::mem::transmute::<usize, extern "C" fn(libc::c_int)>(previous)(signal);
            }
        }
    }

    fn on_main_thread() -> bool {
        // SAFETY: plain system calls without arguments that can fail.
        unsafe { libc::syscall(libc::SYS_gettid) == libc::getpid() as libc::c_long }
    }

    /// Installs the handler (see the module); restores Python's when dropped.
    pub struct SigintGuard {
        previous: Option<libc::sigaction>,
    }

    impl SigintGuard {
        pub fn install(py: Python<'_>) -> SigintGuard {
            if !on_main_thread() || !python_handler_is_default(py) {
                return SigintGuard { previous: None };
            }
            // SAFETY: sigaction with a zeroed struct to read into and valid pointers.
            unsafe {
                let mut current: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut current) != 0 {
                    return SigintGuard { previous: None };
                }
                let handler = current.sa_sigaction;
                if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
                    return SigintGuard { previous: None };
                }
                lrank_core::interrupt::clear();
                PREVIOUS.store(handler, Ordering::Relaxed);
                PREVIOUS_TAKES_INFO.store(current.sa_flags & libc::SA_SIGINFO != 0, Ordering::Relaxed);
                let mut ours = current;
                ours.sa_sigaction = on_sigint as InfoHandler as usize;
                ours.sa_flags |= libc::SA_SIGINFO;
                if libc::sigaction(libc::SIGINT, &ours, std::ptr::null_mut()) != 0 {
                    return SigintGuard { previous: None };
                }
                SigintGuard { previous: Some(current) }
            }
        }
    }

    impl SigintGuard {
        /// Restores the handler and withdraws the request; whether Ctrl-C came meanwhile.
        pub fn finish(mut self) -> bool {
            self.restore()
        }

        fn restore(&mut self) -> bool {
            let Some(previous) = self.previous.take() else { return false };
            // SAFETY: restores the handler read by install.
            unsafe { libc::sigaction(libc::SIGINT, &previous, std::ptr::null_mut()) };
            lrank_core::interrupt::take()
        }
    }

    impl Drop for SigintGuard {
        fn drop(&mut self) {
            self.restore();
        }
    }

    /// Whether Ctrl-C raises KeyboardInterrupt: a handler of the user's own (one that saves
    /// work and exits, say) is left to decide, as before, once the core work has ended.
    fn python_handler_is_default(py: Python<'_>) -> bool {
        // `_signal`, the C module: importing `signal` on the first fit cost about 1 ms (its enums).
        let Ok(signal) = py.import("_signal") else { return false };
        match (signal.call_method1("getsignal", (libc::SIGINT,)), signal.getattr("default_int_handler")) {
            (Ok(current), Ok(default)) => current.is(&default),
            _ => false,
        }
    }
}

#[cfg(target_os = "linux")]
pub use linux::SigintGuard;

/// Elsewhere Ctrl-C waits for the work to end.
#[cfg(not(target_os = "linux"))]
pub struct SigintGuard;

#[cfg(not(target_os = "linux"))]
impl SigintGuard {
    pub fn install(_py: pyo3::Python<'_>) -> SigintGuard {
        SigintGuard
    }

    pub fn finish(self) -> bool {
        false
    }
}
