//! Size checks before the allocations whose size is not bounded by the input's own size: tables
//! of m x m label pairs (from a file that only declares m labels), one value per label pair and
//! row, one ranking per member and row, a Hessian per feature pair, counts read from a
//! parameter or a model file. Such a size is checked against what this process may allocate
//! ([`budget`]) and refused with an error naming it, instead of the allocation failing, which
//! aborts the process.

use crate::error::{invalid, Result};
use std::sync::OnceLock;

/// The bytes one allocation may take: the least of the machine's physical memory, the
/// process's address-space limit (`ulimit -v`) and its cgroup's memory limit, where the system
/// says (Linux); 1 TiB elsewhere. Read once per process.
pub fn budget() -> u64 {
    static BUDGET: OnceLock<u64> = OnceLock::new();
    *BUDGET
        .get_or_init(|| [physical_memory(), address_space_limit(), cgroup_limit()].into_iter().flatten().min().unwrap_or(1 << 40))
}

/// The bytes of `dims` multiplied, of `T` each (`None` when the product overflows).
pub fn bytes_of<T>(dims: &[usize]) -> Option<u64> {
    dims.iter().try_fold(std::mem::size_of::<T>() as u64, |acc, &d| acc.checked_mul(d as u64))
}

/// Refuses `dims` values of `T` when they would need more than [`budget`]; `what` names them
/// for the message. Returns the number of values.
pub fn check<T>(what: &str, dims: &[usize]) -> Result<usize> {
    check_bytes(what, dims, std::mem::size_of::<T>())
}

/// [`check`] for values of `item_bytes` bytes each (for callers outside Rust).
pub fn check_bytes(what: &str, dims: &[usize], item_bytes: usize) -> Result<usize> {
    let shape = dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(" x ");
    let bytes = dims.iter().try_fold(item_bytes as u64, |acc, &d| acc.checked_mul(d as u64));
    match bytes {
        Some(bytes) if bytes <= budget() => Ok(dims.iter().product()),
        Some(bytes) => Err(invalid(format!(
            "{what} ({shape} values) would need {} of memory, more than the {} this process may use",
            human(bytes),
            human(budget())
        ))),
        None => Err(invalid(format!("{what} ({shape} values) would need more memory than any machine has"))),
    }
}

/// A vector of `dims` multiplied copies of `T::default()`, checked by [`check`] first and
/// allocated fallibly, so that a size the system refuses is an error too.
pub fn zeroed<T: Clone + Default>(what: &str, dims: &[usize]) -> Result<Vec<T>> {
    let len = check::<T>(what, dims)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| invalid(format!("{what}: cannot allocate {} of memory", human(bytes_of::<T>(dims).unwrap_or(u64::MAX)))))?;
    v.resize(len, T::default());
    Ok(v)
}

/// Bytes as "1.5 GB".
pub fn human(bytes: u64) -> String {
    let units = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", units[unit])
    }
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn physical_memory() -> Option<u64> {
    let text = read("/proc/meminfo")?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

fn address_space_limit() -> Option<u64> {
    let text = read("/proc/self/limits")?;
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    // "Max address space   <soft>   <hard>   bytes": the soft limit is the one enforced.
    line["Max address space".len()..].split_whitespace().next()?.parse().ok()
}

fn cgroup_limit() -> Option<u64> {
    let text = read("/proc/self/cgroup")?;
    let path = text.lines().find_map(|l| l.strip_prefix("0::"))?;
    read(&format!("/sys/fs/cgroup{}/memory.max", path.trim()))?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_past_the_budget_or_overflowing_are_refused_by_name() {
        assert!(budget() >= 1 << 20);
        assert_eq!(check::<f64>("a table", &[10, 10]).unwrap(), 100);
        let err = check::<f64>("the pair table", &[1 << 30, 1 << 30]).unwrap_err().to_string();
        assert!(err.starts_with("the pair table (1073741824 x 1073741824 values) would need 9.2 EB"), "{err}");
        let err = check::<u64>("members", &[usize::MAX, 2]).unwrap_err().to_string();
        assert!(err.contains("more memory than any machine has"), "{err}");
        assert!(zeroed::<u8>("huge", &[usize::MAX / 2]).is_err());
        assert_eq!(zeroed::<i32>("small", &[3, 2]).unwrap(), vec![0; 6]);
        assert_eq!(human(999), "999 bytes");
        assert_eq!(human(48_000_000_000_000), "48.0 TB");
    }
}
