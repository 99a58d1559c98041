"""Accuracy of the float32 sum's run loop (csrc/kernels/reduce_loops.inc, leaf_f32): four
inputs per lane added in float32, then widened to float64 lanes."""
import math

import numpy as np

from mindlite import Tensor, ops


def test_float32_long_runs_within_two_ulp_of_abs_sum():
    """Long float32 runs add four inputs per lane in float32 before widening to float64: the
    result stays within 2 ulp of sum |x| (plus the final rounding) of the exact sum, at every
    length around the 8- and 128-element steps, contiguous or strided."""
    rng = np.random.default_rng(5)
    for n in (7, 8, 9, 63, 64, 127, 128, 129, 255, 1000, 16383, 16385, 100003):
        x = (rng.standard_normal(2 * n) * 100 + 7).astype(np.float32)
        for v in (x[:n], x[::2]):
            exact = math.fsum(v.astype(np.float64).tolist())
            got = float(ops.ReduceSum()(Tensor(v), 0).asnumpy())
            bound = 2 * 2.0 ** -24 * float(np.abs(v.astype(np.float64)).sum())
            assert abs(got - exact) <= bound + 2.0 ** -24 * abs(exact), (n, got, exact)
            mean = float(ops.ReduceMean()(Tensor(v), 0).asnumpy())
            assert abs(mean - exact / n) <= (bound + 2.0 ** -24 * abs(exact)) / n
