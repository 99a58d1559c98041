"""Graph mode with dynamic dimensions (jit/dynamic.py) in the forms MindSpore's own tests use:
(None, 32) with (16, None) broadcast to (16, 32); BroadcastTo, Split, AddN; a grad of a cell
whose output has a dynamic dimension (its sensitivity is OnesLike of the output); results
equal eager's; a real size mismatch still raises at the call."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, context, nn
from mindlite.ops import operations as P


class Net(nn.Cell):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def construct(self, *args):
        return self.op(*args)


class AddN2(nn.Cell):
    def construct(self, x, y):
        return P.AddN()((x, y))


@pytest.fixture
def graph_mode():
    context.set_context(mode=context.GRAPH_MODE)
    yield
    context.set_context(mode=context.PYNATIVE_MODE)


@pytest.mark.parametrize("op", [P.FloorDiv(), P.Mod(), P.FloorMod(), P.Sub(), P.Maximum(),
                                P.Less()])
def test_broadcast_of_a_dynamic_dim_with_a_static_one(graph_mode, op):
    net = Net(op)
    net.set_inputs(Tensor(shape=[None, 32], dtype=ms.float32),
                   Tensor(shape=[16, None], dtype=ms.float32))
    x = np.random.randn(16, 32).astype(np.float32)
    y = (np.random.rand(16, 32) + 1).astype(np.float32)
    got = net(Tensor(x), Tensor(y)).asnumpy()
    context.set_context(mode=context.PYNATIVE_MODE)
    want = op(Tensor(x), Tensor(y)).asnumpy()
    np.testing.assert_array_equal(got, want)


def test_a_real_size_mismatch_still_raises(graph_mode):
    net = Net(P.Add())
    net.set_inputs(Tensor(shape=[None, 32], dtype=ms.float32),
                   Tensor(shape=[16, None], dtype=ms.float32))
    with pytest.raises(ValueError, match="Add"):
        net(Tensor(np.ones((15, 32), np.float32)), Tensor(np.ones((16, 32), np.float32)))


def test_broadcast_to_split_and_addn_on_dynamic_dims(graph_mode):
    net = Net(P.BroadcastTo((2, 2, 3)))
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    x = np.random.randn(2, 3).astype(np.float32)
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), np.broadcast_to(x, (2, 2, 3)))

    net = Net(P.Split(-1, 2))
    net.set_inputs(Tensor(shape=[2, 2, None], dtype=ms.int32))
    a = np.arange(24, dtype=np.int32).reshape(2, 2, 6)
    for got, want in zip(net(Tensor(a)), np.split(a, 2, -1)):
        np.testing.assert_array_equal(got.asnumpy(), want)

    net = AddN2()
    net.set_inputs(Tensor(shape=[2, None, 2], dtype=ms.float32),
                   Tensor(shape=[2, 3, None], dtype=ms.float32))
    u, v = np.random.rand(2, 3, 2).astype(np.float32), np.random.rand(2, 3, 2).astype(np.float32)
    np.testing.assert_array_equal(net(Tensor(u), Tensor(v)).asnumpy(), u + v)


def test_broadcast_shape_reads_minus_one_as_mindspore():
    from mindlite.ops.validator import broadcast_shape
    op = P.Add()
    assert broadcast_shape(op, (-1, 32), (16, -1)) == (16, 32)
    assert broadcast_shape(op, (-1, 1), (-1,)) == (-1, -1)
    assert broadcast_shape(op, (-1,), (1,)) == (-1,)
    with pytest.raises(ValueError, match="Add"):
        broadcast_shape(op, (2, 3), (4, 3))


def test_elementwise_gradient_primitives_match_dynamic_dims(graph_mode):
    from mindlite.ops.operations import _grad_ops as G
    net = Net(G.EluGrad())
    net.set_inputs(Tensor(shape=[3, None], dtype=ms.float32),
                   Tensor(shape=[None, 10], dtype=ms.float32))
    dy, y = np.random.randn(3, 10).astype(np.float32), np.random.randn(3, 10).astype(np.float32)
    got = net(Tensor(dy), Tensor(y)).asnumpy()
    np.testing.assert_allclose(got, dy * np.where(y > 0, 1, y + 1), rtol=1e-6)


def test_grad_of_a_dynamic_output(graph_mode):
    class Square(nn.Cell):
        def construct(self, x):
            return x * x

    class Grad(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def construct(self, x):
            return ms.grad(self.net)(x)

    net = Grad(Square())
    net.set_inputs(Tensor(shape=[1, None, 3], dtype=ms.float32))
    x = np.arange(9, dtype=np.float32).reshape(1, 3, 3)
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), 2 * x)
