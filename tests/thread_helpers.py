"""Shared by the thread-safety tests (test_threads.py, test_threads_ops.py): running work in
threads released at once, bitwise comparison of results, and a fixture that makes threads switch
often."""
import sys
import threading

import numpy as np
import pytest

N_THREADS = 4
TIMEOUT = 60


@pytest.fixture(autouse=True)
def _frequent_switches():
    """Switch threads every 10 µs instead of 5 ms: more interleavings per test second."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def run_threads(work, n=N_THREADS):
    """[work(0), ..., work(n - 1)], each in its own thread, all released at once."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, []

    def target(i):
        try:
            barrier.wait(TIMEOUT)
            results[i] = work(i)
        except BaseException as e:      # noqa: BLE001  (re-raised in the test's thread)
            errors.append(e)
            barrier.abort()
    threads = [threading.Thread(target=target, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a worker thread did not finish"
    if errors:
        raise errors[0]
    return results


def f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def assert_bitwise(got, want, what):
    assert len(got) == len(want), what
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, f"{what}, result {k}"
        assert g.tobytes() == w.tobytes(), f"{what}, result {k}: {g!r} != {w!r}"


def wait_for(event):
    """Waits for another thread to set `event`; fails the test after TIMEOUT."""
    assert event.wait(TIMEOUT), "the other thread never got there"
