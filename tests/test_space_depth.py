"""SpaceToDepth / DepthToSpace (space_depth_ops.py) against a loop reference of MindSpore's
channel order ((i b + j) C + c), each the inverse and the gradient of the other, MindSpore's
checks, and graph mode with dynamic dims (MindSpore's own op tests)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, context, nn
from mindlite.ops import operations as P

from gradcheck import check_grad


def _s2d_loop(x, b):
    n, c, h, w = x.shape
    out = np.zeros((n, c * b * b, h // b, w // b), x.dtype)
    for i in range(b):
        for j in range(b):
            for ch in range(c):
                out[:, (i * b + j) * c + ch] = x[:, ch, i::b, j::b]
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 2),
       st.sampled_from([np.float32, np.int8, np.uint64, np.complex64, np.float16]),
       st.integers(0, 2 ** 31 - 1))
def test_equals_loop_and_round_trips(b, c, hb, wb, dtype, seed):
    x = (np.random.RandomState(seed).randn(2, c, hb * b, wb * b) * 10).astype(dtype)
    y = P.SpaceToDepth(b)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(y, _s2d_loop(x, b))
    np.testing.assert_array_equal(P.DepthToSpace(b)(Tensor(y)).asnumpy(), x)


def test_mindspore_values_and_checks():
    x = np.array([[[[0, 3], [6, 9]], [[1, 4], [7, 10]], [[2, 5], [8, 11]]]], np.float32)
    np.testing.assert_array_equal(P.SpaceToDepth(2)(Tensor(x)).asnumpy(),
                                  np.arange(12, dtype=np.float32).reshape(1, 12, 1, 1))
    with pytest.raises(ValueError, match="block_size"):
        P.SpaceToDepth(1)
    with pytest.raises(TypeError, match="'block_size' should be 'int'"):
        P.DepthToSpace(2.0)
    with pytest.raises(ValueError, match=r"x_shape\[2\] % block_size"):
        P.SpaceToDepth(2)(Tensor(np.ones((1, 1, 3, 4), np.float32)))
    with pytest.raises(ValueError, match="rank must be equal to 4"):
        P.SpaceToDepth(2)(Tensor(np.ones((1, 3, 2), np.float32)))
    with pytest.raises(ValueError, match="divisible"):
        P.DepthToSpace(2)(Tensor(np.ones((1, 3, 1, 1), np.float32)))
    with pytest.raises(TypeError):
        P.SpaceToDepth(2)(Tensor(np.ones((1, 1, 2, 2), np.bool_)))


def test_gradients():
    rs = np.random.RandomState(0)
    check_grad(lambda a: P.SpaceToDepth(2)(a), rs.randn(1, 2, 4, 2))
    check_grad(lambda a: P.DepthToSpace(2)(a), rs.randn(2, 8, 1, 2))


def test_graph_mode_dynamic_dims():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = P.DepthToSpace(2)

        def construct(self, x):
            return self.op(x)

    context.set_context(mode=context.GRAPH_MODE)
    try:
        net = Net()
        net.set_inputs(Tensor(shape=[None, None, None, None], dtype=ms.float32))
        x = np.random.rand(3, 12, 1, 2).astype(np.float32)
        np.testing.assert_array_equal(net(Tensor(x)).asnumpy(),
                                      P.DepthToSpace(2)(Tensor(x)).asnumpy())
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)
