"""Resize primitives and ops.interpolate equal MindSpore 2.10 (tests/data/resize_mindspore.json,
written by tests/data/make_resize_fixtures.py): ResizeBilinearV2 with both flags False uses
asymmetric coordinates (dst * in / out), ResizeNearestNeighborV2 with align_corners rounds
.5 ties up, every flag combination forward and backward, ResizeLinear1D's modes and
interpolate's modes with size and scale_factor; both flags True is an error."""
import json
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.ops.operations import resize_pad_ops as R

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
import make_resize_fixtures as F  # noqa: E402

WANT = json.load(open(os.path.join(os.path.dirname(__file__), "data", "resize_mindspore.json")))
_PRIMS = {"linear1d": R.ResizeLinear1D, "bilinear_v2": R.ResizeBilinearV2,
          "nearest_v2": R.ResizeNearestNeighborV2}


def _ids(cases):
    return [c[0] for c in cases]


_PRIM_CASES = [c for c in F.CASES if c[1] != "interp"]
_INTERP_CASES = [c for c in F.CASES if c[1] == "interp"]


@pytest.mark.parametrize("case", _PRIM_CASES, ids=_ids(_PRIM_CASES))
def test_primitive_forward_and_grad_equal_mindspore(case):
    key, kind, flags, shape, size = case
    prim = _PRIMS[kind](flags) if kind == "linear1d" else _PRIMS[kind](*flags)
    x = Tensor(F.make_input(shape))
    y = prim(x, tuple(size))
    np.testing.assert_allclose(y.asnumpy(), WANT[key], rtol=1e-5, atol=1e-5)
    w = Tensor(F.grad_weight(y.shape))
    g = ms.grad(lambda v: (prim(v, tuple(size)) * w).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), WANT[key + "/grad"], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("case", _INTERP_CASES, ids=_ids(_INTERP_CASES))
def test_interpolate_equals_mindspore(case):
    key, _, (mode, ac), shape, kw = case
    kw = dict(kw, mode=mode)
    if ac is not None:
        kw["align_corners"] = ac
    y = ops.interpolate(Tensor(F.make_input(shape)), **kw)
    np.testing.assert_allclose(y.asnumpy(), WANT[key], rtol=1e-5, atol=1e-5)


def _asymmetric_bilinear(x, oh, ow):
    """numpy reference: src = dst * in / out, floor/ceil neighbours clamped at the edge."""
    def table(n_in, n_out):
        src = np.arange(n_out) * (n_in / n_out)
        i0 = np.minimum(np.floor(src).astype(int), n_in - 1)
        return i0, np.minimum(i0 + 1, n_in - 1), src - i0
    h0, h1, wh = table(x.shape[2], oh)
    w0, w1, ww = table(x.shape[3], ow)
    rows = x[:, :, h0] * (1 - wh)[:, None] + x[:, :, h1] * wh[:, None]
    return rows[..., w0] * (1 - ww) + rows[..., w1] * ww


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 9), st.integers(1, 9))
def test_bilinear_asymmetric_matches_reference(h, w, oh, ow):
    x = F.make_input((1, 2, h, w))
    y = R.ResizeBilinearV2(False, False)(Tensor(x), (oh, ow)).asnumpy()
    np.testing.assert_allclose(y, _asymmetric_bilinear(x.astype(np.float64), oh, ow),
                               rtol=1e-5, atol=1e-5)


def test_nearest_align_corners_rounds_ties_up():
    x = Tensor(np.arange(3, dtype=np.float32).reshape(1, 1, 1, 3))
    y = R.ResizeNearestNeighborV2(True, False)(x, (1, 5))       # sources 0, .5, 1, 1.5, 2
    np.testing.assert_array_equal(y.asnumpy().ravel(), [0, 1, 1, 2, 2])


@pytest.mark.parametrize("prim", [R.ResizeBilinearV2, R.ResizeNearestNeighborV2])
def test_both_flags_is_an_error(prim):
    with pytest.raises(ValueError, match="half_pixel_centers"):
        prim(True, True)
