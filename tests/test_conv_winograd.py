"""Winograd F(2x2, 3x3) / F(4x4, 3x3) (csrc/kernels/conv_winograd*.cc): 3 x 3 stride-1
convolutions and their stride-1 input gradients against the float64 reference within the
documented bounds (docs/conv_engine.md: F(2x2) 32, F(4x4) 64 eps times the largest sum of the
terms' magnitudes of an output of the same m x m tile: the transforms mix a tile's inputs, so
an output whose own terms are small, next to padding, carries its neighbours' rounding), any
plane, padding and channel count, the fused epilogue, the same bits on 1, 2
and 4 threads, the selection rule shared by every path, and the transformed-weight cache
(invalidated when a weight changes in place, bounded, safe under 4 threads)."""
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, _C, ops
from mindlite.kernels.cpu import conv_numpy as ref

# eps x sum |terms|, measured up to 22 / 35 / 6 (docs/conv_engine.md); F(2x4) (mode 24: tiles
# of 2 rows x 4 columns) mixes F(2)'s and F(4)'s transforms and keeps F(4x4)'s bound
BOUND = {2: 32, 4: 64, 24: 64}
TILE = {2: (2, 2), 4: (4, 4), 24: (2, 4)}


pytestmark = pytest.mark.usefixtures("conv_engine_settings_restored")     # conftest.py


def _conv(fn, a, w, out_shape, pads, out=None):
    out = np.full(out_shape, 7, a.dtype) if out is None else out
    fn(a, w, out, (1, 1), (1, 1), pads, 1)
    return out


def _tile_max(v, mode):
    """Each element replaced by the largest of its my x mx output tile (tiles from (0, 0))."""
    my, mx = TILE[mode]
    n, c, h, w = v.shape
    hp, wp = -(-h // my) * my, -(-w // mx) * mx
    p = np.zeros((n, c, hp, wp), v.dtype)
    p[:, :, :h, :w] = v
    t = p.reshape(n, c, hp // my, my, wp // mx, mx).max(axis=(3, 5), keepdims=True)
    return np.broadcast_to(t, (n, c, hp // my, my, wp // mx, mx)).reshape(
        n, c, hp, wp)[:, :, :h, :w]


def _check(fn, reffn, a, w, shape, pads, mode):
    got = _conv(fn, a, w, shape, pads)
    a64, w64 = a.astype(np.float64), w.astype(np.float64)
    want = _conv(reffn, a64, w64, shape, pads)
    bound = _tile_max(_conv(reffn, np.abs(a64), np.abs(w64), shape, pads), mode)
    np.testing.assert_array_less(np.abs(got - want),
                                 BOUND[mode] * np.finfo(a.dtype).eps * bound + 1e-300)
    return got


@settings(max_examples=30, deadline=None)
@given(mode=st.sampled_from([2, 4, 24]), n=st.integers(0, 3), c=st.integers(8, 40),
       o=st.integers(8, 40), h=st.integers(1, 15), w=st.integers(1, 15),
       pads=st.tuples(*[st.integers(0, 2)] * 4),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**31))
def test_matches_reference(mode, n, c, o, h, w, pads, dtype, seed):
    _C.conv_winograd(mode)
    _C.conv_winograd_cache(None)
    rng = np.random.default_rng(seed)
    oh, ow = h + pads[0] + pads[1] - 2, w + pads[2] + pads[3] - 2
    if oh < 1 or ow < 1:
        return
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((o, c, 3, 3)).astype(dtype)
    y = _check(_C.conv_forward, ref.conv2d_numpy, x, wt, (n, o, oh, ow), pads, mode)
    d = rng.standard_normal(y.shape).astype(dtype)
    _check(_C.conv_backprop_input, ref.conv2d_backprop_input_numpy, d, wt, x.shape, pads, mode)


@pytest.mark.parametrize("shape", [(1, 64, 56), (1, 128, 28), (1, 256, 14), (1, 512, 7),
                                   (4, 64, 32), (16, 256, 8)])
def test_resnet18_layers_within_bound(shape):
    """ResNet18's 3 x 3 stride-1 layers at 224 and at a 32 x 32 training step, on the rule
    (F(2x4) for the 512-channel 7 x 7 plane of one sample with AVX-512, else F(4x4))."""
    n, c, h = shape
    wide = _C.kernel_isa() == "avx512"
    mode = 24 if wide and shape == (1, 512, 7) else 4
    _C.conv_winograd(mode)
    rng = np.random.default_rng(c)
    x = rng.standard_normal((n, c, h, h)).astype(np.float32)
    w = (rng.standard_normal((c, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    got = _check(_C.conv_forward, ref.conv2d_numpy, x, w, x.shape, (1,) * 4, mode)
    _C.conv_winograd(1)
    if wide or n * -(-h // 4) ** 2 >= 16:                         # the rule takes it
        np.testing.assert_array_equal(_conv(_C.conv_forward, x, w, x.shape, (1,) * 4), got)


@pytest.mark.parametrize("act", range(6))
def test_fused_epilogue_and_threads(act):
    """act(conv + bias + residual) in the output transform: the unfused Winograd result with
    the epilogue applied after it, bit for bit (ReLU / ReLU6 / Clip) or to rounding (HSwish,
    SiLU); the same bits on 1, 2 and 4 threads, many blocks or one (the GEMMs split)."""
    rng = np.random.default_rng(act)
    for mode, shape in ((4, (2, 32, 30, 21)), (4, (1, 40, 7, 7)), (24, (1, 40, 9, 11))):
        _C.conv_winograd(mode)
        x = rng.standard_normal(shape).astype(np.float32)
        w = rng.standard_normal((24, shape[1], 3, 3)).astype(np.float32)
        b = rng.standard_normal(24).astype(np.float32)
        r = rng.standard_normal((shape[0], 24) + shape[2:]).astype(np.float32) * 4
        plain = _conv(_C.conv_forward, x, w, r.shape, (1,) * 4)
        v = (plain + b.reshape(-1, 1, 1)) + r
        want = {0: v, 1: np.maximum(v, 0), 2: np.clip(v, 0, 6), 5: np.clip(v, 0, 6),
                3: v * np.clip(v + 3, 0, 6) / 6, 4: v / (1 + np.exp(-v))}[act]
        runs = []
        for threads in (1, 2, 4):
            _C.set_num_threads(threads)
            got = np.empty_like(r)
            _C.conv_forward_fused(x, w, b, r, got, (1, 1), (1, 1), (1, 1, 1, 1), 1, act)
            runs.append(got)
        _C.set_num_threads(0)
        np.testing.assert_array_equal(runs[0], runs[1])
        np.testing.assert_array_equal(runs[0], runs[2])
        if act in (3, 4):
            np.testing.assert_allclose(runs[0], want, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(runs[0], want)


def test_selection_rule():
    """Mode 1 (the default) runs F(4x4) exactly where the rule says (16+ channels, planes of
    7 x 7 and more; without AVX-512 at least 16 tiles), F(2x4) where F(4x4) would have at most
    4 tiles of 256 x 256 channels or more (AVX-512), and the direct engine elsewhere; mode 0
    never uses Winograd."""
    rng = np.random.default_rng(2)
    wide = _C.kernel_isa() == "avx512"
    w4 = 24 if wide else False
    cases = (((4, 16, 7, 7), 16, 4), ((2, 64, 32, 32), 64, 4), ((1, 24, 9, 30), 17, 4),
             ((1, 64, 7, 7), 64, 4 if wide else False),   # 4 tiles: AVX-512 only
             ((1, 256, 8, 8), 256, w4), ((1, 384, 7, 7), 512, w4),   # F(2x4)
             ((1, 255, 7, 7), 256, 4 if wide else False),  # below 256 x 256 channels
             ((2, 256, 7, 7), 256, 4 if wide else False),  # 8 tiles
             ((1, 16, 6, 6), 16, False),                  # plane below 7 x 7
             ((16, 512, 4, 4), 512, False),                # a training step's 4 x 4 plane
             ((1, 8, 32, 32), 64, False),                  # 8 input channels
             ((1, 64, 32, 32), 15, False),                 # 15 output channels
             ((1, 1040, 7, 7), 1024, False))               # over 1024 x 1024 channels
    for shape, k, winograd in cases:
        x = rng.standard_normal(shape).astype(np.float32)
        w = rng.standard_normal((k, shape[1], 3, 3)).astype(np.float32)
        out = (shape[0], k) + shape[2:]
        got = {}
        for mode in (0, 1, 4, 24) if winograd else (0, 1):
            _C.conv_winograd(mode)
            got[mode] = _conv(_C.conv_forward, x, w, out, (1,) * 4)
        np.testing.assert_array_equal(got[1], got[winograd] if winograd else got[0])
        assert bool(winograd) != np.array_equal(got[1], got[0]), shape
        if winograd:
            assert not np.array_equal(got[4], got[24]), shape
    with pytest.raises(ValueError, match="conv_winograd"):
        _C.conv_winograd(3)
    with pytest.raises(ValueError, match="conv_winograd"):
        _C.conv_winograd(True)


def test_eager_jit_and_grad_agree():
    """ops.conv2d in eager and under @jit select the same kernel (the same bits); the input
    gradient (Conv2DBackpropInput on Winograd) matches float64 central differences along
    random directions (the convolution is linear in x)."""
    _C.conv_winograd(1)
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((1, 32, 24, 24)))
    w = Tensor(rng.standard_normal((32, 32, 3, 3)))

    def f(a, b):
        return ops.conv2d(a, b, pad_mode="pad", padding=1)
    eager = f(x, w).asnumpy()
    np.testing.assert_array_equal(ms.jit(f)(x, w).asnumpy(), eager)
    _C.conv_winograd(0)
    assert not np.array_equal(f(x, w).asnumpy(), eager)
    _C.conv_winograd(1)
    sens = rng.standard_normal(eager.shape)
    dx = ms.grad(lambda a: (f(a, w) * Tensor(sens)).sum())(x).asnumpy()
    _C.conv_winograd(0)
    assert not np.array_equal(ms.grad(lambda a: (f(a, w) * Tensor(sens)).sum())(x).asnumpy(),
                              dx)                   # the gradient ran on Winograd too
    _C.conv_winograd(1)
    for seed in range(3):
        v = np.random.default_rng(seed).standard_normal(x.shape)
        eps = 1e-3
        up = (f(Tensor(x.asnumpy() + eps * v), w).asnumpy() * sens).sum()
        down = (f(Tensor(x.asnumpy() - eps * v), w).asnumpy() * sens).sum()
        np.testing.assert_allclose((up - down) / (2 * eps), (dx * v).sum(), rtol=1e-9)


def test_cache_invalidated_in_place():
    """A weight changed in place (an optimizer step) is transformed again; an unchanged one is
    a hit; a new buffer of other contents at any address gives its own result."""
    _C.conv_winograd(4)
    _C.conv_winograd_cache(None)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 32, 12, 12)).astype(np.float32)
    w = rng.standard_normal((32, 32, 3, 3)).astype(np.float32)
    first = _conv(_C.conv_forward, x, w, x.shape, (1,) * 4)
    np.testing.assert_array_equal(_conv(_C.conv_forward, x, w, x.shape, (1,) * 4), first)
    entries, _, _, hits, misses = _C.conv_winograd_cache()
    assert (entries, hits, misses) == (1, 1, 1)
    for idx in ((0, 0, 0, 0), (31, 31, 2, 2), (17, 5, 1, 2)):
        w[idx] += 1.0                               # one element, in place
        misses = _C.conv_winograd_cache()[4]
        got = _conv(_C.conv_forward, x, w, x.shape, (1,) * 4)
        assert _C.conv_winograd_cache()[4] == misses + 1
        _C.conv_winograd_cache(0)                   # uncached: the transform of this w
        fresh = _conv(_C.conv_forward, x, w, x.shape, (1,) * 4)
        _C.conv_winograd_cache(1 << 28)
        np.testing.assert_array_equal(got, fresh)
        _check(_C.conv_forward, ref.conv2d_numpy, x, w, x.shape, (1,) * 4, 4)
    view = w.reshape(16, 64, 3, 3)                  # same buffer, other geometry
    _check(_C.conv_forward, ref.conv2d_numpy, x.reshape(1, 64, 6, 12), view, (1, 16, 6, 12),
           (1,) * 4, 4)


def test_cache_bounded():
    _C.conv_winograd(4)
    _C.conv_winograd_cache(None)
    was = _C.conv_winograd_cache(1 << 20)[2]
    try:
        rng = np.random.default_rng(5)
        x = rng.standard_normal((1, 64, 8, 8)).astype(np.float32)
        keep = [rng.standard_normal((64, 64, 3, 3)).astype(np.float32) for _ in range(8)]
        for w in keep:
            _conv(_C.conv_forward, x, w, x.shape, (1,) * 4)
            entries, size, limit, _, _ = _C.conv_winograd_cache()
            assert size <= limit == 1 << 20 and entries >= 1
        assert _C.conv_winograd_cache()[0] < 8      # 64 x 64: ~740 KiB each, evicted
        _C.conv_winograd_cache(1 << 30)
        small = [rng.standard_normal((16, 16, 3, 3)).astype(np.float32) for _ in range(70)]
        xs = x[:, :16]
        for w in small:
            _conv(_C.conv_forward, np.ascontiguousarray(xs), w, (1, 16, 8, 8), (1,) * 4)
        assert _C.conv_winograd_cache()[0] <= 64    # entries bounded too
        _C.conv_winograd_cache(0)
        assert _C.conv_winograd_cache()[:2] == (0, 0)
    finally:
        _C.conv_winograd_cache(was)
    with pytest.raises(ValueError, match="conv_winograd_cache"):
        _C.conv_winograd_cache(-1)


def test_cache_threads():
    """4 threads convolving with shared and own weights, one of them changing its weights in
    place every call and another shrinking / clearing the cache: every result is the
    uncached one."""
    _C.conv_winograd(4)
    _C.conv_winograd_cache(None)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 32, 9, 9)).astype(np.float32)
    shared = rng.standard_normal((32, 32, 3, 3)).astype(np.float32)
    own = [rng.standard_normal((32, 32, 3, 3)).astype(np.float32) for _ in range(4)]
    wants = {}
    _C.conv_winograd_cache(0)
    for i, w in enumerate([shared] + own):
        wants[i] = _conv(_C.conv_forward, x, w, x.shape, (1,) * 4)
    _C.conv_winograd_cache(1 << 28)
    errors = []

    def work(t):
        try:
            for it in range(30):
                w = own[t]
                if t == 3:
                    w[0, 0, 0, 0] = float(it)       # changed in place every call
                    _C.conv_winograd_cache(1 << 16 if it % 2 else 1 << 28)
                    continue
                for i, ww in ((0, shared), (t + 1, w)):
                    got = _conv(_C.conv_forward, x, ww, x.shape, (1,) * 4)
                    if not np.array_equal(got, wants[i]):
                        errors.append((t, it, i))
        except Exception as e:                      # pragma: no cover - reported below
            errors.append(e)

    def mutate():
        w = own[3]
        for it in range(30):
            w[0, 0, 0, 0] = float(it)
            got = _conv(_C.conv_forward, x, w, x.shape, (1,) * 4)
            _C.conv_winograd_cache(0)
            fresh = _conv(_C.conv_forward, x, w, x.shape, (1,) * 4)
            _C.conv_winograd_cache(1 << 28)
            if not np.array_equal(got, fresh):
                errors.append(("mutate", it))
    threads = [threading.Thread(target=work, args=(t,)) for t in range(3)]
    threads.append(threading.Thread(target=mutate))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.parametrize("where", ["x_nan", "x_inf", "w_inf", "w_nan"])
def test_nan_and_inf_take_the_direct_engine(where):
    """A NaN or infinity in x or w would spread through a tile's transforms (inf - inf): such
    calls run the direct engine, whose bits they get."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 16, 12, 12)).astype(np.float32)
    w = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    arr, val = (x, np.nan) if where == "x_nan" else (x, np.inf) if where == "x_inf" else \
        (w, np.inf) if where == "w_inf" else (w, np.nan)
    arr[(0, 3, 1, 2) if arr is w else (0, 3, 5, 7)] = val
    got = {}
    for mode in (0, 4, 24):
        _C.conv_winograd(mode)
        got[mode] = _conv(_C.conv_forward, x, w, x.shape, (1,) * 4)
    np.testing.assert_array_equal(got[4], got[0])
    np.testing.assert_array_equal(got[24], got[0])
    assert np.isfinite(got[4]).any() and not np.isfinite(got[4]).all()
