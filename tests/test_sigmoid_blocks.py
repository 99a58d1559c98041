"""Sigmoid's block loop (csrc/kernels/unary_impl.inc, sigmoid_loop): blocks of 8 vectors whose
inputs are all >= -86 take e^-|x| by the one-scale exp, the others (a lane below -86 or NaN)
and the tail take vsigmoid; both give the same bits, on every instruction set."""
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


@pytest.mark.parametrize("isa", ["base", "avx2"])
def test_blocks_equal_slow_path_other_isas(isa):
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            "import test_sigmoid_blocks as t; print(t.check_blocks_equal_slow_path())")
    res = subprocess.run([sys.executable, "-c", code], check=False,
                         env=dict(os.environ, MINDLITE_ISA=isa), capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
