"""LogicalAnd / Or / Xor / Not on the truth values of bool, number and complex tensors (as
MindSpore 2.10's CPU kernels; a bool-only check was stricter), ops.logical_xor and Tensor's
comparison / logical methods, against numpy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import Tensor, ops

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32,
          np.float64, np.complex64]
BINARY = [(ops.LogicalAnd(), np.logical_and), (ops.LogicalOr(), np.logical_or),
          (ops.LogicalXor(), np.logical_xor)]


def _arrays(dtype, shape):
    elements = (st.sampled_from([0, 1, -2, np.nan, np.inf]) if np.dtype(dtype).kind in "fc"
                else None)
    return hnp.arrays(dtype, shape, elements=elements)


@settings(max_examples=30, deadline=None)
@given(st.data(), st.sampled_from(DTYPES), st.sampled_from(DTYPES),
       hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0,
                                         max_side=3), st.booleans())
def test_logical_binary_equals_numpy(data, dx, dy, shapes, strided):
    a = data.draw(_arrays(dx, shapes.input_shapes[0]))
    b = data.draw(_arrays(dy, shapes.input_shapes[1]))
    if strided and a.ndim:                                      # non-contiguous input
        a = np.repeat(a, 2, axis=-1)[..., ::2]
    for prim, ref in BINARY:
        out = prim(Tensor(a), Tensor(b))
        assert out.dtype == ms.bool_
        np.testing.assert_array_equal(out.asnumpy(), ref(a, b))
    np.testing.assert_array_equal(ops.LogicalNot()(Tensor(a)).asnumpy(), np.logical_not(a))


def test_mindspore_values_and_methods():
    """Values printed by MindSpore 2.10 for the same calls."""
    x, y = Tensor([1, 0, 2]), Tensor([1.0, 1, 0])
    np.testing.assert_array_equal(ops.logical_xor(x, y).asnumpy(), [False, True, True])
    np.testing.assert_array_equal(ops.logical_and(x, y).asnumpy(), [True, False, False])
    np.testing.assert_array_equal((~Tensor([1.5, 0])).asnumpy(), [False, True])
    f = Tensor([1.0, 2, 3])
    np.testing.assert_array_equal(f.ne(2.0).asnumpy(), [True, False, True])
    np.testing.assert_array_equal(f.less(Tensor([1.0, 1, 4])).asnumpy(), [False, False, True])
    np.testing.assert_array_equal(f.le(2).asnumpy(), [True, True, False])
    np.testing.assert_array_equal(f.greater_equal(2).asnumpy(), [False, True, True])
    np.testing.assert_array_equal(x.logical_not().asnumpy(), [False, True, False])
    np.testing.assert_array_equal(Tensor([7, -7]).div(Tensor([2, 2]), rounding_mode="floor")
                                  .asnumpy(), [3, -4])
    values, indices = f.top_k(2)
    np.testing.assert_array_equal(values.asnumpy(), [3, 2])
    h = Tensor([0.3, -0.8, 0.5, 2.0])
    np.testing.assert_allclose(h.hardshrink(0.5).asnumpy(), [0, -0.8, 0, 2], rtol=1e-6)
    np.testing.assert_allclose(ops.hardshrink(h).asnumpy(), [0, -0.8, 0, 2], rtol=1e-6)
    assert h.bool().dtype == ms.bool_ and Tensor([0.0, 2]).bool().asnumpy().tolist() == [0, 1]
    np.testing.assert_array_equal(h.approximate_equal(h + 0.1, 0.5).asnumpy(), [True] * 4)


def test_methods_in_graph_mode():
    @ms.jit
    def f(a, b):
        return a.greater(b), a.logical_xor(b), a.ne(b)
    a, b = Tensor([1.0, 0, 3]), Tensor([1.0, 1, 0])
    g, x, n = f(a, b)
    np.testing.assert_array_equal(g.asnumpy(), [False, False, True])
    np.testing.assert_array_equal(x.asnumpy(), [False, True, True])
    np.testing.assert_array_equal(n.asnumpy(), [False, True, True])


def test_not_a_tensor_is_a_type_error():
    with pytest.raises(TypeError, match="For 'LogicalXor'"):
        ops.LogicalXor()(Tensor([True]), "a")
