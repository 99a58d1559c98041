"""Small primitives and paths MindSpore 2.10's op tests use: Size and DType (constant-folded,
a grad of a function returning a Python number gives zeros as MindSpore), EluGrad and
SigmoidCrossEntropyWithLogitsGrad (values against numpy, their bprops by finite
differences), nn.Range (int32 for ints), ops.composite.multinomial, Gelu, and the module
paths _grad_ops.StridedSliceGrad / array_ops.Unstack."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, nn, ops
from mindlite.ops import operations as P
from mindlite.ops.operations import _grad_ops as G

from gradcheck import check_grad


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3, 4)])
def test_size_and_dtype(shape):
    x = Tensor(np.ones(shape, np.float16))
    assert P.Size()(x) == int(np.prod(shape)) and isinstance(P.Size()(x), int)
    assert P.DType()(x) == ms.float16


def test_grad_of_a_python_number_output_is_zeros():
    x = Tensor(np.ones((3, 2), np.float32))
    g = ops.GradOperation(get_all=True)(lambda t: P.Size()(t))(x)
    assert g[0].asnumpy().tolist() == np.zeros((3, 2)).tolist()
    g = ops.grad(lambda t: (t * 2, P.Size()(t)))(x)        # the Tensor output still counts
    assert g.asnumpy().tolist() == np.full((3, 2), 2.0).tolist()
    with pytest.raises(TypeError, match="must be a Tensor"):
        ops.grad(lambda t: "no")(x)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([np.float16, np.float32, np.float64]), st.integers(0, 2 ** 31 - 1))
def test_elu_grad_equals_numpy(dtype, seed):
    rs = np.random.RandomState(seed)
    dy, y = rs.randn(2, 5).astype(dtype), rs.uniform(-1, 2, (2, 5)).astype(dtype)
    got = G.EluGrad()(Tensor(dy), Tensor(y)).asnumpy()
    np.testing.assert_allclose(got, dy * np.where(y > 0, 1, y + 1), rtol=2e-3)
    assert got.dtype == dtype


def test_elu_grad_mindspore_values_and_bprop():
    y = np.array([[-0.3, 1, 2], [1, -0.6, 1], [2, 1, -2]], np.float32)
    dy = np.array([[-11, 2, 4], [-1, 1, -1], [-4, 4, -4]], np.float32)
    np.testing.assert_allclose(G.EluGrad()(Tensor(dy), Tensor(y)).asnumpy(),
                               [[-7.7, 2, 4], [-1, 0.4, -1], [-4, 4, 4]], rtol=1e-6)
    rs = np.random.RandomState(0)
    check_grad(lambda a, b: G.EluGrad()(a, b), rs.randn(2, 3),
               rs.uniform(0.2, 1, (2, 3)) * rs.choice([-1, 1], (2, 3)))
    with pytest.raises(ValueError, match="same shape"):
        G.EluGrad()(Tensor(np.ones(2, np.float32)), Tensor(np.ones(3, np.float32)))


def test_sigmoid_cross_entropy_with_logits_grad():
    logits = np.array([[1, 1, 2], [1, 2, 1], [2, 1, 1]], np.float32)
    labels = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]], np.float32)
    got = G.SigmoidCrossEntropyWithLogitsGrad()(Tensor(logits), Tensor(labels),
                                                Tensor(np.ones((3, 3), np.float32))).asnumpy()
    np.testing.assert_allclose(got, 1 / (1 + np.exp(-logits)) - labels, rtol=1e-6)
    rs = np.random.RandomState(1)
    check_grad(lambda a, b, c: G.SigmoidCrossEntropyWithLogitsGrad()(a, b, c),
               rs.randn(2, 3), rs.rand(2, 3), rs.randn(2, 3))
    # it is the gradient of SigmoidCrossEntropyWithLogits
    gx = ops.grad(lambda a: P.SigmoidCrossEntropyWithLogits()(a, Tensor(labels)))(Tensor(logits))
    np.testing.assert_allclose(gx.asnumpy(), got, rtol=1e-6)


def test_nn_range_and_paths():
    assert nn.Range(5)().asnumpy().tolist() == [0, 1, 2, 3, 4]
    r = nn.Range(1, 10, 3)()
    assert r.dtype == ms.int32 and r.asnumpy().tolist() == [1, 4, 7]
    r = nn.Range(10., 100., 20.)()
    assert r.dtype == ms.float32 and r.asnumpy().tolist() == [10, 30, 50, 70, 90]
    from mindlite.ops import composite as C
    out = C.multinomial(Tensor(np.array([[0.9, 0.2], [0.9, 0.2]], np.float32)), 6, True, 20)
    assert out.shape == (2, 6) and set(out.asnumpy().ravel()) <= {0, 1}
    assert P.Gelu is P.GeLU
    import mindlite.ops.operations.array_ops as A
    from mindlite.ops.operations import scatter_ops
    assert G.StridedSliceGrad is scatter_ops.StridedSliceGrad and A.Unstack is P.Unstack


def test_graph_mode_grad_of_a_python_number_output_is_zeros():
    class SizeNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.size = P.Size()

        def construct(self, x):
            return self.size(x)

    class GradNet(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.grad = ops.GradOperation(get_all=True)

        def construct(self, x):
            return self.grad(self.net)(x)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        x = Tensor(np.ones((3, 2), np.int32))
        assert SizeNet()(x) == 6
        assert GradNet(SizeNet())(x)[0].asnumpy().tolist() == np.zeros((3, 2)).tolist()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_strided_slice_grad_takes_dy_of_the_slice_size():
    # MindSpore accepts dy (4, 2) for the (1, 4, 2) slice [0:1, 0:4, 0:2]
    dy = np.arange(8, dtype=np.float32).reshape(4, 2)
    out = G.StridedSliceGrad()(Tensor(dy), (2, 4, 2), (0, 0, 0), (1, 4, 2), (1, 1, 1)).asnumpy()
    want = np.zeros((2, 4, 2), np.float32)
    want[0] = dy
    np.testing.assert_array_equal(out, want)
    with pytest.raises(ValueError, match="shape of the slice"):
        G.StridedSliceGrad()(Tensor(np.ones(7, np.float32)), (2, 4, 2), (0, 0, 0), (1, 4, 2),
                             (1, 1, 1))
    check_grad(lambda d: G.StridedSliceGrad()(d, (2, 4, 2), (0, 0, 0), (1, 4, 2), (1, 1, 1)),
               dy.astype(np.float64))
