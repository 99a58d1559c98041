"""The stride-1 input gradient's own Winograd rule (input_winograd_f2, csrc/kernels/
conv_backward.cc): F(2x2, 3x3) on 4 x 4 to 6 x 6 planes of 128 x 128+ channel pairs with 64+
tiles in the batch (AVX-512), where the forward rule leaves the direct engine. Such calls give
the bits of F(2x2) forced (_C.conv_winograd(2)), within its documented bound of the float64
reference (32 eps x the largest term-magnitude sum of the 2 x 2 tile, docs/conv_engine.md),
the same on 1 and 2 threads; the shapes next to the rule (3 x 3 planes, batch 4, 64 channels,
Winograd off) keep the direct engine's bits."""
import numpy as np
import pytest

from mindlite import _C
from mindlite.kernels.cpu import conv_numpy as ref

WIDE = _C.kernel_isa() == "avx512"


pytestmark = pytest.mark.usefixtures("conv_engine_settings_restored")     # conftest.py


def _dx(d, w, mode):
    _C.conv_winograd(mode)
    dx = np.full(d.shape[:1] + (w.shape[1],) + d.shape[2:], 7, d.dtype)
    _C.conv_backprop_input(d, w, dx, (1, 1), (1, 1), (1, 1, 1, 1), 1)
    return dx


def _data(n, c, h, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, c, h, h)).astype(np.float32),
            rng.standard_normal((c, c, 3, 3)).astype(np.float32))


@pytest.mark.parametrize("n, c, h", [(16, 128, 4), (16, 128, 5), (8, 160, 6)])
def test_rule_takes_f2_within_bound(n, c, h):
    d, w = _data(n, c, h)
    auto = _dx(d, w, 1)
    np.testing.assert_array_equal(auto, _dx(d, w, 2 if WIDE else 0))
    _C.conv_winograd(1)
    _C.set_num_threads(1)
    np.testing.assert_array_equal(_dx(d, w, 1), auto)
    want, mag = np.empty(auto.shape), np.empty(auto.shape)
    geo = ((1, 1), (1, 1), (1, 1, 1, 1), 1)
    ref.conv2d_backprop_input_numpy(d.astype(np.float64), w.astype(np.float64), want, *geo)
    ref.conv2d_backprop_input_numpy(np.abs(d.astype(np.float64)), np.abs(w.astype(np.float64)),
                                    mag, *geo)
    hp = -(-h // 2) * 2
    p = np.zeros(mag.shape[:2] + (hp, hp))
    p[:, :, :h, :h] = mag
    t = p.reshape(n, c, hp // 2, 2, hp // 2, 2).max(axis=(3, 5), keepdims=True)
    tile = np.broadcast_to(t, (n, c, hp // 2, 2, hp // 2, 2)).reshape(n, c, hp, hp)[:, :, :h, :h]
    assert (np.abs(auto - want) <= 32 * np.finfo(np.float32).eps * tile).all()


@pytest.mark.parametrize("n, c, h", [(16, 128, 3), (4, 128, 4), (16, 64, 4), (16, 128, 7)])
def test_next_to_the_rule_keeps_its_kernel(n, c, h):
    """3 x 3 planes, 16 tiles, 64 channels: the direct engine; 7 x 7: the forward rule's F(4x4)."""
    d, w = _data(n, c, h, seed=1)
    want = _dx(d, w, 4 if h == 7 and WIDE else 0)
    np.testing.assert_array_equal(_dx(d, w, 1), want)
