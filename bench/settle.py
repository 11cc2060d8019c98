"""Let a freshly started benchmark process go quiet before anything is timed.

numpy's OpenBLAS starts its worker threads on import, and they busy-wait for about 0.1 s
before they sleep. A child that imports numpy and times a fit straight away shares the
machine's cores with those spinning threads: on 2 cores a 2-thread run then gets about one
core (lrank's 2-thread IBLR predict on pendigits was slower than its 1-thread one until the
children waited). Every learner, lrank or peer, waits here for the same condition before its
timed section. Python 3.7 compatible (scikit-lr 0.2.0).
"""

import time


def settle(max_wait_s=2.0):
    """Return once this process uses under 10% of a core over 50 ms of sleep (at most max_wait_s)."""
    deadline = time.perf_counter() + max_wait_s
    while time.perf_counter() < deadline:
        cpu0 = time.process_time()
        time.sleep(0.05)
        if time.process_time() - cpu0 < 0.005:
            return
