"""HSigmoid and HSwish (csrc/kernels/unary_impl.inc) give the numpy reference kernels' bits
(kernels/cpu/activation_numpy.py) on every instruction set: float32 divides by 6 with a
multiply and one FMA correction step where there is FMA, which must round as the division
does for every reachable t = clip(x + 3, 0, 6)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from mindlite.kernels.cpu._cext import _C
from mindlite.kernels.cpu.activation_numpy import hsigmoid_numpy, hswish_numpy


def _inputs(dtype):
    """Every 61st float32 in [-4, 4] (about 35 million values would be every one; this is
    2.2 million), the neighbours of the range ends and the special values."""
    if dtype == np.float32:
        mag = np.arange(0, 0x40800001, 61, dtype=np.uint32).view(np.float32)
    else:
        mag = np.random.default_rng(0).uniform(0, 4, 200_000)
    ends = np.array([3.0, 6.0, 1e-30, 1e-45, 1e-310, 0.0], dtype)
    near = np.concatenate([np.nextafter(ends, np.inf), np.nextafter(ends, -np.inf), ends])
    special = np.array([np.inf, np.nan, 1e30, 7.0, 2.9999998], dtype)
    x = np.concatenate([mag.astype(dtype), near, special])
    return np.concatenate([x, -x])


def check_bitwise():
    for dtype in (np.float32, np.float64):
        x = _inputs(dtype)
        for op, ref in (("HSigmoid", hsigmoid_numpy), ("HSwish", hswish_numpy)):
            want = np.empty_like(x)
            ref(x, want)
            got = np.empty_like(x)
            _C.UNARY_KERNELS[op](x, got)
            differ = got.view(f"u{x.itemsize}") != want.view(f"u{x.itemsize}")
            differ &= ~(np.isnan(got) & np.isnan(want))
            assert not differ.any(), (op, dtype, x[differ][:5], got[differ][:5], want[differ][:5])
    return _C.kernel_isa()


def test_bitwise():
    check_bitwise()


@pytest.mark.parametrize("isa", ["base", "avx2"])
def test_bitwise_other_isas(isa):
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            "import test_hswish_exact as t; print(t.check_bitwise())")
    res = subprocess.run([sys.executable, "-c", code], check=False,
                         env=dict(os.environ, MINDLITE_ISA=isa), capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip() == isa
