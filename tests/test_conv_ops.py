"""Convolution and pooling primitives against naive numpy loops: Conv2D (stride, dilation,
group, 'valid' / 'same' / 'pad'), Conv2DBackpropInput / Conv2DTranspose / Conv2DBackpropFilter,
MaxPool / AvgPool, MaxPoolWithArgmaxV2 / AvgPool2D (padding, dilation, ceil_mode), their
gradient primitives; float64 finite-difference checks of every differentiable input, second
order through the gradient primitives, and inference errors. (The explicit-padding pools
behind the pooling layers' pad mode are tested in test_nn_layers_conv.py.)"""
import math

import numpy as np
import pytest
from gradcheck import check_grad
from helpers import noncontig, tensor
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.kernels.cpu import conv_cpp, conv_numpy
from mindlite.ops.operations import conv_ops as C
from mindlite.ops.operations import pool_ops as P

RNG = np.random.default_rng(0)
TOL = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-10}


# ---- naive references ----------------------------------------------------------------------
def same_pads(size, k, s, d):
    out = math.ceil(size / s)
    total = max(0, (out - 1) * s + d * (k - 1) + 1 - size)
    return total // 2, total - total // 2


def resolve_pads(shape, kernel, stride, dilation, pad_mode, pad):
    if pad_mode == "same":
        return same_pads(shape[2], kernel[0], stride[0], dilation[0]) + \
            same_pads(shape[3], kernel[1], stride[1], dilation[1])
    return pad if pad_mode == "pad" else (0, 0, 0, 0)


def conv_ref(x, w, stride=(1, 1), dilation=(1, 1), pads=(0, 0, 0, 0), group=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    t, b, l, r = pads
    xp = np.zeros((n, c, h + t + b, wd + l + r))
    xp[:, :, t:t + h, l:l + wd] = x
    eh, ew = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    oh, ow = (xp.shape[2] - eh) // stride[0] + 1, (xp.shape[3] - ew) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // group
    for q in range(o):
        g = q // og
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, i * stride[0]:i * stride[0] + eh:dilation[0],
                           j * stride[1]:j * stride[1] + ew:dilation[1]]
                out[:, q, i, j] = (patch * w[q]).sum(axis=(1, 2, 3))
    return out


def pool_ref(x, kernel, stride, pads, dilation=(1, 1), out_hw=None, mode="max",
             include_pad=False, divisor=None):
    """Window loop; pads (top, bottom, left, right); windows clipped to the input."""
    n, c, h, w = x.shape
    t, _, l, _ = pads
    oh, ow = out_hw
    out = np.zeros((n, c, oh, ow))
    idx = np.zeros((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            rows = [i * stride[0] - t + a * dilation[0] for a in range(kernel[0])]
            cols = [j * stride[1] - l + b * dilation[1] for b in range(kernel[1])]
            cells = [(r, q) for r in rows for q in cols if 0 <= r < h and 0 <= q < w]
            vals = np.stack([x[:, :, r, q] for r, q in cells], -1)
            if mode == "max":
                k = np.argmax(vals, -1)
                out[:, :, i, j] = np.take_along_axis(vals, k[..., None], -1)[..., 0]
                flat = np.array([r * w + q for r, q in cells])
                idx[:, :, i, j] = flat[k]
            else:
                if divisor:
                    cnt = divisor
                elif include_pad:
                    lo_r, lo_c = i * stride[0] - t, j * stride[1] - l
                    cnt = (min(lo_r + kernel[0], h + pads[1]) - lo_r) * \
                        (min(lo_c + kernel[1], w + pads[3]) - lo_c)
                else:
                    cnt = len(cells)
                out[:, :, i, j] = vals.sum(-1) / cnt
    return out, idx


# ---- Conv2D forward ------------------------------------------------------------------------
conv_cases = st.fixed_dictionaries({
    "n": st.integers(1, 2), "group": st.sampled_from([1, 2]), "cg": st.integers(1, 2),
    "og": st.integers(1, 2), "h": st.integers(1, 7), "w": st.integers(1, 7),
    "kh": st.integers(1, 3), "kw": st.integers(1, 3), "stride": st.tuples(
        st.integers(1, 3), st.integers(1, 3)), "dilation": st.tuples(st.integers(1, 2),
                                                                      st.integers(1, 2)),
    "pad_mode": st.sampled_from(["valid", "same", "pad", "SAME", "Pad"]),
    "pad": st.tuples(*[st.integers(0, 2)] * 4)})



@settings(max_examples=40)
@given(conv_cases)
def test_conv2d_matches_naive_loop(c):
    x = RNG.standard_normal((c["n"], c["cg"] * c["group"], c["h"], c["w"]))
    w = RNG.standard_normal((c["og"] * c["group"], c["cg"], c["kh"], c["kw"]))
    mode = c["pad_mode"].lower()
    pad = c["pad"] if mode == "pad" else 0
    prim = C.Conv2D(w.shape[0], (c["kh"], c["kw"]), pad_mode=c["pad_mode"], pad=pad,
                    stride=c["stride"], dilation=c["dilation"], group=c["group"])
    pads = resolve_pads(x.shape, (c["kh"], c["kw"]), c["stride"], c["dilation"], mode, c["pad"])
    eff = [c["dilation"][i] * ((c["kh"], c["kw"])[i] - 1) + 1 for i in range(2)]
    fits = x.shape[2] + pads[0] + pads[1] >= eff[0] and x.shape[3] + pads[2] + pads[3] >= eff[1]
    if not fits:
        with pytest.raises(ValueError, match="For 'Conv2D'.*'x'"):
            prim(Tensor(x), Tensor(w))
        return
    want = conv_ref(x, w, c["stride"], c["dilation"], pads, c["group"])
    got = prim(Tensor(x), Tensor(w))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-10)
    if mode == "same":
        assert got.shape[2:] == tuple(math.ceil(s / st_) for s, st_ in zip(x.shape[2:],
                                                                           c["stride"]))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_conv2d_dtypes_noncontiguous_and_empty_batch(dtype):
    x = RNG.standard_normal((2, 4, 6, 5)).astype(dtype)
    w = RNG.standard_normal((4, 2, 3, 3)).astype(dtype)
    prim = C.Conv2D(4, 3, pad_mode="same", stride=2, group=2)
    want = conv_ref(x.astype(np.float64), w.astype(np.float64), (2, 2), (1, 1),
                    resolve_pads(x.shape, (3, 3), (2, 2), (1, 1), "same", 0), 2)
    for xa, wa in ((x, w), (noncontig(x), noncontig(w))):
        got = prim(tensor(xa), tensor(wa))
        assert got.dtype == ms.common.dtype.from_numpy_dtype(np.dtype(dtype))
        np.testing.assert_allclose(got.asnumpy().astype(np.float64), want, rtol=TOL[dtype],
                                   atol=TOL[dtype] * 10)
    empty = prim(Tensor(x[:0]), Tensor(w))
    assert empty.shape == (0, 4, 3, 3)


def test_conv2d_attributes_are_normalised_as_mindspore():
    prim = C.Conv2D(6, 3, pad_mode="PAD", pad=1, stride=(1, 1, 2, 2), dilation=2)
    assert prim.attrs["kernel_size"] == (3, 3)
    assert prim.attrs["stride"] == (1, 1, 2, 2)
    assert prim.attrs["dilation"] == (1, 1, 2, 2)
    assert prim.attrs["pad"] == (1, 1, 1, 1)
    assert prim.attrs["pad_mode"] == "pad"
    assert C.Conv2DTranspose is not C.Conv2DBackpropInput
    assert issubclass(C.Conv2DTranspose, C.Conv2DBackpropInput)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"pad_mode": "full"}, ValueError, "For 'Conv2D', 'pad_mode' must be one of"),
    ({"pad_mode": 1}, TypeError, "For 'Conv2D', 'pad_mode' must be a str"),
    ({"pad": 1}, ValueError, "For 'Conv2D', 'pad' must be zero when 'pad_mode' is not 'pad'"),
    ({"pad_mode": "pad", "pad": (1, 2)}, ValueError, "For 'Conv2D', 'pad' must be"),
    ({"pad_mode": "pad", "pad": -1}, ValueError, "For 'Conv2D', 'pad' must be"),
    ({"stride": 0}, ValueError, "For 'Conv2D', 'stride' must be"),
    ({"stride": (2, 2, 2, 2)}, ValueError, "For 'Conv2D', 'stride'"),
    ({"stride": 1.5}, TypeError, "For 'Conv2D', 'stride' must be an int"),
    ({"dilation": (1, 0)}, ValueError, "For 'Conv2D', 'dilation'"),
    ({"group": 0}, ValueError, "For 'Conv2D', 'group'"),
    ({"group": 4}, ValueError, "For 'Conv2D', 'out_channel' must be divisible by 'group'"),
    ({"mode": 2}, ValueError, "For 'Conv2D', 'mode' must be 1"),
    ({"data_format": "NHWC"}, ValueError, "For 'Conv2D', the 'NHWC' format"),
    ({"data_format": "CHWN"}, ValueError, "For 'Conv2D', 'data_format'"),
])
def test_conv2d_attribute_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        C.Conv2D(6, 3, **kwargs)
    with pytest.raises(TypeError, match="For 'Conv2D', 'out_channel' must be an int"):
        C.Conv2D(6.0, 3)
    with pytest.raises(ValueError, match="For 'Conv2D', 'kernel_size'"):
        C.Conv2D(6, (3, 3, 3))


def test_conv2d_input_errors_name_op_and_argument():
    prim = C.Conv2D(6, 3, group=2)
    x = Tensor(np.zeros((1, 4, 5, 5), np.float32))
    w = Tensor(np.zeros((6, 2, 3, 3), np.float32))
    cases = [
        ((Tensor(np.zeros((4, 5, 5), np.float32)), w), ValueError, "'x' must be a 4-D"),
        ((x, Tensor(np.zeros((6, 2, 3), np.float32))), ValueError, "'weight' must be a 4-D"),
        ((Tensor(np.zeros((1, 6, 5, 5), np.float32)), w), ValueError, r"channels of 'x' \(6\)"),
        ((x, Tensor(np.zeros((5, 2, 3, 3), np.float32))), ValueError, "'out_channel' 6"),
        ((x, Tensor(np.zeros((6, 2, 2, 3), np.float32))), ValueError, "'kernel_size'"),
        ((Tensor(np.zeros((1, 4, 2, 5), np.float32)), w), ValueError, "does not fit"),
        ((x, Tensor(np.zeros((6, 2, 3, 3), np.float64))), TypeError, "'weight' should be same"),
        ((Tensor(np.zeros((1, 4, 5, 5), np.int32)), w), TypeError, "type of 'x'"),
        ((x, 3.0), ValueError, "'weight' must be a 4-D"),
    ]
    for args, exc, match in cases:
        with pytest.raises(exc, match="For 'Conv2D'.*" + match):
            prim(*args)


# ---- Conv2D gradients ----------------------------------------------------------------------
GRAD_CASES = [{}, {"pad_mode": "same", "stride": 2}, {"pad_mode": "pad", "pad": (1, 0, 2, 1),
                                                            "stride": (2, 1), "dilation": (1, 2)},
              {"pad_mode": "same", "group": 3, "dilation": 2}]


@pytest.mark.parametrize("kw", GRAD_CASES)
def test_conv2d_gradients(kw, policy):
    group = kw.get("group", 1)
    x = RNG.standard_normal((2, 3, 5, 5))
    w = RNG.standard_normal((3, 3 // group, 3, 2))
    conv = C.Conv2D(3, (3, 2), **kw)
    check_grad(lambda a, b: conv(a, b), x, w)
    dout = RNG.standard_normal(conv(Tensor(x), Tensor(w)).shape)
    bp_input = C.Conv2DBackpropInput(3, (3, 2), **kw)
    bp_filter = C.Conv2DBackpropFilter(3, (3, 2), **kw)
    # the gradient primitives are bilinear: their own bprops (second order) are checked too
    check_grad(lambda d, b: bp_input(d, b, x.shape), dout, w)
    check_grad(lambda d, a: bp_filter(d, a, w.shape), dout, x)
    # they are Conv2D's vector-Jacobian products: <dout, conv(x, w)> differentiated
    dx, dw = ops.GradOperation(get_all=True, sens_param=True)(conv)(
        Tensor(x), Tensor(w), Tensor(dout))
    np.testing.assert_allclose(dx.asnumpy(), bp_input(Tensor(dout), Tensor(w), x.shape).asnumpy())
    np.testing.assert_allclose(dw.asnumpy(),
                               bp_filter(Tensor(dout), Tensor(x), w.shape).asnumpy())


def test_conv2d_second_order_wrt_input():
    """d/dw of <v, d/dx <g, conv(x, w)>> by grad of grad, against finite differences."""
    x = RNG.standard_normal((1, 2, 4, 4))
    w = RNG.standard_normal((2, 2, 3, 3))
    g = Tensor(RNG.standard_normal((1, 2, 4, 4)))
    conv = C.Conv2D(2, 3, pad_mode="same")
    inner = ops.GradOperation(sens_param=True)(conv)

    def f(a, b):
        return inner(a, b, g)
    check_grad(f, x, w)


@settings(max_examples=30)
@given(conv_cases, st.sampled_from([np.float32, np.float64]))
def test_cpp_kernels_agree_with_numpy_reference(c, dtype):
    x = RNG.standard_normal((c["n"], c["cg"] * c["group"], c["h"] + 3, c["w"] + 3))
    w = RNG.standard_normal((c["og"] * c["group"], c["cg"], c["kh"], c["kw"]))
    x, w = x.astype(dtype), w.astype(dtype)
    stride, dilation = c["stride"], c["dilation"]
    if c["pad_mode"].lower() == "same":       # exercise the stride-1 im2col often
        stride, dilation = (1, 1), (1, 1)
    pads = c["pad"]
    eff = [dilation[i] * ((c["kh"], c["kw"])[i] - 1) + 1 for i in range(2)]
    oh = (x.shape[2] + pads[0] + pads[1] - eff[0]) // stride[0] + 1
    ow = (x.shape[3] + pads[2] + pads[3] - eff[1]) // stride[1] + 1
    if oh <= 0 or ow <= 0:
        return
    geo = (stride, dilation, pads, c["group"])
    dout = RNG.standard_normal((x.shape[0], w.shape[0], oh, ow)).astype(dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    for ref, fast, args, shape in (
            (conv_numpy.conv2d_numpy, conv_cpp.conv2d_cpp, (x, w), dout.shape),
            (conv_numpy.conv2d_backprop_filter_numpy, conv_cpp.conv2d_backprop_filter_cpp,
             (dout, x), w.shape),
            (conv_numpy.conv2d_backprop_input_numpy, conv_cpp.conv2d_backprop_input_cpp,
             (dout, w), x.shape)):
        a, b = np.empty(shape, dtype), np.empty(shape, dtype)
        ref(*args, a, *geo)
        fast(*(noncontig(v) for v in args), b, *geo)
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


def test_kernel_selection_prefers_cpp_for_float32_64():
    from mindlite.kernels import registry
    for op in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv2DTranspose"):
        assert registry.select_kernel(op, "CPU", ms.float32).provider == "cpp"
        assert registry.select_kernel(op, "CPU", ms.float16).provider == "numpy"


def test_conv2d_transpose_alias_and_backprop_errors():
    dout = Tensor(RNG.standard_normal((1, 4, 3, 3)))
    w = Tensor(RNG.standard_normal((4, 2, 3, 3)))
    a = C.Conv2DTranspose(4, 3)(dout, w, (1, 2, 5, 5))
    b = C.Conv2DBackpropInput(4, 3)(dout, w, (1, 2, 5, 5))
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    with pytest.raises(ValueError, match="For 'Conv2DBackpropInput', 'dout' must have the"):
        C.Conv2DBackpropInput(4, 3)(dout, w, (1, 2, 6, 6))
    with pytest.raises(ValueError, match="For 'Conv2DBackpropInput', 'input_size' must be"):
        C.Conv2DBackpropInput(4, 3)(dout, w, (1, 2, 5))
    with pytest.raises(ValueError, match="For 'Conv2DBackpropFilter', 'filter_size' must be"):
        C.Conv2DBackpropFilter(4, 3)(dout, Tensor(np.zeros((1, 2, 5, 5))), (4, 3, 3, 3))
    # pad_list (MindSpore's explicit padding of the gradient ops) overrides pad in 'pad' mode
    p = C.Conv2DBackpropInput(4, 3, pad_mode="pad", pad_list=(1, 1, 1, 1))
    assert p(dout, w, (1, 2, 3, 3)).shape == (1, 2, 3, 3)


# ---- pooling -------------------------------------------------------------------------------
pool_cases = st.fixed_dictionaries({
    "h": st.integers(1, 7), "w": st.integers(1, 7), "k": st.tuples(st.integers(1, 3),
                                                                   st.integers(1, 3)),
    "s": st.tuples(st.integers(1, 3), st.integers(1, 3)),
    "mode": st.sampled_from(["valid", "same", "VALID", "Same"]), "ties": st.booleans()})


@settings(max_examples=40)
@given(pool_cases)
def test_max_avg_pool_match_naive_loop(c):
    x = RNG.standard_normal((2, 3, c["h"], c["w"]))
    if c["ties"]:
        x = np.round(x)
    mode = c["mode"].lower()
    k, s = c["k"], c["s"]
    if mode == "valid":
        out_hw = (math.ceil((c["h"] - k[0] + 1) / s[0]), math.ceil((c["w"] - k[1] + 1) / s[1]))
        pads = (0, 0, 0, 0)
    else:
        out_hw = (math.ceil(c["h"] / s[0]), math.ceil(c["w"] / s[1]))
        pads = same_pads(c["h"], k[0], s[0], 1) + same_pads(c["w"], k[1], s[1], 1)
    if min(out_hw) <= 0:
        with pytest.raises(ValueError, match="For 'MaxPool', the kernel size"):
            P.MaxPool(k, s, c["mode"])(Tensor(x))
        return
    want_max, want_idx = pool_ref(x, k, s, pads, out_hw=out_hw)
    want_avg, _ = pool_ref(x, k, s, pads, out_hw=out_hw, mode="avg")
    mp, ap = P.MaxPool(k, s, c["mode"]), P.AvgPool(k, s, c["mode"])
    y = mp(Tensor(x))
    np.testing.assert_array_equal(y.asnumpy(), want_max)
    np.testing.assert_allclose(ap(Tensor(x)).asnumpy(), want_avg, rtol=1e-12, atol=1e-12)
    # MaxPoolGrad: each output's gradient goes to the first maximum of its window
    g = RNG.standard_normal(y.shape)
    dx = P.MaxPoolGrad(k, s, c["mode"])(Tensor(x), y, Tensor(g)).asnumpy()
    want_dx = np.zeros(x.shape)
    for n in range(2):
        for ch in range(3):
            np.add.at(want_dx[n, ch].reshape(-1), want_idx[n, ch].ravel(), g[n, ch].ravel())
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["valid", "same"])
def test_pool_gradients_and_second_order(mode):
    x = RNG.standard_normal((2, 2, 5, 6))      # distinct values: away from max kinks
    for fwd, bwd, bwd2 in ((P.MaxPool, P.MaxPoolGrad, P.MaxPoolGradGrad),
                           (P.AvgPool, P.AvgPoolGrad, None)):
        prim = fwd((2, 3), (2, 1), mode)
        check_grad(prim, x)
        y = prim(Tensor(x))
        g = RNG.standard_normal(y.shape)
        grad_prim = bwd((2, 3), (2, 1), mode)
        check_grad(lambda d, p=grad_prim, y=y: p(Tensor(x), y, d), g)
        if bwd2 is not None:
            gg = bwd2((2, 3), (2, 1), mode)
            check_grad(lambda d, p=gg, y=y: p(Tensor(x), y, d), RNG.standard_normal(x.shape))


def test_max_pool_nan_propagates_and_float16():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = np.nan
    y = P.MaxPool(2, 2)(Tensor(x)).asnumpy()
    assert np.isnan(y[0, 0, 0, 0]) and y[0, 0, 1, 1] == 15
    dx = P.MaxPoolGrad(2, 2)(Tensor(x), Tensor(y), Tensor(np.ones_like(y))).asnumpy()
    assert dx[0, 0, 0, 1] == 1 and dx.sum() == 4
    h = P.AvgPool(2, 2)(Tensor(np.ones((1, 2, 4, 4), np.float16)))
    assert h.dtype == ms.float16 and (h.asnumpy() == 1).all()


def test_pool_errors_name_op_and_argument():
    x = Tensor(np.zeros((1, 2, 4, 4), np.float32))
    with pytest.raises(ValueError, match="For 'MaxPool', 'pad_mode' must be one of"):
        P.MaxPool(2, 2, "pad")
    with pytest.raises(ValueError, match="For 'AvgPool', 'kernel_size'"):
        P.AvgPool((2, 2, 2), 2)
    with pytest.raises(ValueError, match="For 'MaxPool', 'strides'"):
        P.MaxPool(2, 0)
    with pytest.raises(ValueError, match="For 'MaxPool', the 'NHWC' format"):
        P.MaxPool(2, 2, data_format="NHWC")
    with pytest.raises(ValueError, match="For 'MaxPool', 'x' must be a 4-D"):
        P.MaxPool(2, 2)(Tensor(np.zeros((2, 4, 4), np.float32)))
    with pytest.raises(TypeError, match="For 'AvgPool', the type of 'x'"):
        P.AvgPool(2, 2)(Tensor(np.zeros((1, 1, 4, 4), np.int32)))
    with pytest.raises(ValueError, match="For 'AvgPool', the kernel size"):
        P.AvgPool(5, 1)(x)
    y = P.MaxPool(2, 2)(x)
    with pytest.raises(ValueError, match="For 'MaxPoolGrad', 'grad' must have the shape"):
        P.MaxPoolGrad(2, 2)(x, y, x)
    assert P.MaxPool(2, 2).attrs["kernel_size"] == (1, 1, 2, 2)
    assert P.MaxPool(2, 2, "same").attrs["pad_mode"] == "SAME"


def test_empty_batch_through_every_pool_and_gradient():
    x = Tensor(np.zeros((0, 3, 5, 5), np.float32))
    y = P.MaxPool(2, 2)(x)
    assert y.shape == (0, 3, 2, 2)
    assert P.MaxPoolGrad(2, 2)(x, y, y).shape == (0, 3, 5, 5)
    assert P.AvgPoolGrad(2, 2)(x, y, y).shape == (0, 3, 5, 5)
    assert P.AvgPool(2, 2, "same")(x).shape == (0, 3, 3, 3)
    out, idx = P.MaxPoolWithArgmaxV2(3, 2, 1)(x)
    assert out.shape == idx.shape == (0, 3, 3, 3)
    assert P.AvgPool2D(3, 2, 1, True)(x).shape == (0, 3, 3, 3)
    dw = C.Conv2DBackpropFilter(4, 3)(Tensor(np.zeros((0, 4, 3, 3), np.float32)), x,
                                      (4, 3, 3, 3))
    np.testing.assert_array_equal(dw.asnumpy(), 0)
