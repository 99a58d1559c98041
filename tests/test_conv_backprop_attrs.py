"""Conv2DBackpropInput / Conv2DBackpropFilter take the kernel and the output channels from the
weight / filter_size, not from their out_channel and kernel_size attributes (MindSpore 2.10:
its own test builds Conv2DBackpropFilter(4, 1) for a (1, 1, 3, 3) filter and gets the values
below); results equal the gradients of Conv2D with that filter."""
import numpy as np

from mindlite import Tensor, ops
from mindlite.ops.operations import _grad_ops as G
from mindlite.ops.operations import conv_ops as C


def test_filter_size_sets_kernel_and_channels():
    x = np.array([[[[3, 0, 1, 2, 7, 4], [1, 5, 8, 9, 3, 1], [2, 7, 2, 5, 1, 3],
                    [0, 1, 3, 1, 7, 8], [4, 2, 1, 6, 2, 8], [2, 4, 5, 2, 3, 9]]]], np.float32)
    dout = np.array([[[[-5, -4, 0, 8], [-10, -2, 2, 3], [0, -2, -4, -7],
                       [-3, -2, -3, -16]]]], np.float32)
    got = G.Conv2DBackpropFilter(4, 1, pad_mode="valid", stride=(1, 1),
                                 dilation=(1, 1, 1, 1))(Tensor(dout), Tensor(x), (1, 1, 3, 3))
    want = [[[[-60, -142, -265], [-104, -211, -322], [-102, -144, -248]]]]
    np.testing.assert_array_equal(got.asnumpy(), want)


def test_backprop_filter_equals_conv2d_gradient():
    rs = np.random.RandomState(0)
    x = rs.rand(2, 4, 7, 6).astype(np.float32)
    w = rs.rand(6, 2, 3, 2).astype(np.float32)
    conv = C.Conv2D(6, (3, 2), group=2, pad_mode="same")
    dout = rs.rand(*conv(Tensor(x), Tensor(w)).shape).astype(np.float32)
    want = ops.grad(lambda a: (conv(Tensor(x), a) * Tensor(dout)).sum())(Tensor(w))
    got = G.Conv2DBackpropFilter(2, 1, group=2, pad_mode="same")(Tensor(dout), Tensor(x),
                                                                  w.shape)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5)
