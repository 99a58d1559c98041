"""MemoryPool (mindlite/runtime/memory.py) and the runtime allocator that hands its buffers out.

Reuse never aliases a live array: results, views of results (numpy and Tensor), asnumpy()
arrays and memoryviews a user keeps are never overwritten by later ops of the same size;
released buffers are reused; the pool stays bounded per size and in total, and eviction never
frees memory a live array uses; RSS stays flat over many cached large ops.
"""
import gc
import os
import sys

import numpy as np
import pytest
from helpers import run_threads

from mindlite import Tensor, ops
from mindlite.abstract import abstract_of_array
from mindlite.backend.session import session_factory
from mindlite.runtime import memory
from mindlite.runtime.cpu_kernel_runtime import CPUKernelRuntime
from mindlite.runtime.memory import MemoryPool

SHAPE = (256, 512)             # 512 KiB of float32: pooled
F32 = np.dtype(np.float32)


def runtime_pool():
    return session_factory("CPU").runtime.pool


def test_free_refcount_calibrated():
    bucket = [np.empty(4, np.uint8)]
    for buf in bucket:
        assert sys.getrefcount(buf) == memory.FREE_REFCOUNT


def test_results_views_and_asnumpy_are_never_overwritten():
    x = Tensor(np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32))
    pool = runtime_pool()
    hits0 = pool.hits
    kept = []                  # (what, object holding pool memory, expected values)
    for i in range(60):
        y = Tensor(np.full(SHAPE, i, np.float32))
        r = ops.add(x, y)
        want = x.asnumpy() + np.float32(i)
        kind = i % 6
        if kind == 0:
            kept.append(("tensor", r, want))
        elif kind == 1:
            kept.append(("tensor view", ops.reshape(r, (512, 256)), want.reshape(512, 256)))
        elif kind == 2:
            kept.append(("asnumpy", r.asnumpy(), want))
        elif kind == 3:
            kept.append(("numpy view", r.asnumpy()[::3, 1::2], want[::3, 1::2]))
        elif kind == 4:
            kept.append(("memoryview", memoryview(r.asnumpy()), want))
        # kind 5: dropped at once, so its buffer goes back to the pool
        del r
        ops.relu(ops.mul(x, y))          # more same-size ops that want buffers
    gc.collect()
    for _ in range(20):
        ops.add(x, x)
    for what, held, want in kept:
        got = held.asnumpy() if isinstance(held, Tensor) else np.asarray(held)
        np.testing.assert_array_equal(got, want, err_msg=what)
    assert pool.hits > hits0              # released buffers were reused meanwhile


def test_free_base_refcount_calibrated():
    bucket = [np.empty(16, np.uint8)[4:12].view(np.float32)]
    for buf in bucket:
        count = sys.getrefcount(buf.base)       # outside the assert: pytest keeps its operands
        assert count == memory.FREE_BASE_REFCOUNT


def test_large_buffers_start_on_a_huge_page_and_views_keep_them_busy():
    """From 4 MiB, pool buffers are 2 MiB-aligned views into a larger array: a tensor, a view
    of it, a numpy view of its asnumpy() (whose base is that array, not the buffer) or a
    memoryview each keep the buffer from being handed out again."""
    pool = runtime_pool()
    big = (1024, 1024)
    x = Tensor(np.random.default_rng(1).standard_normal(big).astype(np.float32))
    first = ops.add(x, x)
    assert first.asnumpy().ctypes.data % memory.HUGE_PAGE == 0
    kept = []
    for i in range(16):
        r = ops.add(x, Tensor(np.float32(i)))
        want = x.asnumpy() + np.float32(i)
        kind = i % 4
        if kind == 0:
            kept.append(("tensor view", ops.reshape(r, (2048, 512)), want.reshape(2048, 512)))
        elif kind == 1:
            kept.append(("numpy view", r.asnumpy()[::5, 3:], want[::5, 3:]))
        elif kind == 2:
            kept.append(("memoryview", memoryview(r.asnumpy()), want))
        del r
        ops.relu(ops.mul(x, x))
    for _ in range(8):
        ops.add(x, x)
    for what, held, want in kept:
        got = held.asnumpy() if isinstance(held, Tensor) else np.asarray(held)
        np.testing.assert_array_equal(got, want, err_msg=what)
    assert pool.free_bytes() >= 0


def _mapping_of(address):
    """(pathname or "", VmFlags) of the mapping of this process that holds `address`."""
    found = None
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and not fields[0].endswith(":"):
                lo, hi = (int(v, 16) for v in fields[0].split("-"))
                found = (fields[5] if len(fields) > 5 else "") if lo <= address < hi else None
            elif found is not None and fields[0] == "VmFlags:":
                return found, fields[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


@pytest.mark.skipif(not os.path.exists("/sys/kernel/mm/transparent_hugepage"),
                    reason="needs Linux with transparent huge pages (/proc, /sys/kernel/mm)")
def test_large_buffers_get_a_mapping_of_their_own_marked_for_huge_pages():
    """Buffers from 4 MiB come from a mapping of their own with MADV_HUGEPAGE ("hg"), not
    from malloc, which serves such sizes from the brk heap (mindlite's malloc policy, or
    glibc's own threshold once a large block was freed), where only part of a buffer got
    huge pages."""
    freed = np.ones(3 << 20, np.float64)        # 24 MiB: freeing it raises glibc's threshold
    del freed
    for size in (1 << 22, 3 << 22):
        buf = memory._new_buffer((size // 4,), F32, size)
        assert buf.ctypes.data % memory.HUGE_PAGE == 0
        name, flags = _mapping_of(buf.ctypes.data)
        assert name != "[heap]" and "hg" in flags, (name, flags)
        buf[:] = 1.5                              # writable, and owned through its views
        base = buf.base
        del buf
        assert sys.getrefcount(base) == 2


def test_released_buffer_is_reused_and_live_one_is_not():
    x = Tensor(np.ones(SHAPE, np.float32))
    r = ops.mul(x, x)
    addr = r.asnumpy().ctypes.data
    del r
    r2 = ops.mul(x, x)
    assert r2.asnumpy().ctypes.data == addr       # the released buffer came back
    r3 = ops.mul(x, x)
    assert not np.shares_memory(r2.asnumpy(), r3.asnumpy())
    np.testing.assert_array_equal(r2.asnumpy(), 1)


def test_allocator_contract():
    rt = CPUKernelRuntime()
    for shape, dt in [((3, 4), np.float32), (SHAPE, np.float32), ((1 << 16,), np.float64),
                      ((700, 700), np.bool_), ((), np.int32)]:
        alloc = rt.allocator(abstract_of_array(np.zeros(shape, dt)))
        a, b = alloc(), alloc()
        for arr in (a, b):
            assert arr.shape == shape and arr.dtype == dt and arr.flags.c_contiguous
            assert arr.flags.writeable
        assert not np.shares_memory(a, b)
        a[...] = 1
        b[...] = 2
        assert (a == 1).all()


def test_bucket_and_total_bounds():
    pool = MemoryPool(max_bytes=8 << 20, max_per_bucket=4)
    live = [pool.alloc((1 << 18,), F32, 1 << 20) for _ in range(10)]   # 10 live 1 MiB arrays
    assert len(pool.buckets[1 << 20]) == 4 and pool.held_bytes == 4 << 20
    for i, a in enumerate(live):
        a[:] = i
    sizes = [(1 << 20) + 4096 * k for k in range(1, 40)]
    for n in sizes:                     # many sizes, released at once: the cap evicts them
        pool.alloc((n // 4,), F32, n)[:] = -1
        assert pool.held_bytes <= pool.max_bytes
        assert pool.held_bytes == pool.cached_bytes()
    assert len(pool.buckets[1 << 20]) == 4      # live buffers are never evicted
    for i, a in enumerate(live):
        assert (a == i).all()
    del live
    gc.collect()
    assert pool.free_bytes() >= 4 << 20
    big = pool.alloc((3 << 20,), F32, 12 << 20)  # over the cap on its own: not cached
    assert pool.held_bytes <= pool.max_bytes and (12 << 20) not in pool.buckets
    del big
    assert len(pool.buckets) <= 8 and len(pool.last_use) == len(pool.buckets)


def test_eviction_keeps_live_memory_intact():
    pool = MemoryPool(max_bytes=3 << 20)
    a = pool.alloc((1 << 18,), F32, 1 << 20)
    b = pool.alloc((1 << 18,), F32, 1 << 20)
    a[:] = 1
    b[:] = 2
    view = b[::2]
    del b
    c = pool.alloc((1 << 19,), F32, 2 << 20)     # needs an eviction; a and b are still used
    c[:] = 3
    d = pool.alloc((1 << 18,), F32, 1 << 20)
    d[:] = 4
    assert (a == 1).all() and (view == 2).all() and (c == 3).all()
    assert not np.shares_memory(d, a) and not np.shares_memory(d, view)


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="Linux only")
def test_rss_flat_over_many_large_ops():
    x = Tensor(np.ones((512, 1024), np.float32))   # 2 MiB results
    y = Tensor(np.ones((512, 1024), np.float32))
    for _ in range(20):
        ops.add(x, y)
    before = _rss_bytes()
    for _ in range(2000):
        ops.add(x, y)
        ops.relu(x)
    assert _rss_bytes() - before < 10 << 20


def test_release_all_keeps_live_arrays():
    pool = runtime_pool()
    x = Tensor(np.full(SHAPE, 2, np.float32))
    r = ops.mul(x, x)
    pool.release_all()
    assert pool.held_bytes == 0 and pool.cached_bytes() == 0
    r2 = ops.mul(x, x)
    assert not np.shares_memory(r.asnumpy(), r2.asnumpy())
    np.testing.assert_array_equal(r.asnumpy(), 4)


def _four_threads(work):
    """work(0..3) on four threads at once (helpers.run_threads), switching every 10 us; all
    must finish."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        assert not run_threads(work)
    finally:
        sys.setswitchinterval(old)


def test_four_threads_share_a_full_pool_without_aliasing():
    # misses in several threads drop and re-create buckets at the byte cap: that used to
    # raise KeyError; no two live arrays may ever share a buffer
    pool = MemoryPool(max_bytes=3 << 18, max_per_bucket=2)
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        keep = []
        try:
            for _ in range(3000):
                n = int(rng.integers(1, 6)) << 18
                a = pool.alloc((n // 4,), F32, n)
                a[:] = seed
                keep = keep[-2:] + [a]
                assert all((k == seed).all() for k in keep)
        except Exception as e:          # reported from the main thread below
            errors.append(e)

    _four_threads(work)
    assert not errors
    assert pool.held_bytes == pool.cached_bytes() <= 3 << 18


def test_four_threads_share_aligned_buffers_through_views():
    """The same with buffers from 4 MiB (2 MiB-aligned views into larger arrays): each thread
    keeps numpy views of its last buffers, which reference the owning array rather than the
    buffer, and no other thread may be handed that memory meanwhile."""
    pool = MemoryPool(max_bytes=3 * (6 << 20), max_per_bucket=2)
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        keep = []
        try:
            for _ in range(150):
                n = int(rng.integers(4, 7)) << 20
                a = pool.alloc((n // 4,), F32, n)
                assert a.ctypes.data % memory.HUGE_PAGE == 0
                a[:64] = seed
                keep = keep[-2:] + [a[:64:3]]           # views only: the buffer is dropped
                del a
                assert all((k == seed).all() for k in keep)
        except Exception as e:          # reported from the main thread below
            errors.append(e)

    _four_threads(work)
    assert not errors
