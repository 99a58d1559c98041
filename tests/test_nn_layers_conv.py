"""nn layers over the conv / pool / norm primitives (Conv2d, MaxPool2d, AvgPool2d, BatchNorm1d,
BatchNorm2d, LayerNorm) and the functional ops (conv2d, max_pool2d, avg_pool2d, batch_norm,
layer_norm, dropout): MindSpore defaults, repr, parameters, train / eval behaviour, errors
naming the layer at the call, a float64 gradient check through a small LeNet-like net, and the
explicit-padding pooling primitives behind pad_mode='pad' (MaxPoolWithArgmaxV2, AvgPool2D and
their gradients) against the naive loop of test_conv_ops.py."""
import math

import numpy as np
import pytest
from gradcheck import check_grad
from hypothesis import given, settings
from hypothesis import strategies as st
from test_conv_ops import pool_ref

import mindlite as ms
from mindlite import Tensor, nn, ops
from mindlite.ops.function import conv_func as F
from mindlite.ops.operations import conv_ops as C
from mindlite.ops.operations import pool_ops as P

RNG = np.random.default_rng(0)


def x4(*shape, dtype=np.float32):
    return Tensor(RNG.standard_normal(shape).astype(dtype))


# ---- Conv2d --------------------------------------------------------------------------------
def test_conv2d_defaults_repr_and_init():
    ms.set_seed(0)
    conv = nn.Conv2d(1, 6, 3)
    assert repr(conv) == (
        "Conv2d(input_channels=1, output_channels=6, kernel_size=(3, 3), stride=(1, 1), "
        "pad_mode=same, padding=0, dilation=(1, 1), group=1, has_bias=False, "
        f"weight_init={conv.weight_init!r}, bias_init=None, format=NCHW)")
    assert isinstance(conv.weight_init, ms.common.initializer.HeUniform)
    assert conv.bias is None and conv.weight.shape == (6, 1, 3, 3)
    assert conv.weight.dtype == ms.float32 and conv.weight.requires_grad
    w = conv.weight.asnumpy()
    assert np.abs(w).max() <= 1 / math.sqrt(9) and w.std() > 0.1       # U(+-1/sqrt(fan_in))
    biased = nn.Conv2d(4, 8, (3, 2), group=2, has_bias=True)
    b = biased.bias.asnumpy()
    assert b.shape == (8,) and np.abs(b).max() <= 1 / math.sqrt(2 * 3 * 2)
    net = nn.SequentialCell([nn.Conv2d(1, 2, 3, has_bias=True)])
    assert list(net.parameters_dict()) == ["0.weight", "0.bias"]


@pytest.mark.parametrize("kw", [{}, {"pad_mode": "valid", "stride": 2},
                                {"pad_mode": "pad", "padding": (1, 0, 2, 1), "dilation": 2},
                                {"group": 2, "has_bias": True}])
def test_conv2d_forward_is_the_primitive_plus_bias(kw):
    conv = nn.Conv2d(4, 6, 3, weight_init="normal", bias_init="normal", **kw)
    x = x4(2, 4, 7, 6)
    prim = C.Conv2D(6, 3, pad_mode=kw.get("pad_mode", "same"), pad=kw.get("padding", 0),
                    stride=kw.get("stride", 1), dilation=kw.get("dilation", 1),
                    group=kw.get("group", 1))
    want = prim(x, conv.weight).asnumpy()
    if kw.get("has_bias"):
        want = want + conv.bias.asnumpy().reshape(1, -1, 1, 1)
    np.testing.assert_allclose(conv(x).asnumpy(), want, rtol=1e-6, atol=1e-6)


def test_conv2d_errors_name_the_layer():
    conv = nn.Conv2d(3, 6, 3)
    with pytest.raises(ValueError, match=r"For 'Conv2d', the input must have shape \(N, "
                                         r"in_channels, H, W\) with in_channels = 3"):
        conv(x4(1, 4, 5, 5))
    with pytest.raises(ValueError, match="For 'Conv2d'"):
        conv(x4(3, 5, 5))
    with pytest.raises(TypeError, match="For 'Conv2d', the input must be a Tensor"):
        conv(np.zeros((1, 3, 5, 5), np.float32))
    for args, kw, exc, match in (
            ((3, 6, 3), {"group": 2}, ValueError, "'in_channels' must be divisible by 'group'"),
            ((0, 6, 3), {}, ValueError, "'in_channels' must be a positive int"),
            ((3, 6, 3.0), {}, TypeError, "'kernel_size'"),
            ((3, 6, 3), {"pad_mode": "full"}, ValueError, "'pad_mode' must be one of"),
            ((3, 6, 3), {"has_bias": 1}, TypeError, "'has_bias' must be a bool"),
            ((3, 6, 3), {"data_format": "NHWC"}, ValueError, "'data_format'")):
        with pytest.raises(exc, match="For 'Conv2d', " + match):
            nn.Conv2d(*args, **kw)


# ---- pooling layers ------------------------------------------------------------------------
def test_pool_layers():
    x = x4(2, 3, 6, 7)
    mp = nn.MaxPool2d(kernel_size=2, stride=2)
    assert repr(mp) == "MaxPool2d(kernel_size=2, stride=2, pad_mode=valid)"
    np.testing.assert_array_equal(mp(x).asnumpy(), ops.MaxPool(2, 2)(x).asnumpy())
    assert mp(Tensor(x.asnumpy()[0])).shape == (3, 3, 3)           # unbatched (C, H, W)
    same = nn.AvgPool2d(3, 2, pad_mode="SAME")
    np.testing.assert_array_equal(same(x).asnumpy(), ops.AvgPool(3, 2, "same")(x).asnumpy())
    padded = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, return_indices=True)
    out, idx = padded(x)
    want, want_idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(out.asnumpy(), want.asnumpy())
    np.testing.assert_array_equal(idx.asnumpy(), want_idx.asnumpy())
    ceil = nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True,
                        count_include_pad=False)
    assert ceil(x).shape == (2, 3, 4, 4)
    with pytest.raises(ValueError, match="For 'MaxPool2d', the input must be 3-D"):
        mp(x4(6, 7))
    with pytest.raises(ValueError, match="For 'AvgPool2d', 'pad_mode' must be one of"):
        nn.AvgPool2d(2, pad_mode="full")
    with pytest.raises(ValueError, match="For 'MaxPool2d', 'padding'.*need pad_mode"):
        nn.MaxPool2d(2, pad_mode="same", padding=1)


# ---- BatchNorm ------------------------------------------------------------------------------
def test_batch_norm2d_train_eval_and_moving_statistics():
    bn = nn.BatchNorm2d(3)
    params = dict(bn.parameters_and_names())
    assert set(params) == {"moving_mean", "moving_variance", "gamma", "beta"}
    assert [p.name for p in bn.trainable_params()] == ["gamma", "beta"]
    assert not bn.moving_mean.requires_grad and not bn.moving_variance.requires_grad
    assert "num_features=3, eps=1e-05, momentum=0.9" in repr(bn)
    x = RNG.standard_normal((4, 3, 2, 5)).astype(np.float32) * 2 + 1
    assert not bn.training
    y_eval = bn(Tensor(x)).asnumpy()            # moving statistics 0 / 1: y = x / sqrt(1 + eps)
    np.testing.assert_allclose(y_eval, x / np.sqrt(1 + 1e-5), rtol=1e-6)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), 0)
    bn.set_train()
    y = bn(Tensor(x)).asnumpy()
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(y.std(axis=(0, 2, 3)), 1, atol=1e-3)
    # MindSpore's layer momentum: moving = 0.9 * moving + 0.1 * batch; the moving variance
    # takes the unbiased batch variance (MindSpore 2.10 and PyTorch), the output the biased one
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * x.mean(axis=(0, 2, 3)),
                               rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(),
                               0.9 + 0.1 * x.var(axis=(0, 2, 3), ddof=1), rtol=1e-5)
    fixed = nn.BatchNorm2d(3, use_batch_statistics=False).set_train()
    np.testing.assert_allclose(fixed(Tensor(x)).asnumpy(), y_eval, rtol=1e-6)
    with pytest.raises(ValueError, match="For 'BatchNorm2d', the input must be 4-D"):
        bn(Tensor(x[:, :2]))
    with pytest.raises(ValueError, match="For 'BatchNorm2d', 'momentum' must be in range"):
        nn.BatchNorm2d(3, momentum=1.5)
    with pytest.raises(TypeError, match="For 'BatchNorm2d', 'num_features' must be an int"):
        nn.BatchNorm2d(3.0)


def test_batch_norm1d_ranks_and_affine():
    bn = nn.BatchNorm1d(4, affine=False).set_train()
    assert bn.trainable_params() == []
    for shape in ((8, 4), (8, 4, 3)):
        y = bn(x4(*shape)).asnumpy()
        axes = (0,) if len(shape) == 2 else (0, 2)
        np.testing.assert_allclose(y.mean(axis=axes), 0, atol=1e-5)
    with pytest.raises(ValueError, match=r"For 'BatchNorm1d', the input must be 2-D \(N, C\)"):
        bn(x4(8, 4, 3, 2))


# ---- LayerNorm ------------------------------------------------------------------------------
def test_layer_norm_layer():
    ln = nn.LayerNorm((5,))
    assert repr(ln).startswith("LayerNorm(normalized_shape=(5,), begin_norm_axis=-1, "
                               "begin_params_axis=-1, gamma=Parameter (name=gamma")
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-7)
    np.testing.assert_allclose(ln(Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    ln2 = nn.LayerNorm((3, 5), begin_norm_axis=1, begin_params_axis=1)
    assert ln2(Tensor(x)).shape == x.shape
    with pytest.raises(ValueError, match="For 'LayerNorm', the input's shape"):
        ln(x4(2, 4))
    with pytest.raises(TypeError, match="For 'LayerNorm', the type of 'normalized_shape'"):
        nn.LayerNorm(5)


# ---- functional ------------------------------------------------------------------------------
def test_functional_ops():
    x, w, b = x4(2, 4, 6, 6), x4(6, 2, 3, 3), x4(6)
    y = F.conv2d(x, w, b, stride=2, pad_mode="pad", padding=1, groups=2)
    want = C.Conv2D(6, 3, pad_mode="pad", pad=1, stride=2, group=2)(x, w).asnumpy()
    np.testing.assert_allclose(y.asnumpy(), want + b.asnumpy().reshape(1, -1, 1, 1), rtol=1e-6)
    assert F.conv2d(x, w, groups=2).shape == (2, 6, 4, 4)
    assert F.max_pool2d(x, 2).shape == (2, 4, 3, 3)
    out, idx = F.max_pool2d(x, 3, 1, 1, dilation=2, return_indices=True)
    assert out.shape == idx.shape == (2, 4, 4, 4)
    np.testing.assert_allclose(F.avg_pool2d(x, 2, 2).asnumpy(),
                               x.asnumpy().reshape(2, 4, 3, 2, 3, 2).mean((3, 5)), rtol=1e-6)
    assert F.avg_pool2d(x, 3, 2, 1, ceil_mode=True).shape == (2, 4, 4, 4)
    mean, var = ms.Parameter(np.zeros(4, np.float32)), ms.Parameter(np.ones(4, np.float32))
    ones, zeros = Tensor(np.ones(4, np.float32)), Tensor(np.zeros(4, np.float32))
    yb = F.batch_norm(x, mean, var, ones, zeros, training=True, momentum=0.5)
    np.testing.assert_allclose(yb.asnumpy().mean(axis=(0, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), 0.5 * x.asnumpy().mean(axis=(0, 2, 3)),
                               rtol=1e-5)
    yl = F.layer_norm(x, (6, 6)).asnumpy()
    np.testing.assert_allclose(yl.mean(axis=(2, 3)), 0, atol=1e-5)
    with pytest.raises(ValueError, match="For 'layer_norm', the trailing dimensions"):
        F.layer_norm(x, (5,))
    assert F.dropout(x, 0.5, training=False) is x and F.dropout(x, 0.0) is x
    assert (F.dropout(x, 1.0).asnumpy() == 0).all()
    ms.set_seed(2)
    a = F.dropout(x, 0.25).asnumpy()
    kept = a != 0
    np.testing.assert_allclose(a[kept], x.asnumpy()[kept] / 0.75, rtol=1e-6)
    with pytest.raises(ValueError, match="For 'dropout', 'p' must be"):
        F.dropout(x, 1.5)


def test_gradient_through_a_lenet_like_net():
    ms.set_seed(1)
    net = nn.SequentialCell([
        nn.Conv2d(1, 2, 3, has_bias=True, dtype=ms.float64),
        nn.MaxPool2d(2, 2),
        nn.BatchNorm2d(2, dtype=ms.float64),
        nn.Conv2d(2, 3, 2, pad_mode="valid", dtype=ms.float64),
        nn.AvgPool2d(2, 1),
    ]).set_train()
    x = RNG.standard_normal((2, 1, 6, 6))
    check_grad(lambda a: net(a), x, rtol=1e-4, atol=1e-6)


# ---- explicit-padding pooling primitives --------------------------------------------------
explicit_cases = st.fixed_dictionaries({
    "h": st.integers(2, 7), "w": st.integers(2, 7), "k": st.tuples(st.integers(1, 3),
                                                                   st.integers(1, 3)),
    "s": st.tuples(st.integers(1, 3), st.integers(1, 3)), "p": st.tuples(st.integers(0, 1),
                                                                         st.integers(0, 1)),
    "d": st.tuples(st.integers(1, 2), st.integers(1, 2)), "ceil": st.booleans(),
    "include": st.booleans()})


@settings(max_examples=40)
@given(explicit_cases)
def test_explicit_padding_pools_match_naive_loop(c):
    k, s, d = c["k"], c["s"], c["d"]
    p = (min(c["p"][0], k[0] // 2), min(c["p"][1], k[1] // 2))
    x = np.round(RNG.standard_normal((1, 2, c["h"], c["w"])), 1)
    out_hw = []
    for size, ki, si, pi, di in zip((c["h"], c["w"]), k, s, p, d):
        span = size + 2 * pi - di * (ki - 1) - 1
        o = (span + (si - 1 if c["ceil"] else 0)) // si + 1
        if c["ceil"] and (o - 1) * si >= size + pi:
            o -= 1
        out_hw.append(o)
    mp = P.MaxPoolWithArgmaxV2(k, s, p, d, c["ceil"])
    if min(out_hw) <= 0:
        with pytest.raises(ValueError, match="For 'MaxPoolWithArgmaxV2'"):
            mp(Tensor(x))
        return
    pads = (p[0], p[0], p[1], p[1])
    want, want_idx = pool_ref(x, k, s, pads, d, out_hw)
    y, idx = mp(Tensor(x))
    np.testing.assert_array_equal(y.asnumpy(), want)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx)
    assert idx.dtype == ms.int64
    avg = P.AvgPool2D(k, s, p, c["ceil"], c["include"])
    avg_hw = tuple(_explicit_out(c, k, s, p))
    if min(avg_hw) <= 0:
        with pytest.raises(ValueError, match="For 'AvgPool2D'"):
            avg(Tensor(x))
        return
    want_avg, _ = pool_ref(x, k, s, pads, (1, 1), avg_hw, "avg", c["include"])
    np.testing.assert_allclose(avg(Tensor(x)).asnumpy(), want_avg, rtol=1e-12, atol=1e-12)


def _explicit_out(c, k, s, p):
    for size, ki, si, pi in zip((c["h"], c["w"]), k, s, p):
        o = (size + 2 * pi - ki + (si - 1 if c["ceil"] else 0)) // si + 1
        yield o - 1 if c["ceil"] and (o - 1) * si >= size + pi else o


def test_explicit_pool_gradients_and_errors():
    x = RNG.standard_normal((1, 2, 5, 5))
    mp = P.MaxPoolWithArgmaxV2(3, 2, 1, 1, True)
    check_grad(lambda a: mp(a)[0], x)
    y, idx = mp(Tensor(x))
    g = RNG.standard_normal(y.shape)
    grad = P.MaxPoolGradWithArgmaxV2(3, 2, 1, 1, True)
    check_grad(lambda d: grad(Tensor(x), d, idx), g)
    gg = P.MaxPoolGradGradWithArgmax(3, 2, 1, 1, True)
    check_grad(lambda d: gg(Tensor(x), d, idx), RNG.standard_normal(x.shape))
    for kw in ({"count_include_pad": True}, {"count_include_pad": False},
               {"divisor_override": 4}):
        ap = P.AvgPool2D(3, 2, 1, True, **kw)
        check_grad(ap, x)
        ap_grad = P.AvgPool2DGrad(3, 2, 1, True, **kw)
        check_grad(lambda d, p=ap_grad: p(Tensor(x), d), RNG.standard_normal(ap(Tensor(x)).shape))
    with pytest.raises(ValueError, match="For 'MaxPoolWithArgmaxV2', 'pads' must be at most"):
        P.MaxPoolWithArgmaxV2(2, 1, 2)
    with pytest.raises(TypeError, match="For 'MaxPoolWithArgmaxV2', 'argmax_type'"):
        P.MaxPoolWithArgmaxV2(2, argmax_type=ms.float32)
    with pytest.raises(ValueError, match="For 'AvgPool2D', 'divisor_override'"):
        P.AvgPool2D(2, divisor_override=-1)


def test_batch_norm_moving_variance_matches_mindspore():
    """Values printed by MindSpore 2.10 (BatchNorm2d(3, momentum=0.9), one training call)."""
    x = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2) ** 1.5
    bn = nn.BatchNorm2d(3, momentum=0.9).set_train()
    bn(Tensor(x))
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [67.68452, 108.206154, 147.3199],
                               rtol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [2.5992992, 4.320962, 6.4612894],
                               rtol=1e-5)
