"""vjp / jvp / linearize / jacrev / jacfwd (autodiff_func.py) against torch.func, detection-box
helpers and lrn (box_func.py) against numpy formulas of MindSpore 2.10's kernels (corners
inclusive), the scalar / tuple helpers (scalar_func.py) and ops' collectives in a one-rank
world (comm_func.py)."""
import numpy as np
import pytest
import torch
from torch import func as tfunc

import mindlite as ms
from mindlite import Tensor, ops

from gradcheck import check_grad

RNG = np.random.default_rng(9)


def _cube(a):
    return a * a * a


def _mix(a, b):
    return ops.sin(a) * b, (a * b).sum()


def _t_mix(a, b):
    return torch.sin(a) * b, (a * b).sum()


def test_vjp_against_torch():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    u1, u2 = RNG.standard_normal((2, 3)), np.array(0.7)
    out, fn = ops.vjp(_mix, Tensor(a), Tensor(b))
    ga, gb = fn((Tensor(u1), Tensor(u2)))
    tout, tfn = tfunc.vjp(_t_mix, torch.tensor(a), torch.tensor(b))
    ta, tb = tfn((torch.tensor(u1), torch.tensor(u2)))
    np.testing.assert_allclose(out[0].asnumpy(), tout[0].numpy())
    np.testing.assert_allclose(ga.asnumpy(), ta.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gb.asnumpy(), tb.numpy(), rtol=1e-12)
    out, fn, aux = ops.vjp(lambda x: (_cube(x), x + 1), Tensor(a), has_aux=True)
    np.testing.assert_allclose(aux.asnumpy(), a + 1)
    (g,) = fn(Tensor(u1))
    np.testing.assert_allclose(g.asnumpy(), 3 * a * a * u1, rtol=1e-12)


def test_jvp_and_linearize_against_torch():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    va, vb = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    out, tangent = ops.jvp(_mix, (Tensor(a), Tensor(b)), (Tensor(va), Tensor(vb)))
    tout, ttan = tfunc.jvp(_t_mix, (torch.tensor(a), torch.tensor(b)),
                           (torch.tensor(va), torch.tensor(vb)))
    for g, w in zip(tangent, ttan):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-12, atol=1e-14)
    out, tangent = ops.jvp(_cube, Tensor(a), Tensor(va))
    np.testing.assert_allclose(tangent.asnumpy(), 3 * a * a * va, rtol=1e-12)
    out, tangent, aux = ops.jvp(lambda x: (_cube(x), x * 2), Tensor(a), Tensor(va),
                                has_aux=True)
    np.testing.assert_allclose(aux.asnumpy(), 2 * a)
    out, fn = ops.linearize(_cube, Tensor(a))
    np.testing.assert_allclose(fn(Tensor(va)).asnumpy(), 3 * a * a * va, rtol=1e-12)


@pytest.mark.parametrize("api", ["jacrev", "jacfwd"])
def test_jacobians_against_torch(api):
    a, b = RNG.standard_normal(3), RNG.standard_normal(3)
    jac = getattr(ops, api)(_mix, (0, 1))(Tensor(a), Tensor(b))
    tjac = getattr(tfunc, api)(_t_mix, (0, 1))(torch.tensor(a), torch.tensor(b))
    for got_out, want_out in zip(jac, tjac):
        for g, w in zip(got_out, want_out):
            np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-12, atol=1e-14)
    j = getattr(ops, api)(_cube)(Tensor(RNG.standard_normal((2, 2))))
    assert j.shape == (2, 2, 2, 2)
    j, aux = getattr(ops, api)(lambda x: (_cube(x), x + 1), has_aux=True)(Tensor(a))
    np.testing.assert_allclose(j.asnumpy(), np.diag(3 * a * a), rtol=1e-12)
    np.testing.assert_allclose(aux.asnumpy(), a + 1)


def test_hessian_through_jacrev_of_grad():
    a = RNG.standard_normal(3)
    h = ops.jacrev(ms.grad(lambda x: (_cube(x)).sum()))(Tensor(a))
    np.testing.assert_allclose(h.asnumpy(), np.diag(6 * a), rtol=1e-12)


# ---- boxes ---------------------------------------------------------------------------------
def _np_iou(anchors, gts, mode):
    out = np.zeros((len(gts), len(anchors)))
    for m, g in enumerate(gts):
        for n, a in enumerate(anchors):
            w = max(min(a[2], g[2]) - max(a[0], g[0]) + 1, 0)
            h = max(min(a[3], g[3]) - max(a[1], g[1]) + 1, 0)
            inter = w * h
            ga = (g[2] - g[0] + 1) * (g[3] - g[1] + 1)
            aa = (a[2] - a[0] + 1) * (a[3] - a[1] + 1)
            out[m, n] = inter / ga if mode == "iof" else inter / (aa + ga - inter)
    return out


def _boxes(n):
    lo = RNG.uniform(0, 5, (n, 2))
    return np.concatenate([lo, lo + RNG.uniform(0.5, 4, (n, 2))], 1)


@pytest.mark.parametrize("mode", ["iou", "iof"])
def test_iou(mode):
    a, g = _boxes(4), _boxes(3)
    np.testing.assert_allclose(ops.iou(Tensor(a), Tensor(g), mode).asnumpy(),
                               _np_iou(a, g, mode), rtol=1e-12)
    check_grad(lambda u: ops.iou(u, Tensor(g), mode), a)


def test_check_valid_and_box_codec_round_trip():
    boxes = np.array([[0, 0, 3, 3], [0, 0, 4, 3], [0, 0, 3, 4], [-1, 0, 1, 1], [2, 2, 1, 1]],
                     np.float32)
    np.testing.assert_array_equal(
        ops.check_valid(Tensor(boxes), Tensor(np.array([4, 4, 1], np.float32))).asnumpy(),
        [True, False, False, False, True])
    a, g = _boxes(5), _boxes(5)
    means, stds = (0.1, 0.0, 0.2, 0.0), (1.0, 2.0, 1.0, 0.5)
    d = ops.bounding_box_encode(Tensor(a), Tensor(g), means, stds)
    back = ops.bounding_box_decode(Tensor(a), d, (100, 100), means, stds, 1e-6)
    np.testing.assert_allclose(back.asnumpy(), g, rtol=1e-10, atol=1e-10)
    check_grad(lambda u: ops.bounding_box_encode(u, Tensor(g)), a)
    check_grad(lambda u: ops.bounding_box_decode(Tensor(a), u, (100, 100)), d.asnumpy() * 0.5)


@pytest.mark.parametrize("radius, bias, alpha, beta", [(5, 1.0, 1.0, 0.5), (1, 2.0, 0.5, 0.75),
                                                       (0, 1.0, 0.3, 1.0)])
def test_lrn(radius, bias, alpha, beta):
    x = RNG.standard_normal((2, 6, 3, 3))
    sq = np.pad(x * x, ((0, 0), (radius, radius), (0, 0), (0, 0)))
    s = np.stack([sq[:, c:c + 2 * radius + 1].sum(1) for c in range(6)], 1)
    want = x / (bias + alpha * s) ** beta
    np.testing.assert_allclose(ops.lrn(Tensor(x), radius, bias, alpha, beta).asnumpy(), want,
                               rtol=1e-12)
    check_grad(lambda u: ops.lrn(u, radius, bias, alpha, beta), x[:1, :, :2, :2])


# ---- scalar / tuple helpers ----------------------------------------------------------------
def test_scalar_and_tuple_helpers_as_mindspore():
    assert ops.scalar_add(2, 3.5) == 5.5 and ops.scalar_floordiv(7, 2) == 3
    assert ops.scalar_cast(2.7, ms.int64) == 2 and ops.scalar_usub(2) == -2
    with pytest.raises(ValueError, match="ScalarCast"):
        ops.scalar_cast(2.7, ms.int32)
    t = ops.scalar_to_tensor(2, ms.int32)
    assert t.dtype == ms.int32 and int(t) == 2
    assert ops.tuple_to_array((1, 2, 3)).dtype == ms.int32
    assert ops.tuple_to_array((1.5, 2)).dtype == ms.float32
    assert ops.tuple_setitem((1, 2, 3), 1, 9) == (1, 9, 3)
    assert ops.tuple_div((6, 9), (2, 3)) == (3, 3)
    assert ops.make_range(1, 7, 2) == (1, 3, 5) and ops.make_range(4) == (0, 1, 2, 3)
    assert ops.shape_mul((2, 3, 4)) == 24
    assert ops.reduced_shape((2, 3, 4), (1,)) == (2, 1, 4)
    assert ops.broadcast_gradient_args((2, 3), (3,)) == ((), (0,))
    np.testing.assert_array_equal(ops.dyn_shape(Tensor(np.ones((2, 3)))).asnumpy(), [2, 3])
    assert ops.hyper_add((1, (2, 3)), (3, (4, 5))) == (4, (6, 8))
    assert ops.mixed_precision_cast(ms.float16, (Tensor(np.ones(2, np.float32)),))[0].dtype \
        == ms.float16
    assert ops.typeof(1) == ms.int64 and not ops.hastype((1, 2), ms.int32)


# ---- collectives in a one-rank world ---------------------------------------------------------
def test_ops_collectives_single_rank():
    x = Tensor(np.arange(4, dtype=np.float32))
    assert ops.get_rank() == 0 and ops.get_world_size() == 1
    assert ops.all_reduce is ms.mint.distributed.all_reduce
    out = ops.zeros_like(x)
    ops.gather_into_tensor(out, x)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    out = ops.zeros_like(x)
    ops.scatter_tensor(out, x)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
