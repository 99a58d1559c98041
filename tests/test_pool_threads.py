"""MaxPool's forward loop (csrc/kernels/pool_loops.cc) split over the pool by planes: the same
bits on 1, 2 and 4 threads (NaN, -inf, padding, strides), and against the numpy reference."""
import numpy as np
import pytest

from mindlite import _C
from mindlite.kernels.cpu import pool_numpy


@pytest.fixture(autouse=True)
def restore_threads():
    yield
    _C.set_num_threads(0)


@pytest.mark.parametrize("shape, k, s, pads", [((1, 64, 112, 112), 3, 2, (1, 1)),
                                               ((3, 5, 40, 33), 2, 1, (0, 1)),
                                               ((2, 7, 64, 64), 3, 3, (1, 0))])
def test_threads_same_bits(shape, k, s, pads):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[rng.integers(0, x.size, 50)] = np.nan
    x.reshape(-1)[rng.integers(0, x.size, 50)] = -np.inf
    oh = (shape[2] + 2 * pads[0] - k) // s + 1
    ow = (shape[3] + 2 * pads[1] - k) // s + 1
    runs = []
    for threads in (1, 2, 4):
        _C.set_num_threads(threads)
        out = np.full(shape[:2] + (oh, ow), 7, np.float32)
        _C.max_pool(x, out, k, k, s, s, 1, 1, pads[0], pads[1])
        runs.append(out)
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0], runs[2])
    want = np.empty_like(runs[0])
    pool_numpy._max_pool(x, want, (k, k), (s, s), (pads[0], pads[0], pads[1], pads[1]), (1, 1))
    np.testing.assert_array_equal(runs[0], want)
