"""Sigmoid's block loop (csrc/kernels/unary_impl.inc, sigmoid_loop): blocks of 8 vectors whose
inputs are all >= -86 take vsigmoid_normal, the others (a lane below -86 or NaN) and the tail
take vsigmoid; both give the same bits, on every instruction set. And the float32 accuracy of
Sigmoid and SiLU (vexp_tab under AVX-512 / AVX2, vexp under SSE2) over the whole range,
subnormal results included."""
import os
import subprocess
import sys

import numpy as np
import pytest

from mindlite.kernels.cpu._cext import _C

SPECIAL = [86.0, -86.0, 85.99999, 86.00001, 87.0, 88.7, 104.0, 200.0, np.inf, 0.0, -0.0,
           1e-30, -1e-30, 1e-45, 3.4e38, -3.4e38, 15.9, -15.9, 17.0, -17.0]


def check_blocks_equal_slow_path():
    """Each dtype: an array with no lane below -86 (every full block fast) against the same
    array with a NaN every 16th element (every block slow): the other elements bitwise equal,
    at lengths around the block size; lanes below -86 and NaN against the float64 formula."""
    sig = _C.UNARY_KERNELS["Sigmoid"]
    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float64):
        for n in (1, 15, 16, 127, 128, 129, 1000, 4099):
            x = rng.uniform(-86, 120, n).astype(dtype)
            x[: min(n, len(SPECIAL))] = np.array(SPECIAL, dtype)[: n]
            rng.shuffle(x)
            fast = np.empty_like(x)
            sig(x, fast)
            odd = x.copy()
            odd[::16] = np.nan
            slow = np.empty_like(x)
            sig(odd, slow)
            keep = np.ones(n, bool)
            keep[::16] = False
            assert fast[keep].tobytes() == slow[keep].tobytes(), (dtype, n)
            assert np.isnan(slow[::16]).all()
            with np.errstate(over="ignore"):
                want = 1 / (1 + np.exp(-x.astype(np.float64)))
            np.testing.assert_allclose(fast, want, rtol=4 * np.finfo(dtype).eps, atol=0)
        low = np.array([-86.5, -87.0, -88.0, -100.0, -103.0, -104.0, -120.0, -np.inf], dtype)
        x = np.tile(np.concatenate([low, np.zeros(8, dtype)]), 20)
        out = np.empty_like(x)
        sig(x, out)
        want = np.exp(x.astype(np.float64)) / (1 + np.exp(x.astype(np.float64)))
        np.testing.assert_allclose(out, want, rtol=8 * np.finfo(dtype).eps,
                                   atol=2 * np.finfo(dtype).smallest_subnormal)
    return _C.kernel_isa()


def test_blocks_equal_slow_path():
    check_blocks_equal_slow_path()


def check_float32_ulps():
    """Every 1009th float32 of magnitude up to 120, both signs (about 2.2 million): Sigmoid within
    3.5 ulp of the float64 value and SiLU within 4.5 where sigmoid(x) is normal; where it is
    subnormal, within 2 of its spacing (SiLU: times |x|)."""
    mag = np.arange(0, 0x42F00000, 1009, dtype=np.uint32).view(np.float32)
    x = np.concatenate([mag, -mag])
    xd = x.astype(np.float64)
    with np.errstate(over="ignore", under="ignore"):
        e = np.exp(-np.abs(xd))
        sig = np.where(xd >= 0, 1 / (1 + e), e / (1 + e))
    tiny = sig < np.finfo(np.float32).tiny
    step = float(np.finfo(np.float32).smallest_subnormal)
    for op, want, ulps, scale in (("Sigmoid", sig, 3.5, 1.0), ("SiLU", xd * sig, 4.5, np.abs(xd))):
        got = np.empty_like(x)
        _C.UNARY_KERNELS[op](x, got)
        err = np.abs(got - want) / np.spacing(np.abs(want.astype(np.float32)))
        assert err[~tiny].max() <= ulps, (op, x[~tiny][np.argmax(err[~tiny])], err.max())
        low = np.abs(got - want) / (scale * step)
        assert low[tiny].max() <= 2, (op, x[tiny][np.argmax(low[tiny])], low[tiny].max())
    return _C.kernel_isa()


def test_float32_ulps():
    check_float32_ulps()


@pytest.mark.parametrize("check", ["check_blocks_equal_slow_path", "check_float32_ulps"])
@pytest.mark.parametrize("isa", ["base", "avx2"])
def test_other_isas(isa, check):
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            f"import test_sigmoid_blocks as t; print(t.{check}())")
    res = subprocess.run([sys.executable, "-c", code], check=False,
                         env=dict(os.environ, MINDLITE_ISA=isa), capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
