"""RealDiv of ints as MindSpore 2.10's CPU kernel (Div differs: it gives float32): the dtype kept,
the quotient truncated toward zero, x / 0 saturated to the dtype's max or min (0 / 0 = 0),
-128 / -1 wrapping in int8; mixed int/float promotes to float; bool a TypeError. Checked against
a Python reference over random ints of every int dtype."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor
from mindlite.ops import operations as P

_OP = P.RealDiv()


def _reference(x, y, dtype):
    info = np.iinfo(dtype)
    out = []
    for a, b in zip(x.tolist(), y.tolist()):
        if b == 0:
            out.append(info.max if a > 0 else info.min if a < 0 else 0)
        else:
            q = abs(a) // abs(b)
            out.append(-q if (a < 0) != (b < 0) else q)
    bits = info.bits                                        # wraps as C does
    raw = np.array([v % (1 << bits) for v in out], dtype=f"u{bits // 8}")
    return raw.view(dtype)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                        np.uint64]), st.integers(0, 2 ** 31 - 1))
def test_int_real_div_equals_reference(dtype, seed):
    rs = np.random.RandomState(seed)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    x = rs.randint(lo, hi + 1, 30).astype(dtype)
    y = rs.randint(max(lo, -5), min(hi, 5) + 1, 30).astype(dtype)
    got = _OP(Tensor(x), Tensor(y)).asnumpy()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, _reference(x, y, dtype))


def test_mindspore_values():
    x = Tensor(np.array([7, -7, 0, 5, -128], np.int8))
    y = Tensor(np.array([0, 0, 0, -2, -1], np.int8))
    assert _OP(x, y).asnumpy().tolist() == [127, -128, 0, -2, -128]
    xi = Tensor(np.array([7, -7], np.int32))
    assert _OP(xi, 2).asnumpy().dtype == np.int32
    assert _OP(xi, 2.0).asnumpy().dtype == np.float32
    assert _OP(xi, Tensor(np.array([2.0], np.float32))).asnumpy().tolist() == [3.5, -3.5]
    # Div of the same ints is true division in float32
    assert P.Div()(xi, Tensor(np.array([2, 2], np.int32))).asnumpy().tolist() == [3.5, -3.5]
    with pytest.raises(TypeError, match="RealDiv"):
        _OP(Tensor(np.array([True])), Tensor(np.array([True])))


def test_dtype_minimum_divided_as_mindspore():
    """The dtype's minimum (|x| overflows) divided by -3 and -1: MindSpore 2.10's values."""
    x = np.array([-128, -128, 7, -7, 7, -7, 5, 0], np.int8)
    y = np.array([-3, -1, 2, 2, -2, -2, 0, 0], np.int8)
    np.testing.assert_array_equal(_OP(Tensor(x), Tensor(y)).asnumpy(),
                                  [42, -128, 3, -3, -3, 3, 127, 0])
