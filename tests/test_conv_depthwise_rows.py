"""The depthwise 3 x 3 row loops (csrc/kernels/conv_depthwise_loops.inc: the sliding register
window along a row and two output rows at a time on AVX-512, the phase split) on planes one
to five vectors wide with every stride / padding mix: against the float64 reference within the
summation bound of test_conv_engine.py, the fused bias + activation epilogue exactly as numpy
applies it to the plain kernel's output, and the forward and input gradient the same bits
(NaN counted equal) as the AVX2 loops, which sum the same products in the same order without
the window."""
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import _C
from mindlite.kernels.cpu import conv_numpy as ref

ACTS = {0: lambda v: v, 1: lambda v: np.maximum(v, 0), 2: lambda v: np.minimum(
    np.maximum(v, 0), 6), 5: lambda v: np.minimum(np.maximum(v, 0), 6)}


def _geometry(rng):
    sh, sw = (int(v) for v in rng.integers(1, 3, 2))
    pads = tuple(int(v) for v in rng.integers(0, 3, 4))
    h = int(rng.integers(max(1, 3 - pads[0] - pads[1]), 40))
    w = int(rng.integers(max(1, 3 - pads[2] - pads[3]), 90))
    return int(rng.integers(1, 3)), int(rng.integers(1, 5)), h, w, (sh, sw), pads


def _out_hw(h, w, stride, pads):
    return ((h + pads[0] + pads[1] - 3) // stride[0] + 1,
            (w + pads[2] + pads[3] - 3) // stride[1] + 1)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([np.float32, np.float64]),
       st.sampled_from(sorted(ACTS)))
def test_rows_match_reference_and_epilogue(seed, dtype, act):
    rng = np.random.default_rng(seed)
    n, c, h, w, stride, pads = _geometry(rng)
    oh, ow = _out_hw(h, w, stride, pads)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((c, 1, 3, 3)).astype(dtype)
    b = rng.standard_normal(c).astype(dtype)
    if seed % 4 == 0:
        x.flat[rng.integers(0, x.size, 2)] = [np.nan, np.inf]
    got = np.full((n, c, oh, ow), 7, dtype)
    _C.conv_depthwise_forward(x, wt, got, stride, (1, 1), pads, c)
    want = np.zeros_like(got)
    ref.conv2d_numpy(x, wt, want, stride, (1, 1), pads, c)
    bound = np.zeros_like(got)
    ref.conv2d_numpy(np.abs(x), np.abs(wt), bound, stride, (1, 1), pads, c)
    finite = np.isfinite(want)
    eps = 8 * np.finfo(dtype).eps
    np.testing.assert_array_less(np.abs(got - want)[finite], (eps * (bound + 1))[finite])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    fused = np.full_like(got, 7)
    _C.conv_forward_fused(x, wt, b, None, fused, stride, (1, 1), pads, c, act)
    np.testing.assert_array_equal(fused, ACTS[act](got + b[:, None, None]))


def check_outputs(path):
    """Forward (plain and fused ReLU6) and input gradient of 120 seeded geometries, saved to
    `path`; returns the instruction set that ran them. (The filter gradient sums a vector's
    lanes apart, so its order follows the vector width; test_conv_engine.py bounds it.)"""
    rng = np.random.default_rng(33)
    res = []
    for i in range(120):
        dt = np.float32 if i % 3 else np.float64
        n, c, h, w, stride, pads = _geometry(rng)
        oh, ow = _out_hw(h, w, stride, pads)
        x = rng.standard_normal((n, c, h, w)).astype(dt)
        wt = rng.standard_normal((c, 1, 3, 3)).astype(dt)
        d = rng.standard_normal((n, c, oh, ow)).astype(dt)
        out = [np.empty(d.shape, dt), np.empty(d.shape, dt), np.empty_like(x)]
        _C.conv_depthwise_forward(x, wt, out[0], stride, (1, 1), pads, c)
        _C.conv_forward_fused(x, wt, wt[:, 0, 0, 0].copy(), None, out[1], stride, (1, 1),
                              pads, c, 2)
        _C.conv_depthwise_input(d, wt, out[2], stride, (1, 1), pads, c)
        res += out
    np.savez(path, *res)
    return _C.kernel_isa()


def test_same_bits_as_avx2(tmp_path):
    mine = tmp_path / "here.npz"
    isa = check_outputs(mine)
    if isa == "base":
        pytest.skip("this CPU runs the baseline loops only (no FMA: other roundings than AVX2)")
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            f"import test_conv_depthwise_rows as t; print(t.check_outputs({str(tmp_path)!r} + "
            "'/avx2.npz'))")
    res = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                         env=dict(os.environ, MINDLITE_ISA="avx2"), text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip() == "avx2"
    a, b = np.load(mine), np.load(tmp_path / "avx2.npz")
    assert a.files == b.files
    for k in a.files:
        np.testing.assert_array_equal(a[k], b[k], err_msg=f"{isa} vs avx2, array {k}")
