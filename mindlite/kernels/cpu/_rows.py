"""Two threads for large row-wise numpy / numba work that releases the GIL.

    split_rows(fn, n, size)      fn(lo, hi) over rows [0, n): the first half on the calling
                                 thread, the second on one helper thread, when `size`
                                 (elements) is at least MIN_ELEMENTS; else fn(0, n)

For kernels whose rows are independent and whose loops run without the GIL (numpy's
partition / sort / copies, the nogil numba loops of cumsum and pad): PyTorch runs these on
its two intra-op threads, and one thread made them 1.6-2.2x slower at 2048 x 2048 (topk
k = 512: 94 vs 42 ms, cumsum 3.5 vs 2.1 ms). The results do not depend on the split (each
row is computed whole by one thread). No split where mindlite's thread count is forced to
1 (mindlite.set_num_threads / _C.set_num_threads) or the process may use one CPU. The helper
thread is created at the first split in a process (again after a fork).
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from ._cext import _C

MIN_ELEMENTS = 1 << 20

_POOL = [None, None]          # (pid, executor)
_LOCK = threading.Lock()


def _helper():
    pid = os.getpid()
    if _POOL[0] != pid:
        with _LOCK:
            if _POOL[0] != pid:
                _POOL[1] = ThreadPoolExecutor(1, thread_name_prefix="mindlite-rows")
                _POOL[0] = pid
    return _POOL[1]


def two_threads():
    forced = _C.get_num_threads()
    return (forced == 0 or forced >= 2) and _C.max_threads() >= 2


def split_rows(fn, n, size):
    if size < MIN_ELEMENTS or n < 2 or not two_threads():
        fn(0, n)
        return
    mid = n // 2
    later = _helper().submit(fn, mid, n)
    try:
        fn(0, mid)
    finally:
        later.result()
