"""The C++ kernels of MaxPoolWithArgmaxV2 / MaxPoolGradWithArgmaxV2 / MaxPoolGradGradWithArgmax
(kernels/cpu/pool_cpp.py -> mindlite._C.max_pool_argmax*) against the numpy kernels of
pool_numpy.py (the oracle), bit for bit: hypothesis over shapes (0-size, 1 x 1, kernel larger
than the input with padding), strides, dilations, ceil_mode, NaN / inf / ties, int32 / int64
argmax, non-contiguous inputs and outputs; the registry's choice; float64 finite-difference
gradients through the op; errors for indices outside the plane and for bad arguments.
"""
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, _C
from mindlite.kernels.cpu import pool_cpp, pool_numpy
from mindlite.kernels.registry import select_kernel
from mindlite.ops import operations as P
from mindlite.ops.operations import pool_ops as G
from tests.gradcheck import check_grad


def geometry(h, w, k, s, p, d, ceil):
    """(oh, ow) of pool_ops._explicit_geometry, or None when the output would be empty."""
    out = []
    for size, kk, ss, pp, dd in zip((h, w), k, s, p, d):
        span = size + 2 * pp - dd * (kk - 1) - 1
        o = (span + (ss - 1 if ceil else 0)) // ss + 1
        if ceil and o > 0 and (o - 1) * ss >= size + pp:
            o -= 1
        out.append(o)
    return tuple(out) if min(out) > 0 else None


@st.composite
def cases(draw):
    k = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    p = (draw(st.integers(0, k[0] // 2)), draw(st.integers(0, k[1] // 2)))
    d = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    ceil = draw(st.booleans())
    h, w = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    n, c = draw(st.integers(0, 2)), draw(st.integers(0, 3))
    o = geometry(h, w, k, s, p, d, ceil)
    if o is None:
        k, s, p, d, ceil = (1, 1), (1, 1), (0, 0), (1, 1), False
        o = (h, w)
    return dict(shape=(n, c, h, w), out=(n, c) + o, kernel=k, stride=s,
                pads=(p[0], p[0], p[1], p[1]), dilation=d,
                dtype=draw(st.sampled_from([np.float32, np.float64])),
                itype=draw(st.sampled_from([np.int32, np.int64])),
                fill=draw(st.sampled_from(["normal", "ties", "special"])),
                seed=draw(st.integers(0, 2**31)), strided=draw(st.booleans()))


def data(cs):
    rng = np.random.default_rng(cs["seed"])
    shape = cs["shape"]
    if cs["fill"] == "ties":              # ReLU-like: many equal zeros, signed zeros
        x = np.maximum(rng.integers(-2, 3, shape), 0).astype(cs["dtype"])
        x[rng.random(shape) < 0.2] = -0.0
    else:
        x = rng.standard_normal(shape).astype(cs["dtype"])
        if cs["fill"] == "special":
            pick = rng.random(shape)
            x[pick < 0.1] = np.nan
            x[(pick >= 0.1) & (pick < 0.2)] = -np.inf
            x[(pick >= 0.2) & (pick < 0.25)] = np.inf
    if cs["strided"]:                     # a non-contiguous view of the same values
        big = np.zeros(shape[:3] + (2 * shape[3],), dtype=cs["dtype"])
        big[..., ::2] = x
        x = big[..., ::2]
    return x


def geo(cs):
    return cs["kernel"], cs["stride"], cs["pads"], cs["dilation"]


def forward(fn, x, cs, strided_out=False):
    if strided_out:
        ob = np.full(cs["out"][:3] + (2 * cs["out"][3],), 7, dtype=cs["dtype"])
        ab = np.full(ob.shape, 7, dtype=cs["itype"])
        out, arg = ob[..., ::2], ab[..., ::2]
    else:
        out = np.full(cs["out"], 7, dtype=cs["dtype"])
        arg = np.full(cs["out"], 7, dtype=cs["itype"])
    fn(x, out, arg, *geo(cs))
    return out, arg


def same_bits(a, b):
    """Equal values, NaN where NaN, the same signs of zero."""
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


@settings(max_examples=150, deadline=None)
@given(cases())
def test_forward_matches_numpy(cs):
    x = data(cs)
    o_ref, a_ref = forward(pool_numpy.max_pool_with_argmax_v2_numpy, x, cs)
    o, a = forward(pool_cpp.max_pool_with_argmax_v2_cpp, x, cs, strided_out=cs["seed"] % 2 == 1)
    same_bits(o, o_ref)
    np.testing.assert_array_equal(a, a_ref)


@settings(max_examples=120, deadline=None)
@given(cases())
def test_gradients_match_numpy(cs):
    x = data(cs)
    _, arg = forward(pool_numpy.max_pool_with_argmax_v2_numpy, x, cs)
    rng = np.random.default_rng(cs["seed"] + 1)
    g = rng.standard_normal(cs["out"]).astype(cs["dtype"])
    if cs["fill"] == "special" and g.size:
        g.flat[0] = np.inf
    dx_ref, dx = np.empty(cs["shape"], cs["dtype"]), np.full(cs["shape"], 7, cs["dtype"])
    pool_numpy.max_pool_grad_with_argmax_v2_numpy(x, g, arg, dx_ref, *geo(cs))
    pool_cpp.max_pool_grad_with_argmax_v2_cpp(x, g, arg, dx, *geo(cs))
    same_bits(dx, dx_ref)
    gx = rng.standard_normal(cs["shape"]).astype(cs["dtype"])
    y_ref, y = np.empty(cs["out"], cs["dtype"]), np.full(cs["out"], 7, cs["dtype"])
    pool_numpy.max_pool_grad_grad_with_argmax_numpy(x, gx, arg, y_ref, *geo(cs))
    pool_cpp.max_pool_grad_grad_with_argmax_cpp(x, gx[..., ::-1][..., ::-1], arg, y, *geo(cs))
    same_bits(y, y_ref)


def test_float32_gradient_sums_in_float64_like_bincount():
    # three windows pick the same element: 1 + 1e-8 + 1e-8 rounds differently in float32
    x = np.zeros((1, 1, 1, 5), np.float32)
    x[0, 0, 0, 2] = 1
    arg = np.array([[[[2, 2, 2]]]], np.int64)
    g = np.array([[[[1.0, 3e-8, 3e-8]]]], np.float32)
    ref, dx = np.empty_like(x), np.empty_like(x)
    pool_numpy.max_pool_grad_with_argmax_v2_numpy(x, g, arg, ref, (1, 3), (1, 1), (0,) * 4,
                                                  (1, 1))
    pool_cpp.max_pool_grad_with_argmax_v2_cpp(x, g, arg, dx, (1, 3), (1, 1), (0,) * 4, (1, 1))
    assert dx[0, 0, 0, 2] == ref[0, 0, 0, 2] == np.float32(1 + 6e-8)


def test_large_batch_splits_over_threads_with_the_same_bits():
    rng = np.random.default_rng(3)
    x = np.maximum(rng.standard_normal((16, 64, 16, 16)), 0).astype(np.float32)
    cs = dict(out=(16, 64, 8, 8), dtype=np.float32, itype=np.int64)
    geo_ = ((3, 3), (2, 2), (1, 1, 1, 1), (1, 1))
    o_ref, a_ref = np.empty(cs["out"], np.float32), np.empty(cs["out"], np.int64)
    pool_numpy.max_pool_with_argmax_v2_numpy(x, o_ref, a_ref, *geo_)
    g = rng.standard_normal(cs["out"]).astype(np.float32)
    dx_ref = np.empty_like(x)
    pool_numpy.max_pool_grad_with_argmax_v2_numpy(x, g, a_ref, dx_ref, *geo_)
    before = _C.get_num_threads()
    try:
        for k in (1, 2, 4):
            _C.set_num_threads(k)
            o, a = np.empty_like(o_ref), np.empty_like(a_ref)
            pool_cpp.max_pool_with_argmax_v2_cpp(x, o, a, *geo_)
            dx = np.empty_like(x)
            pool_cpp.max_pool_grad_with_argmax_v2_cpp(x, g, a, dx, *geo_)
            same_bits(o, o_ref)
            np.testing.assert_array_equal(a, a_ref)
            same_bits(dx, dx_ref)
    finally:
        _C.set_num_threads(before)


def test_registry_picks_the_cpp_kernels_for_floats_only():
    for op in ("MaxPoolWithArgmaxV2", "MaxPoolGradWithArgmaxV2", "MaxPoolGradGradWithArgmax"):
        assert select_kernel(op, "CPU", ms.float32).provider == "cpp"
        assert select_kernel(op, "CPU", ms.float64).provider == "cpp"
        assert select_kernel(op, "CPU", ms.float16).provider == "numpy"


@pytest.mark.parametrize("kwargs", [dict(kernel_size=3, stride=2, padding=1),
                                    dict(kernel_size=2, stride=1, padding=1, dilation=2,
                                         ceil_mode=True)])
def test_float64_finite_difference_gradient(kwargs):
    x = np.random.default_rng(0).permutation(2 * 2 * 5 * 5).reshape(2, 2, 5, 5) / 7.0
    check_grad(lambda t: ms.ops.max_pool2d(t, **kwargs), x)


def test_second_order_gradient_through_the_op():
    x = np.random.default_rng(1).permutation(50).reshape(1, 2, 5, 5).astype(np.float64)
    prim = P.MaxPoolWithArgmaxV2(3, 2, 1)
    fn = ms.ops.grad(lambda t: (prim(t)[0] ** 2).sum())
    check_grad(fn, x / 10.0)


@pytest.mark.parametrize("bad", [-1, 25])
def test_index_outside_the_plane_raises_for_both_providers(bad):
    x = np.zeros((1, 2, 5, 5), np.float32)
    arg = np.zeros((1, 2, 3, 3), np.int64)
    arg[0, 1, 2, 1] = bad
    g = np.ones((1, 2, 3, 3), np.float32)
    geo_ = ((3, 3), (2, 2), (1, 1, 1, 1), (1, 1))
    for fn in (pool_cpp.max_pool_grad_with_argmax_v2_cpp,
               pool_numpy.max_pool_grad_with_argmax_v2_numpy):
        with pytest.raises(ValueError, match=r"For 'MaxPoolGradWithArgmaxV2', 'argmax' must hold "
                                             r"flat indices .*\[0, 25\).*got " + str(bad)):
            fn(x, g, arg, np.empty_like(x), *geo_)
    for fn in (pool_cpp.max_pool_grad_grad_with_argmax_cpp,
               pool_numpy.max_pool_grad_grad_with_argmax_numpy):
        with pytest.raises(ValueError, match=r"For 'MaxPoolGradGradWithArgmax', 'argmax'"):
            fn(x, x, arg, np.empty_like(g), *geo_)
    with pytest.raises(ValueError, match="MaxPoolGradWithArgmaxV2"):
        G.MaxPoolGradWithArgmaxV2(3, 2, 1)(Tensor(x), Tensor(g), Tensor(arg))


def test_bad_arguments_of_the_c_functions():
    x = np.zeros((1, 1, 4, 4), np.float32)
    out, arg = np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 2, 2), np.int64)
    with pytest.raises(TypeError, match="'argmax' dtype must be int32 or int64"):
        _C.max_pool_argmax(x, out, arg.astype(np.float32), 2, 2, 2, 2, 1, 1, 0, 0)
    with pytest.raises(ValueError, match="'argmax' shape must be"):
        _C.max_pool_argmax(x, out, arg[..., :1], 2, 2, 2, 2, 1, 1, 0, 0)
    with pytest.raises(ValueError, match="'argmax' must be writeable"):
        ro = arg.copy()
        ro.flags.writeable = False
        _C.max_pool_argmax(x, out, ro, 2, 2, 2, 2, 1, 1, 0, 0)
    with pytest.raises(ValueError, match="'kh' must be an int in"):
        _C.max_pool_argmax(x, out, arg, 0, 2, 2, 2, 1, 1, 0, 0)
    with pytest.raises(ValueError, match="windows reach too far"):
        _C.max_pool_argmax(x, out, arg, 2**40, 2, 1, 2, 2**40, 1, 0, 0)
    with pytest.raises(TypeError, match="expected 3 arguments"):
        _C.max_pool_grad_argmax(out, arg)
    with pytest.raises(ValueError, match="'dx' must be C-contiguous"):
        _C.max_pool_grad_argmax(out, arg, np.zeros((1, 1, 4, 8), np.float32)[..., ::2])


def test_four_threads_calling_at_once_get_the_serial_results():
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal((4, 8, 12, 12)).astype(np.float32) for _ in range(4)]
    prim = P.MaxPoolWithArgmaxV2(3, 2, 1)
    want = [tuple(t.asnumpy() for t in prim(Tensor(x))) for x in xs]
    got = [None] * 4

    def run(i):
        for _ in range(20):
            got[i] = tuple(t.asnumpy() for t in prim(Tensor(xs[i])))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (o, a), (wo, wa) in zip(got, want):
        np.testing.assert_array_equal(o, wo)
        np.testing.assert_array_equal(a, wa)


@pytest.mark.parametrize("shape, kernel, stride, pad, dilation, ceil", [
    ((1, 1, 2049, 2100), (3, 3), (2, 2), (1, 1), (1, 1), False),   # > 4M: the clipped loops
    ((1, 2, 2100, 2049), (2, 3), (1, 2), (1, 1), (2, 1), True),
    ((2, 1, 3, 5000), (1, 2), (1, 1999), (0, 1), (1, 700), True),   # a long stride, dilation
])
def test_large_planes_and_long_strides_match_numpy(shape, kernel, stride, pad, dilation, ceil):
    o = geometry(shape[2], shape[3], kernel, stride, pad, dilation, ceil)
    cs = dict(out=shape[:2] + o, dtype=np.float32, itype=np.int32)
    rng = np.random.default_rng(7)
    x = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)
    x[rng.random(shape) < 0.01] = np.nan
    geo_ = (kernel, stride, (pad[0], pad[0], pad[1], pad[1]), dilation)
    o_ref, a_ref = np.empty(cs["out"], np.float32), np.empty(cs["out"], np.int32)
    pool_numpy.max_pool_with_argmax_v2_numpy(x, o_ref, a_ref, *geo_)
    o, a = np.empty_like(o_ref), np.empty_like(a_ref)
    pool_cpp.max_pool_with_argmax_v2_cpp(x, o, a, *geo_)
    same_bits(o, o_ref)
    np.testing.assert_array_equal(a, a_ref)
