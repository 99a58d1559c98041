"""Op coverage of the converter + Lite runtime: convolutions with every pad mode, stride,
dilation and groups, average pooling, Concat, ExpandDims, Squeeze, Cast, GeLU, reductions,
Softmax on another axis, AddN, comparisons: each converted to .ms and run by the Lite
runtime equals mindlite; an op with no Lite form is an error naming the node and the op."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import nn, ops
from mindlite.ops import operations as P
from mindlite.lite.converter import convert

from lite_models import rand, round_trip

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")


class ConvNet(nn.Cell):
    def __init__(self, pad_mode, stride, dilation, group, has_bias):
        super().__init__()
        pad = 1 if pad_mode == "pad" else 0
        self.conv = nn.Conv2d(4, 8, 3, stride=stride, pad_mode=pad_mode, padding=pad,
                              dilation=dilation, group=group, has_bias=has_bias)
        self.pool = nn.AvgPool2d(2, 1)

    def construct(self, x):
        return self.pool(ops.sigmoid(self.conv(x)))


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["valid", "same", "pad"]), st.integers(1, 2), st.integers(1, 2),
       st.sampled_from([1, 2, 4]), st.booleans())
def test_conv_variants(pad_mode, stride, dilation, group, has_bias):
    net = ConvNet(pad_mode, stride, dilation, group, has_bias)
    got, want, _ = round_trip(net, rand(2, 4, 9, 9))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)


def _concat(a, b):
    return ops.concat((a, b * 2.0, a - b), 1)


def _expand_squeeze(a, b):
    return ops.squeeze(ops.expand_dims(a, 1) + ops.expand_dims(b, 1), 1)


def _cast(a, b):
    return ops.cast(ops.cast(a * 4.0, ms.int32), ms.float32) + b


def _gelu_softmax0(a, b):
    return ops.softmax(ops.gelu(a) + P.GeLU()(b), 0)


def _reductions(a, b):
    return a.max(1, keepdims=True) + a.min(1, keepdims=True) + b.prod(1, keepdim=True)


def _addn_compare(a, b):
    return ops.addn([a, b, a]) * ops.cast(ops.greater(a, b), ms.float32)


def _flatten(a, b):
    return ops.flatten(ops.reshape(a, (a.shape[0], 1, -1)) * 1.5) - b


@pytest.mark.parametrize("fn", [_concat, _expand_squeeze, _cast, _gelu_softmax0, _reductions,
                                _addn_compare, _flatten])
def test_op_round_trips(fn):
    a, b = rand(3, 4), rand(3, 4, seed=7)
    got, want, _ = round_trip(ms.jit(fn), a, b)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)


def _gather_tile_select(a, b):
    g = ops.gather(a, ms.Tensor(np.array([2, 0, 1], np.int32)), 0)
    return ops.select(g > 0, ops.tile(b[:1], (3, 1)), ops.pow(ops.abs(g), 1.5))


def _stack_split_slice(a, b):
    x, y = ops.split(ops.stack((a, b), 1).reshape(3, 8), 4, 1)
    return x[:, 1:3] * y[::-1, ::2] + ops.argmax(a, 1).reshape(3, 1).astype(ms.float32)


def _activations(a, b):
    return ops.hardswish(a) + ops.hardsigmoid(b) + ops.relu6(a * 4) + ops.elu(b) + \
        ops.leaky_relu(a, 0.1) + ops.softplus(b) + ops.gelu(a, approximate="none")


def _batch_matmul_layer_norm(a, b):
    x = ops.matmul(a.reshape(3, 2, 2), b.reshape(3, 2, 2).transpose(0, 2, 1))
    ln = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5)
    return ln(x.reshape(3, 4), ms.Tensor(np.linspace(0.5, 2, 4, dtype=np.float32)),
              ms.Tensor(np.linspace(-1, 1, 4, dtype=np.float32)))[0]


@pytest.mark.parametrize("fn", [_gather_tile_select, _stack_split_slice, _activations,
                                _batch_matmul_layer_norm])
def test_array_and_nn_op_round_trips(fn):
    a, b = rand(3, 4), rand(3, 4, seed=7)
    got, want, _ = round_trip(ms.jit(fn), a, b)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)


class ConvTransposeResize(nn.Cell):
    """A transposed convolution with bias and output padding, bilinear and nearest resizes,
    reflect padding: Conv2dTransposeFusion, Resize and PadFusion in NHWC."""

    def __init__(self):
        super().__init__()
        self.up = nn.Conv2dTranspose(4, 3, 3, stride=2, pad_mode="pad", padding=1,
                                     has_bias=True)

    def construct(self, x):
        y = self.up(x)
        y = ops.interpolate(y, size=(9, 9), mode="bilinear") + \
            ops.interpolate(y, size=(9, 9), mode="nearest")
        return ops.pad(y, (1, 1, 1, 1), mode="reflect")


def test_conv_transpose_resize_pad():
    got, want, model = round_trip(ConvTransposeResize(), rand(2, 4, 5, 5))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
    types = {k.type for k in model._session.main.kernels}
    assert {"Conv2dTransposeFusion", "Resize", "PadFusion"} <= types


@ms.jit
def _cumsum(a):
    return ops.cumsum(a, 0)


def test_unmapped_op_names_node_and_op():
    with pytest.raises(NotImplementedError, match="node .*CumSum.*: the op 'CumSum' has no "
                                                  "MindSpore Lite mapping"):
        convert(_cumsum, ms.Tensor(rand(3, 4)))
