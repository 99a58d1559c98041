"""Accuracy of the float32 sum's run loop (csrc/kernels/reduce_loops.inc, leaf_f32): four
inputs per lane added in float32, then widened to float64 lanes), and its short-row loop's
bits (leaf_f32_short) against the general loop."""
import math

import numpy as np
from helpers import split
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor, ops
from mindlite.kernels.cpu._cext import _C


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


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_short_rows_of_one_kept_dim_match_the_general_loop_bitwise(data):
    """Rows shorter than 128 under one kept dim (a global average pool's 7 x 7 rows: the short
    row loop, leaf_f32_short) give the general row loop's bits: the same rows read through a
    layout of two kept dims (a slice that does not merge) take the general loop. NaN, inf,
    -0 and magnitudes far apart included; 1 and 2 threads."""
    n = data.draw(st.sampled_from([0, 1, 7, 8, 9, 15, 16, 17, 49, 63, 64, 65, 127, 128, 200]))
    c = data.draw(st.integers(1, 40))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    big = (rng.standard_normal((2, c + 1, n)) *
           rng.choice([1e-30, 1.0, 1e30], (2, c + 1, n))).astype(np.float32)
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)
    spots = rng.random(big.shape) < data.draw(st.sampled_from([0.0, 0.02, 0.3]))
    big[spots] = rng.choice(specials, int(spots.sum()))
    general = big[:, :c]                     # kept dims (2, c) that do not merge
    short = np.ascontiguousarray(general)    # one kept dim of 2 c rows
    for op in ("ReduceSum", "ReduceMean"):
        if n == 0 and op == "ReduceMean":
            continue
        kernel = _C.REDUCE_KERNELS[op]
        for threads in (1, 2):
            with split(threads):
                a, b = np.empty((2, c), np.float32), np.empty((2, c), np.float32)
                with np.errstate(all="ignore"):
                    kernel(general, a, (2,), False)
                    kernel(short, b, (2,), False)
            np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))
