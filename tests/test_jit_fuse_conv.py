"""Conv2D + BiasAdd (+ReLU) (+MaxPool) fusion (mindlite/jit/passes/fuse_conv.py,
FusedConv2DBiasAdd in ops/operations/fused_ops.py, kernels in kernels/cpu/conv_fused_cpp.py
and _C.conv_bias_act): graphs before and after the pass, results bitwise equal to eager (jit
LeNet, pad modes, strides, groups, dilation, pooling strides, float32/float64, NaN), what is
not fused, gradients through the fused op, export skipping the fusion, and bad arguments to
the C entry."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import _C, nn, ops
from mindlite.ir import lint
from mindlite.jit.passes import pipeline
from mindlite.kernels import registry
from mindlite.ops.operations.fused_ops import FusedConv2DBiasAdd
from mindlite.ops.primitive import Primitive
from mindlite.pynative.grad import BPROPS
from models import LeNet
from test_jit_fusion import names, t


def _with_stage(graph_fn, *args, fused=True):
    saved = pipeline.PIPELINE
    if not fused:
        pipeline.PIPELINE = [e for e in saved if isinstance(e, str)
                             or e[0] != "conv_biasadd_fusion"]
    try:
        return graph_fn(*args)
    finally:
        pipeline.PIPELINE = saved


class _ConvNet(nn.Cell):
    def __init__(self, has_bias, relu, pad_mode="valid", padding=0, stride=1, dilation=1,
                 group=1, cin=3, cout=6, dtype=ms.float32, pool=None):
        super().__init__()
        self.pool = nn.MaxPool2d(2, pool) if pool else None
        self.conv = nn.Conv2d(cin, cout, 3, stride=stride, pad_mode=pad_mode, padding=padding,
                              dilation=dilation, group=group, has_bias=has_bias,
                              weight_init="normal", bias_init="normal", dtype=dtype)
        self.relu = nn.ReLU() if relu else None

    def construct(self, x):
        y = self.conv(x)
        y = self.relu(y) if self.relu is not None else y
        return self.pool(y) if self.pool is not None else y


def test_lenet_convolutions_become_fused_nodes_and_equal_eager():
    net, x = LeNet(), t((1, 1, 32, 32))
    before = names(_with_stage(ms.jit(type(net).construct).graph, net, x, fused=False))
    assert before["Conv2D"] == 2 and before["ReLU"] >= 2
    jf = ms.jit(type(net).construct)
    graph = jf.graph(net, x)
    lint(graph)
    after = names(graph)
    assert after["FusedConv2DBiasAdd"] == 2 and not {"Conv2D", "MaxPool"} & set(after)
    fused = [n.inputs[0].value for n in graph.order
             if getattr(n.inputs[0], "value", None).__class__ is FusedConv2DBiasAdd]
    assert [p.attrs["activation"] for p in fused] == ["relu", "relu"]
    assert [p.attrs["pool_stride"] for p in fused] == [(2, 2), (2, 2)]
    assert not any(p.attrs["has_bias"] for p in fused)       # nn.Conv2d: has_bias=False
    np.testing.assert_array_equal(jf(net, x).asnumpy(), net(x).asnumpy())


@pytest.mark.parametrize("has_bias,relu", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("geometry", [
    {"pad_mode": "valid"}, {"pad_mode": "same"}, {"pad_mode": "pad", "padding": (1, 2, 0, 1)},
    {"pad_mode": "same", "stride": 2}, {"pad_mode": "valid", "dilation": 2},
    {"pad_mode": "pad", "padding": 1, "group": 3}, {"pad_mode": "valid", "pool": 2},
    {"pad_mode": "same", "pool": 1}, {"pad_mode": "pad", "padding": 1, "pool": (2, 1)}])
def test_fused_graph_equals_eager_bitwise(has_bias, relu, geometry):
    net, x = _ConvNet(has_bias, relu, **geometry), t((2, 3, 11, 12))
    x.asnumpy()[0, 0, 0, :3] = (np.nan, -0.0, np.inf)
    jf = ms.jit(type(net).construct)
    graph = jf.graph(net, x)
    lint(graph)
    # one input channel per group (group 3 of 3 channels): eager runs the depthwise kernel
    # (conv_depthwise_cpp.py), whose chains conv_act_fusion takes (FusedConvAct)
    depthwise = geometry.get("group") == 3
    want = {"FusedConvAct" if depthwise else "FusedConv2DBiasAdd": 1}
    assert names(graph) == want
    (node,) = graph.order
    assert node.inputs[0].value.attrs["has_bias"] is has_bias
    if not depthwise:
        pool = geometry.get("pool")
        want_stride = None if pool is None else (pool, pool) if isinstance(pool, int) else pool
        assert node.inputs[0].value.attrs["pool_stride"] == want_stride
    np.testing.assert_array_equal(jf(net, x).asnumpy(), net(x).asnumpy())


def test_lone_conv_and_shared_values_are_not_fused():
    net, x = _ConvNet(False, False), t((1, 3, 8, 8))
    assert names(ms.jit(type(net).construct).graph(net, x)) == {"Conv2D": 1}

    def shared(x, w, b):
        y = ops.conv2d(x, w)
        return ops.relu(ops.bias_add(y, b)), y * 2.0
    x, w, b = t((1, 3, 8, 8)), t((4, 3, 3, 3), seed=1), t((4,), seed=2)
    graph = ms.jit(shared).graph(x, w, b)
    assert "FusedConv2DBiasAdd" not in names(graph)
    for got, want in zip(ms.jit(shared)(x, w, b), shared(x, w, b)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())

    def biased_then_reused(x, w, b):             # the BiasAdd has two users: no ReLU joins
        y = ops.bias_add(ops.conv2d(x, w), b)
        return ops.relu(y), y
    graph = ms.jit(biased_then_reused).graph(x, w, b)
    fused = [n.inputs[0].value for n in graph.order if n.inputs[0].value.__class__
             is FusedConv2DBiasAdd]
    assert [p.attrs["activation"] for p in fused] == ["none"]
    for got, want in zip(ms.jit(biased_then_reused)(x, w, b), biased_then_reused(x, w, b)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_other_poolings_are_left_unfused():
    class Net(nn.Cell):
        def __init__(self, pool):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, has_bias=True)
            self.relu, self.pool = nn.ReLU(), pool

        def construct(self, x):
            return self.pool(self.relu(self.conv(x)))
    x = t((1, 3, 9, 9))
    for pool in (nn.MaxPool2d(3, 2), nn.MaxPool2d(2, 2, pad_mode="same"), nn.AvgPool2d(2, 2)):
        net = Net(pool)
        graph = ms.jit(type(net).construct).graph(net, x)
        got = names(graph)
        assert got["FusedConv2DBiasAdd"] == 1 and sum(got.values()) == 2
        np.testing.assert_array_equal(ms.jit(type(net).construct)(net, x).asnumpy(),
                                      net(x).asnumpy())


def test_shapes_conv_small_does_not_take_are_not_fused():
    net, x = _ConvNet(True, True, pad_mode="same", cin=64, cout=64), t((16, 64, 64, 64))
    graph = ms.jit(type(net).construct).graph(net, x)
    # this pass leaves it; conv_act_fusion (fuse_conv_act.py) takes it for the engine
    assert "FusedConv2DBiasAdd" not in names(graph) and names(graph) == {"FusedConvAct": 1}


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 3), cin=st.integers(1, 4), cout=st.integers(1, 5),
       h=st.integers(3, 9), w=st.integers(3, 9), stride=st.integers(1, 2),
       pad_mode=st.sampled_from(["valid", "same"]), dtype=st.sampled_from([np.float32,
                                                                          np.float64]))
def test_fused_primitive_equals_the_unfused_chain(n, cin, cout, h, w, stride, pad_mode, dtype):
    rng = np.random.default_rng(n * 100 + cin * 10 + cout)
    x = rng.standard_normal((n, cin, h, w)).astype(dtype)
    x.flat[0] = np.nan
    wt = rng.standard_normal((cout, cin, 3, 3)).astype(dtype)
    b = rng.standard_normal(cout).astype(dtype)
    conv = ops.Conv2D(cout, 3, pad_mode=pad_mode, stride=stride)
    a = conv.attrs
    want = ops.relu(ops.bias_add(conv(ms.Tensor(x), ms.Tensor(wt)), ms.Tensor(b))).asnumpy()
    prim = FusedConv2DBiasAdd(cout, 3, pad_mode, 0, a["stride"], a["dilation"], 1, True, "relu")
    got = prim(ms.Tensor(x), ms.Tensor(wt), ms.Tensor(b)).asnumpy()
    np.testing.assert_array_equal(got, want)
    out = np.empty_like(want)                      # the numpy kernel: the same values
    kernel = next(k.fn for k in registry.kernels_for("FusedConv2DBiasAdd")
                  if k.provider == "numpy")
    kernel(x, wt, b, out, **prim.kernel_params(*(ms.Tensor(v)._abs for v in (x, wt, b))))
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("has_bias,act,pool", [(True, "relu", None), (True, "none", None),
                                               (False, "relu", None), (True, "relu", (2, 2)),
                                               (False, "none", (1, 2))])
def test_fused_gradient_matches_finite_differences(has_bias, act, pool):
    rng = np.random.default_rng(3)
    vals = [rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))]
    if has_bias:
        vals.append(rng.standard_normal(3) * 0.3)
    prim = FusedConv2DBiasAdd(3, 3, "same", 0, 1, 1, 1, has_bias, act, pool)
    weights = ms.Tensor(rng.standard_normal(prim(*map(ms.Tensor, vals)).shape))

    def loss(*args):
        return (prim(*args) * weights).sum()
    grads = ms.grad(loss, grad_position=tuple(range(len(vals))))(*map(ms.Tensor, vals))
    for k, (v, g) in enumerate(zip(vals, grads)):
        num = np.zeros_like(v)
        for idx in np.ndindex(v.shape):
            hi, lo = [a.copy() for a in vals], [a.copy() for a in vals]
            hi[k][idx] += 1e-6
            lo[k][idx] -= 1e-6
            num[idx] = (float(loss(*map(ms.Tensor, hi)).asnumpy())
                        - float(loss(*map(ms.Tensor, lo)).asnumpy())) / 2e-6
        np.testing.assert_allclose(g.asnumpy(), num, rtol=1e-5, atol=1e-6)


def test_value_and_grad_through_a_compiled_lenet_equals_eager():
    net, x = LeNet(), t((2, 1, 32, 32))
    label = t((2, 10), seed=5)
    params = net.trainable_params()

    def loss_fn(x):
        return ((net(x) - label) ** 2).mean()
    eager_loss, eager_grads = ms.value_and_grad(loss_fn, None, params)(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph_loss, graph_grads = ms.value_and_grad(loss_fn, None, params)(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert "FusedConv2DBiasAdd" in names(ms.jit(type(net).construct).graph(net, x))
    np.testing.assert_allclose(graph_loss.asnumpy(), eager_loss.asnumpy(), rtol=1e-6)
    for g, e in zip(graph_grads, eager_grads):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


def test_export_graph_keeps_the_unfused_ops():
    from mindlite.jit.export_graph import graph_for_export
    net, x = LeNet(), t((1, 1, 32, 32))
    got = names(graph_for_export(net, x))
    assert "FusedConv2DBiasAdd" not in got and got["Conv2D"] == 2


def test_fused_primitive_is_complete_and_checks_its_arguments():
    assert FusedConv2DBiasAdd.infer is not Primitive.infer and FusedConv2DBiasAdd in BPROPS
    assert {"numpy", "cpp"} <= {k.provider for k in registry.kernels_for("FusedConv2DBiasAdd")}
    with pytest.raises(ValueError, match="activation"):
        FusedConv2DBiasAdd(4, 3, activation="gelu")
    with pytest.raises(TypeError, match="has_bias"):
        FusedConv2DBiasAdd(4, 3, has_bias=1)
    prim = FusedConv2DBiasAdd(4, 3)
    x, w = t((1, 3, 6, 6)), t((4, 3, 3, 3))
    with pytest.raises(ValueError, match="bias"):
        prim(x, w, t((5,)))
    with pytest.raises(TypeError, match="FusedConv2DBiasAdd"):
        prim(x, w)


def test_c_conv_bias_act_checks_its_arguments():
    x = np.ones((1, 2, 5, 5), np.float32)
    w = np.ones((3, 2, 3, 3), np.float32)
    b = np.arange(3, dtype=np.float32)
    out = np.empty((1, 3, 3, 3), np.float32)
    geo = ((1, 1), (1, 1), (0, 0, 0, 0), 1)
    _C.conv_bias_act(x, w, b, out, *geo, True, ())
    np.testing.assert_array_equal(out[0, :, 0, 0], 18 + b)
    _C.conv_bias_act(x, w, out, *geo, False, ())
    np.testing.assert_array_equal(out, np.full_like(out, 18))
    pooled = np.empty((1, 3, 2, 2), np.float32)
    _C.conv_bias_act(x, w, b, pooled, *geo, True, (1, 1))
    np.testing.assert_array_equal(pooled[0, :, 0, 0], 18 + b)
    with pytest.raises(TypeError, match="expected 10 arguments"):
        _C.conv_bias_act(x, w, b, out)
    with pytest.raises(ValueError, match="'bias' must have shape"):
        _C.conv_bias_act(x, w, np.ones(4, np.float32), out, *geo, True, ())
    with pytest.raises(TypeError, match="bias"):
        _C.conv_bias_act(x, w, b.astype(np.float64), out, *geo, True, ())
    with pytest.raises(TypeError, match="relu"):
        _C.conv_bias_act(x, w, b, out, *geo, 1, ())
    with pytest.raises(ValueError, match="output plane"):
        _C.conv_bias_act(x, w, b, np.empty((1, 3, 4, 4), np.float32), *geo, True, ())
    with pytest.raises(TypeError):
        _C.conv_bias_act(x, w, b, out, (1,), *geo[1:], True, ())
    with pytest.raises(TypeError, match="pool_stride"):
        _C.conv_bias_act(x, w, b, pooled, *geo, True, (1,))
    with pytest.raises(ValueError, match="pool_stride"):
        _C.conv_bias_act(x, w, b, pooled, *geo, True, (0, 1))
    with pytest.raises(ValueError, match="'out' shape"):
        _C.conv_bias_act(x, w, b, out, *geo, True, (2, 2))
    with pytest.raises(ValueError, match="at least 2 x 2"):
        _C.conv_bias_act(x, w[:, :, :1, :1].copy(), b, pooled, (5, 5), *geo[1:], True, (1, 1))
