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


@ms.jit
def _cumsum(a):
    return ops.cumsum(a, 0)


def test_unmapped_op_names_node_and_op():
    with pytest.raises(NotImplementedError, match="node .*CumSum.*: the op 'CumSum' has no "
                                                  "MindSpore Lite mapping"):
        convert(_cumsum, ms.Tensor(rand(3, 4)))
