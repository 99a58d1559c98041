"""conv_act_fusion (mindlite/jit/passes/fuse_conv_act.py) and FusedConvAct
(ops/operations/conv_fused_ops.py): which chains of a large or depthwise Conv2D become one
node (bias, residual Add, ReLU / ReLU6 / ONNX's Clip), which stay apart (shared values, returned
values, other activations, small convolutions), the compiled graph's values bit for bit eager's
(NaN, -0 and inf included), model export left unfused, and FusedConvAct's float64 gradients."""
from collections import Counter

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.ir.manager import lint
from mindlite.kernels.cpu import conv_engine_cpp
from mindlite.ops.operations.conv_fused_ops import FusedConvAct

from gradcheck import check_grad


def names(graph):
    return Counter(type(n.inputs[0].value).__name__ for n in graph.order
                   if hasattr(n.inputs[0], "value"))


def t(shape, seed=0, dtype=np.float32):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    a.flat[:3] = (np.nan, -0.0, np.inf)
    return Tensor(a)


def _same(f, *args):
    graph = ms.jit(f).graph(*args)
    lint(graph)
    got, want = ms.jit(f)(*args), f(*args)
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    return names(graph)


X, W, B = (2, 32, 12, 12), (32, 32, 3, 3), (32,)


def test_bias_residual_relu_in_one_node():
    def f(x, w, b, r):
        return ops.relu(ops.bias_add(ops.conv2d(x, w, pad_mode="same"), b) + r)
    assert _same(f, t(X), t(W, 1), t(B, 2), t(X, 3)) == {"FusedConvAct": 1}


@pytest.mark.parametrize("act", ["relu6", "clip", "none"])
def test_activations(act):
    def f(x, w, b):
        y = ops.bias_add(ops.conv2d(x, w, pad_mode="same"), b)
        if act == "relu6":
            return ops.relu6(y)
        if act == "clip":                      # ONNX's Clip(0, 6) as the importer builds it
            return ops.minimum(ops.maximum(y, 0.0), 6.0)
        return y
    got = _same(f, t(X), t(W, 1), t(B, 2))
    assert got == {"FusedConvAct": 1}


def test_clip_bounds_are_read_at_run_time():
    def f(x, w, lo, hi):
        return ops.minimum(ops.maximum(ops.conv2d(x, w, pad_mode="same"), lo), hi)
    x, w = t(X), t(W, 1)
    for lo, hi in ((0.0, 6.0), (-1.0, 2.5)):
        lo_t, hi_t = Tensor(np.float32(lo)), Tensor(np.float32(hi))
        assert _same(f, x, w, lo_t, hi_t) == {"FusedConvAct": 1}


def test_depthwise_chain():
    def f(x, w, b):
        return ops.relu6(ops.bias_add(ops.conv2d(x, w, pad_mode="same", groups=32), b))
    assert _same(f, t(X), t((32, 1, 3, 3), 1), t(B, 2)) == {"FusedConvAct": 1}


def test_shared_and_returned_values_stay_apart():
    def shared(x, w, b):
        y = ops.bias_add(ops.conv2d(x, w, pad_mode="same"), b)
        return ops.relu(y), y * 2.0
    graph = ms.jit(shared).graph(t(X), t(W, 1), t(B, 2))
    fused = [n.inputs[0].value for n in graph.order
             if isinstance(getattr(n.inputs[0], "value", None), FusedConvAct)]
    assert [p.attrs["activation"] for p in fused] == ["none"]   # BiasAdd fused, not the ReLU
    for got, want in zip(ms.jit(shared)(t(X), t(W, 1), t(B, 2)),
                         shared(t(X), t(W, 1), t(B, 2))):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())

    def lone(x, w):
        return ops.conv2d(x, w, pad_mode="same")
    assert names(ms.jit(lone).graph(t(X), t(W, 1))) == {"Conv2D": 1}

    def broadcast_residual(x, w, r):              # no broadcasting into the output loop
        return ops.conv2d(x, w, pad_mode="same") + r
    assert "FusedConvAct" not in names(ms.jit(broadcast_residual).graph(
        t(X), t(W, 1), t((1, 32, 1, 1), 2)))


def test_small_convolutions_are_left_to_conv_biasadd_fusion(monkeypatch):
    def f(x, w):
        return ops.relu(ops.conv2d(x, w))
    x, w = t((1, 1, 32, 32)), t((6, 1, 5, 5), 1)              # LeNet's conv1
    assert names(ms.jit(f).graph(x, w)) == {"FusedConv2DBiasAdd": 1}
    monkeypatch.setattr(conv_engine_cpp, "MIN_MACS", 1 << 40)  # the engine takes nothing
    assert names(ms.jit(f).graph(t(X), t(W, 1)))["FusedConvAct"] == 0


def test_export_keeps_the_unfused_nodes():
    from mindlite.jit.export_graph import graph_for_export

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(32, 32, 3, has_bias=True)
            self.relu = ms.nn.ReLU6()

        def construct(self, x):
            return self.relu(self.conv(x))
    got = names(graph_for_export(Net(), t(X)))
    assert got["Conv2D"] == 1 and got["FusedConvAct"] == 0


@pytest.mark.parametrize("act,residual,group", [("relu", True, 1), ("relu6", False, 4),
                                                 ("clip", True, 1), ("none", False, 1)])
def test_float64_gradients(monkeypatch, act, residual, group):
    monkeypatch.setattr(conv_engine_cpp, "MIN_MACS", 0)
    monkeypatch.setattr(conv_engine_cpp, "MIN_ROWS", 0)
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((2, 4, 5, 4)), rng.standard_normal((4, 4 // group, 3, 3))
    b = rng.standard_normal(4)
    extra = [rng.standard_normal((2, 4, 5, 4))] if residual else []
    bounds = [np.float64(-0.5), np.float64(1.5)] if act == "clip" else []
    prim = FusedConvAct(4, 3, "pad", (1, 1, 1, 1), 1, 1, group, True, residual, act)

    def fn(*args):
        return prim(*args)
    check_grad(fn, x, w, b, *extra, *bounds)

    def unfused(x, w, b, *rest):
        y = ops.bias_add(ops.conv2d(x, w, pad_mode="pad", padding=1, groups=group), b)
        if residual:
            y = y + rest[0]
        if act == "clip":
            return ops.minimum(ops.maximum(y, rest[-2]), rest[-1])
        return {"relu": ops.relu, "relu6": ops.relu6, "none": lambda v: v}[act](y)
    args = [Tensor(a) for a in (x, w, b, *extra, *bounds)]
    np.testing.assert_array_equal(prim(*args).asnumpy(), unfused(*args).asnumpy())


def test_inference_errors_name_the_op():
    prim = FusedConvAct(4, 3, "same", 0, 1, 1, 1, True, True, "relu")
    x, w = Tensor(np.zeros((1, 4, 5, 5), np.float32)), Tensor(np.zeros((4, 4, 3, 3), np.float32))
    with pytest.raises(ValueError, match="FusedConvAct.*'residual'"):
        prim(x, w, Tensor(np.zeros(4, np.float32)), Tensor(np.zeros((1, 4, 5, 4), np.float32)))
    with pytest.raises(ValueError, match="FusedConvAct.*'activation'"):
        FusedConvAct(4, 3, activation="gelu")
    with pytest.raises(TypeError, match="FusedConvAct.*expected 4 inputs"):
        prim(x, w, Tensor(np.zeros(4, np.float32)))


def test_two_chains_summed_by_one_add(monkeypatch):
    """A ResNet block with a projection shortcut: both convolutions' chains reach the Add; the
    first takes it (and the ReLU), the second keeps its bias only."""
    monkeypatch.setattr(conv_engine_cpp, "MIN_MACS", 0)     # the 1 x 1 shortcut on the engine
    def f(x, w1, b1, w2, b2):
        main = ops.bias_add(ops.conv2d(x, w1, pad_mode="same"), b1)
        short = ops.bias_add(ops.conv2d(x, w2), b2)
        return ops.relu(main + short)
    args = (t(X), t(W, 1), t(B, 2), t((32, 32, 1, 1), 3), t(B, 4))
    assert _same(f, *args) == {"FusedConvAct": 2}
