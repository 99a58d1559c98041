"""float16 C++ kernels (csrc/kernels/f16_kernels.cc, mindlite/kernels/cpu/f16_cpp.py): float16
computed through float32 lanes (F16C). This file: conversions and elementwise ops, argument
errors, and the helpers test_f16_kernels_reduce.py shares (reductions, softmax, thread splits,
selection through the ops API).

Checked: the conversions against numpy's casts on every float16 bit pattern and on float32
values around every rounding edge, under every instruction set (subprocesses with
MINDLITE_ISA); the unary ops on all 65,536 float16 values (bitwise numpy's float16 kernels for
the exact ops, within one ulp of the float64 result rounded for the others); binary ops by
hypothesis on 0-d, empty, broadcast, non-contiguous and reversed inputs with NaN / inf;
argument errors.
"""
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import arrays, broadcast_pairs, noncontig, shapes
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite.kernels import registry
from mindlite.kernels.cpu import f16_cpp
from mindlite.kernels.cpu._cext import _C

ALL_F16 = np.arange(65536, dtype=np.uint16).view(np.float16)
EXACT_UNARY = {"Abs", "Neg", "Square", "Sign", "Sqrt", "Floor", "Ceil", "Round", "Reciprocal",
               "ReLU", "ReLU6", "Elu"}
# the sign of a zero from a tie (ReLU(-0.0), Maximum(0.0, -0.0)) follows the float32 kernels
ZERO_SIGN_FREE = {"ReLU", "ReLU6", "Maximum", "Minimum"}
LAYOUTS = ["contig", "noncontig", "flipped"]


def kernel(op):
    return registry.select_kernel(op, "CPU", ms.float16).fn


def numpy_kernel(op):
    (k,) = [k for k in registry.kernels_for(op)
            if k.provider == "numpy" and (not k.dtypes or ms.float16 in k.dtypes)]
    return k.fn


def layout(a, kind):
    if kind == "noncontig":
        return noncontig(a)
    if kind == "flipped" and a.ndim:
        return np.flip(a)
    return a


def ordered(a):
    """float16 bits as integers in value order (-0.0 and +0.0 both 0)."""
    i = np.asarray(a, np.float16).view(np.int16).astype(np.int32)
    return np.where(i < 0, -(i & 0x7FFF), i)


def assert_ulp(got, want, ulps):
    assert got.shape == want.shape and got.dtype == want.dtype == np.float16
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    diff = np.abs(ordered(got[ok]) - ordered(want[ok]))
    assert diff.size == 0 or diff.max() <= ulps, f"{diff.max()} ulp"


def assert_same_values(got, want, op):
    """Bitwise, except NaN payloads (a signalling NaN comes back quiet) and, for the ops in
    ZERO_SIGN_FREE, the sign of a zero."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    key = ordered if op in ZERO_SIGN_FREE else bits
    np.testing.assert_array_equal(key(got[ok]), key(want[ok]))


def bits(a):
    return np.asarray(a).view(np.uint16)


def rounded(a64):
    with np.errstate(all="ignore"):
        return np.asarray(a64, np.float64).astype(np.float16)


# ---- conversions --------------------------------------------------------------------------
EDGE_F32 = np.array([0.0, -0.0, np.inf, -np.inf, 65504.0, 65519.99, 65520.0, -65520.0, 1e9,
                     6.1035156e-05, 6.1e-05, 5.9604645e-08, 2.9802322e-08, 2.98e-08, 1e-10,
                     1.0009766, 1.0004883, 1.0014648, 2049.0, 2051.0, -3.3e-05], np.float32)


def conversion_inputs():
    rng = np.random.default_rng(7)
    x = rng.standard_normal(40_003).astype(np.float32)
    x *= np.float32(10) ** rng.uniform(-9, 5, x.size).astype(np.float32)
    # every float16 value and the midpoints between neighbours (ties to even)
    h = ALL_F16[np.isfinite(ALL_F16)].astype(np.float32)
    mid = np.sort(h)
    mid = (mid[:-1] + (mid[1:] - mid[:-1]) / 2).astype(np.float32)
    nan_payload = np.array([0x7FC00001, 0xFF812345, 0x7F800001], np.uint32).view(np.float32)
    return np.concatenate([x, EDGE_F32, h, mid, nan_payload])


def test_widen_every_float16_value():
    out = np.empty(ALL_F16.shape, np.float32)
    _C.f16_to_f32(ALL_F16, out)
    want = ALL_F16.astype(np.float32)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(out), nan)
    np.testing.assert_array_equal(out.view(np.uint32)[~nan], want.view(np.uint32)[~nan])


def test_narrow_rounds_to_nearest_even_as_numpy():
    x = conversion_inputs()
    out = np.empty(x.shape, np.float16)
    _C.f32_to_f16(x, out)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(out), nan)
    np.testing.assert_array_equal(bits(out)[~nan], bits(want)[~nan])


_ISA_SCRIPT = """
import hashlib, sys
import numpy as np
from mindlite import _C
x = np.load(sys.argv[1])
a = np.load(sys.argv[2])
h = np.empty(x.shape, np.float16); _C.f32_to_f16(x, h)
f = np.empty(a.shape, np.float32); _C.f16_to_f32(a, f)
e = np.empty(a.shape, np.float16); _C.f16_unary(_C.UNARY_OPS["Exp"], a, e)
s = np.empty(a.shape, np.float16); _C.f16_binary(_C.BINARY_OPS["Div"], a, a[::-1].copy(), s)
print(_C.kernel_isa(), hashlib.sha1(h.tobytes() + f.tobytes() + e.tobytes()
                                    + s.tobytes()).hexdigest())
"""


def test_every_instruction_set_gives_the_same_bits(tmp_path):
    xs, hs = tmp_path / "x.npy", tmp_path / "h.npy"
    np.save(xs, conversion_inputs())
    np.save(hs, ALL_F16)
    got = {}
    for isa in ("avx512", "avx2", "base"):
        env = dict(os.environ, MINDLITE_ISA=isa)
        r = subprocess.run([sys.executable, "-c", _ISA_SCRIPT, str(xs), str(hs)], env=env,
                           capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        name, digest = r.stdout.split()
        got[name] = digest
    assert "base" in got
    assert len(set(got.values())) == 1, got


# ---- elementwise --------------------------------------------------------------------------
@pytest.mark.parametrize("op", f16_cpp.UNARY)
def test_unary_on_every_float16_value(op):
    got = np.empty_like(ALL_F16)
    kernel(op)(ALL_F16, got)
    x64 = ALL_F16.astype(np.float64)
    r64 = np.empty_like(x64)
    _C.UNARY_KERNELS[op](x64, r64)
    assert_ulp(got, rounded(r64), 1)
    if op in EXACT_UNARY:
        want = np.empty_like(ALL_F16)
        with np.errstate(all="ignore"):
            numpy_kernel(op)(ALL_F16, want)
        assert_same_values(got, want, op)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(f16_cpp.UNARY), shapes(), st.sampled_from(LAYOUTS), st.data())
def test_unary_any_layout(op, shape, kind, data):
    x = layout(data.draw(arrays(np.float16, shape)), kind)
    got = np.empty(x.shape, np.float16)
    kernel(op)(x, got)
    want = np.empty(x.shape, np.float16)
    kernel(op)(np.ascontiguousarray(x), want)
    np.testing.assert_array_equal(bits(got), bits(want))


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([op for op in f16_cpp.BINARY if any(     # with a numpy reference kernel
    k.provider == "numpy" for k in registry.kernels_for(op))]), broadcast_pairs(),
    st.sampled_from(LAYOUTS), st.data())
def test_binary_bitwise_numpy(op, shapes_, kind, data):
    xs, ys = shapes_
    x = layout(data.draw(arrays(np.float16, xs)), kind)
    y = data.draw(arrays(np.float16, ys))
    out_shape = np.broadcast_shapes(x.shape, y.shape)
    got = np.empty(out_shape, np.float16)
    kernel(op)(x, y, got)
    want = np.empty(out_shape, np.float16)
    with np.errstate(all="ignore"):
        numpy_kernel(op)(x, y, want)
    assert_same_values(got, want, op)


def test_binary_in_place_and_overlapping_output():
    x = np.linspace(-3, 3, 1001).astype(np.float16)
    want = x * x
    y = x.copy()
    kernel("Mul")(y, y, y)
    np.testing.assert_array_equal(bits(y), bits(want))
    buf = np.linspace(1, 2, 1002).astype(np.float16)
    src = buf[:-1].copy()
    out = buf[1:]                      # overlaps buf[:-1] shifted by one element
    _C.f16_binary(_C.BINARY_OPS["Add"], buf[:-1], src, out)
    np.testing.assert_array_equal(bits(out), bits(src + src))


# ---- errors -------------------------------------------------------------------------------
def test_argument_errors():
    h = np.zeros(4, np.float16)
    f = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match="f16_to_f32.*'x' dtype must be float16"):
        _C.f16_to_f32(f, f)
    with pytest.raises(ValueError, match="f32_to_f16.*'x' must have 4 elements"):
        _C.f32_to_f16(np.zeros(3, np.float32), h)
    with pytest.raises(ValueError, match="C-contiguous"):
        _C.f16_unary(0, h[::2], h[:2])
    with pytest.raises(ValueError, match="writeable"):
        ro = np.zeros(4, np.float16)
        ro.flags.writeable = False
        _C.f16_unary(0, h, ro)
    with pytest.raises(ValueError, match="op code in"):
        _C.f16_unary(99, h, h)
    with pytest.raises(ValueError, match="'Equal' has no float16 form"):
        _C.f16_binary(_C.BINARY_OPS["Equal"], h, h, h)
    with pytest.raises(ValueError, match="'y' must have 4 elements \\(or 1\\)"):
        _C.f16_binary(0, h, np.zeros(2, np.float16), h)
    with pytest.raises(TypeError, match="expected 4 arguments"):
        _C.f16_binary(0, h, h)
    with pytest.raises(TypeError, match="must be a numpy.ndarray"):
        _C.f16_unary(0, [1.0], h)
    with pytest.raises(ValueError, match="'cols' must be an int >= 1 dividing"):
        _C.f16_softmax(0, h, h, 3)
    with pytest.raises(ValueError, match="op code in"):
        _C.f16_softmax(2, h, h, 2)
