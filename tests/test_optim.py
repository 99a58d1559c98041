"""Optimizer primitives (ApplyMomentum, SGD, Adam, AdamWeightDecay: in-place updates, checks
before any write) and nn optimizers (SGD, Momentum, Adam, AdamWeightDecay: one and several
steps against hand-written numpy updates, weight decay, loss scale, groups, dynamic learning
rates, state names), and the learning-rate schedules."""
import math

import numpy as np
import pytest
from helpers import noncontig, shapes
from hypothesis import given
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops
from mindlite.ir.rules import NON_DIFFERENTIABLE

f32 = np.float32



def _r32(v):
    """A hyper-parameter as the float32 value the kernels see, widened to float64."""
    return float(f32(v))


def _arrays(shape, dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for _ in range(n)]


# ---- primitives ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nesterov", [False, True])
def test_apply_momentum_steps_in_place(dtype, nesterov, policy):
    w0, g1, g2 = _arrays((3, 4), dtype, 3)
    var, acc = Parameter(w0.copy(), name="w"), Parameter(np.zeros_like(w0), name="acc")
    lr, mom = 0.1, 0.9
    op = ops.ApplyMomentum(use_nesterov=nesterov)
    w, a = w0.astype(np.float64), np.zeros(w0.shape)
    for g in (g1, g2):
        out = op(var, acc, lr, Tensor(g), mom)
        a = a * _r32(mom) + g
        w = w - _r32(lr) * (g + _r32(mom) * a if nesterov else a)
        assert np.shares_memory(out.asnumpy(), var.asnumpy())
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(var.asnumpy(), w, rtol=tol, atol=tol)
    np.testing.assert_allclose(acc.asnumpy(), a, rtol=tol, atol=tol)
    assert var.dtype == ms.dtype.float32 if dtype == np.float32 else ms.dtype.float64


def test_apply_momentum_gradient_scale_and_tensor_scalars(policy):
    w0, g = _arrays((5,), np.float64, 2)
    var, acc = Tensor(w0.copy()), Tensor(np.ones(5))
    ops.ApplyMomentum(gradient_scale=0.5)(var, acc, Tensor(np.array([0.25])), Tensor(g),
                                          Tensor(np.array(0.5)))
    a = np.ones(5) * 0.5 + 0.5 * g
    np.testing.assert_allclose(acc.asnumpy(), a, rtol=1e-12)
    np.testing.assert_allclose(var.asnumpy(), w0 - 0.25 * a, rtol=1e-12)


@given(shape=shapes(max_dims=3))
def test_apply_momentum_any_shape_and_noncontiguous(shape):
    w0, g = _arrays(shape, np.float64, 2)
    var = Tensor.from_numpy(noncontig(w0.copy()))
    acc = Tensor.from_numpy(noncontig(np.zeros(shape)))
    ops.ApplyMomentum()(var, acc, 0.5, Tensor.from_numpy(noncontig(g)), 0.5)
    np.testing.assert_allclose(var.asnumpy(), w0 - _r32(0.5) * g, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("momentum,dampening,wd,nesterov", [
    (0.0, 0.0, 0.0, False), (0.9, 0.0, 0.0, False), (0.9, 0.1, 0.01, False),
    (0.8, 0.0, 0.05, True)])
def test_sgd_primitive(dtype, momentum, dampening, wd, nesterov, policy):
    w0, g1, g2, g3 = _arrays((2, 3), dtype, 4, seed=1)
    p, acc, stat = Tensor(w0.copy()), Tensor(np.zeros_like(w0)), Tensor(np.ones_like(w0))
    op = ops.SGD(dampening, wd, nesterov)
    w, a = w0.astype(np.float64), np.zeros(w0.shape)
    lr, m, d = _r32(0.1), _r32(momentum), dampening
    for i, g in enumerate((g1, g2, g3)):
        op(p, Tensor(g), 0.1, acc, momentum, stat)
        gg = g + w * wd if wd > 0 else g.astype(np.float64)
        if m > 0:
            a = gg if i == 0 else a * m + (1 - d) * gg
            gg = gg + m * a if nesterov else a
        w = w - lr * gg
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(p.asnumpy(), w, rtol=tol, atol=tol)
    if momentum > 0:
        assert (stat.asnumpy() == 0).all()
        np.testing.assert_allclose(acc.asnumpy(), a, rtol=tol, atol=tol)


def _adam_ref(w, m, v, g, t, lr, b1, b2, eps, nesterov=False):
    b1p, b2p = f32(b1) ** t, f32(b2) ** t
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    lr_t = lr * math.sqrt(1 - b2p) / (1 - b1p)
    num = m * b1 + (1 - b1) * g if nesterov else m
    return w - lr_t * num / (np.sqrt(v) + eps), m, v


@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_primitive_steps(nesterov, policy):
    w0, g1, g2 = _arrays((4,), np.float64, 3, seed=2)
    var, m, v = Parameter(w0.copy(), name="w"), Tensor(np.zeros(4)), Tensor(np.zeros(4))
    w, mr, vr = w0, np.zeros(4), np.zeros(4)
    b1, b2 = _r32(0.9), _r32(0.999)
    for t, g in enumerate((g1, g2), start=1):
        outs = ops.Adam(use_nesterov=nesterov)(var, m, v, float(f32(0.9) ** t),
                                               float(f32(0.999) ** t), 0.01, 0.9, 0.999, 1e-8,
                                               Tensor(g))
        w, mr, vr = _adam_ref(w, mr, vr, g, t, _r32(0.01), b1, b2, _r32(1e-8), nesterov)
    assert all(np.shares_memory(o.asnumpy(), s.asnumpy()) for o, s in zip(outs, (var, m, v)))
    np.testing.assert_allclose(var.asnumpy(), w, rtol=1e-6)
    np.testing.assert_allclose(m.asnumpy(), mr, rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), vr, rtol=1e-6)


def test_adam_weight_decay_primitive(policy):
    w0, g = _arrays((3,), np.float64, 2, seed=3)
    var, m, v = Tensor(w0.copy()), Tensor(np.zeros(3)), Tensor(np.zeros(3))
    ops.AdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-6, 0.1, Tensor(g))
    b1, b2 = _r32(0.9), _r32(0.999)
    mr, vr = (1 - b1) * g, (1 - b2) * g * g
    want = w0 - _r32(0.01) * (mr / (np.sqrt(vr) + _r32(1e-6)) + _r32(0.1) * w0)
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("bad,err,words", [
    ({"g": np.zeros(3)}, ValueError, ["ApplyMomentum", "gradient", "[2, 3]"]),
    # a gradient of a lower dtype is cast up (as MindSpore); one that would need the variable
    # cast is refused
    ({"g": np.zeros((2, 3), np.complex128)}, TypeError, ["ApplyMomentum", "variable",
                                                         "Complex128"]),
    ({"acc": np.zeros((3, 2))}, ValueError, ["ApplyMomentum", "accumulation"]),
    ({"lr": Tensor(np.ones(2))}, ValueError, ["ApplyMomentum", "learning_rate", "scalar"]),
    ({"lr": Tensor(np.array(1, np.int32))}, TypeError, ["ApplyMomentum", "learning_rate"]),
])
def test_apply_momentum_errors_leave_state_unchanged(bad, err, words):
    w0 = np.arange(6.0).reshape(2, 3)
    var, acc = Tensor(w0.copy()), Tensor(np.ones((2, 3)))
    g = Tensor(bad.get("g", np.ones((2, 3))))
    if "acc" in bad:
        acc = Tensor(bad["acc"])
    with pytest.raises(err) as e:
        ops.ApplyMomentum()(var, acc, bad.get("lr", 0.1), g, 0.9)
    for w in words:
        assert w in str(e.value)
    np.testing.assert_array_equal(var.asnumpy(), w0)


def test_read_only_variable_is_rejected_before_any_write(policy):
    w0 = np.ones(3)
    ro = w0.copy()
    ro.flags.writeable = False
    acc = Tensor(np.zeros(3))
    with pytest.raises(ValueError, match="ApplyMomentum.*read-only"):
        ops.ApplyMomentum()(Tensor.from_numpy(ro), acc, 0.1, Tensor(np.ones(3)), 0.9)
    np.testing.assert_array_equal(acc.asnumpy(), 0)


def test_optimizer_primitives_are_non_differentiable():
    assert {ops.ApplyMomentum, ops.SGD, ops.Adam, ops.AdamWeightDecay} <= NON_DIFFERENTIABLE
    with pytest.raises(TypeError, match="SGD.*nesterov"):
        ops.SGD(nesterov=1)


# ---- nn optimizers ---------------------------------------------------------------------------
def _params(dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return [Parameter(rng.standard_normal((3, 2)).astype(dtype), name="fc.weight"),
            Parameter(rng.standard_normal(2).astype(dtype), name="fc.beta")]


def _grads(params, seed):
    rng = np.random.default_rng(seed)
    return tuple(Tensor(rng.standard_normal(p.shape).astype(p.dtype.np)) for p in params)


def test_momentum_steps_weight_decay_and_loss_scale():
    ps = _params()
    opt = nn.Momentum(ps, learning_rate=0.1, momentum=0.9, weight_decay=0.01, loss_scale=2.0)
    ws = [p.asnumpy().copy() for p in ps]
    acc = [np.zeros_like(w) for w in ws]
    for step in range(3):
        gs = _grads(ps, step)
        assert opt(gs) is True
        for i, g in enumerate(gs):
            gg = g.asnumpy() / 2.0
            if i == 0:                                   # 'fc.beta' is not decayed
                gg = gg + 0.01 * ws[i]
            acc[i] = acc[i] * _r32(0.9) + gg
            ws[i] = ws[i] - _r32(0.1) * acc[i]
    for p, w in zip(ps, ws):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(opt.moments[0].asnumpy(), acc[0], rtol=1e-12)
    assert int(opt.global_step.asnumpy()[0]) == 3
    names = [n for n, _ in opt.parameters_and_names()]
    assert "moments.fc.weight" in names and "moments.fc.beta" in names
    assert opt.moments[0].name == "moments.fc.weight"


@pytest.mark.parametrize("momentum,dampening,nesterov", [(0.0, 0.0, False), (0.9, 0.5, False),
                                                          (0.9, 0.0, True)])
def test_sgd_optimizer_steps(momentum, dampening, nesterov):
    ps = _params(seed=1)
    opt = nn.SGD(ps, learning_rate=0.05, momentum=momentum, dampening=dampening,
                 weight_decay=0.1, nesterov=nesterov)
    ws = [p.asnumpy().copy() for p in ps]
    acc = [np.zeros_like(w) for w in ws]
    for step in range(3):
        gs = _grads(ps, 10 + step)
        opt(gs)
        for i, g in enumerate(gs):
            gg = g.asnumpy() + (0.1 * ws[i] if i == 0 else 0)
            if momentum > 0:
                acc[i] = gg if step == 0 else acc[i] * _r32(momentum) + (1 - dampening) * gg
                gg = gg + _r32(momentum) * acc[i] if nesterov else acc[i]
            ws[i] = ws[i] - _r32(0.05) * gg
    for p, w in zip(ps, ws):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-12, atol=1e-12)
    assert {"accum.fc.weight", "stat.fc.beta"} <= {n for n, _ in opt.parameters_and_names()}


def test_adam_optimizer_steps():
    ps = _params(seed=2)
    opt = nn.Adam(ps, learning_rate=0.01, weight_decay=0.1)
    ws = [p.asnumpy().copy() for p in ps]
    ms_, vs = [np.zeros_like(w) for w in ws], [np.zeros_like(w) for w in ws]
    for t in range(1, 4):
        gs = _grads(ps, 20 + t)
        opt(gs)
        for i, g in enumerate(gs):
            gg = g.asnumpy() + (0.1 * ws[i] if i == 0 else 0)
            ws[i], ms_[i], vs[i] = _adam_ref(ws[i], ms_[i], vs[i], gg, t, _r32(0.01), _r32(0.9),
                                             _r32(0.999), _r32(1e-8))
    for p, w in zip(ps, ws):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-6, atol=1e-9)
    assert opt.moment1[0].name == "moment1.fc.weight" and opt.moment2[1].name == "moment2.fc.beta"
    np.testing.assert_allclose(opt.beta1_power.asnumpy(), f32(0.9) ** 3, rtol=1e-6)


def test_adam_weight_decay_optimizer_steps():
    ps = _params(seed=3)
    opt = nn.AdamWeightDecay(ps, learning_rate=0.01, weight_decay=0.1)
    ws = [p.asnumpy().copy() for p in ps]
    ms_, vs = [np.zeros_like(w) for w in ws], [np.zeros_like(w) for w in ws]
    b1, b2 = _r32(0.9), _r32(0.999)
    for t in range(2):
        gs = _grads(ps, 30 + t)
        opt(gs)
        for i, g in enumerate(gs):
            g = g.asnumpy()
            ms_[i] = b1 * ms_[i] + (1 - b1) * g
            vs[i] = b2 * vs[i] + (1 - b2) * g * g
            upd = ms_[i] / (np.sqrt(vs[i]) + _r32(1e-6)) + (_r32(0.1) * ws[i] if i == 0 else 0)
            ws[i] = ws[i] - _r32(0.01) * upd
    for p, w in zip(ps, ws):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-6, atol=1e-9)
    assert opt.moments1[0].name == "adam_m.fc.weight" and opt.moments2[0].name == "adam_v.fc.weight"


def test_float32_parameters_train_in_float32():
    ps = _params(np.float32)
    nn.Adam(ps)(_grads(ps, 0))
    nn.Momentum(ps, 0.1, 0.9)(_grads(ps, 1))
    assert all(p.dtype == ms.float32 and p.asnumpy().dtype == np.float32 for p in ps)


def test_dynamic_learning_rates():
    p = Parameter(np.zeros(2), name="w")
    opt = nn.SGD([p], learning_rate=[0.1, 0.2, 0.3])
    g = (Tensor(np.ones(2)),)
    total = 0.0
    for lr in (0.1, 0.2, 0.3, 0.3):              # past the end: the last value
        opt(g)
        total += _r32(lr)
    np.testing.assert_allclose(p.asnumpy(), -total, rtol=1e-12)
    p2 = Parameter(np.zeros(2), name="w2")
    opt = nn.Momentum([p2], nn.WarmUpLR(0.4, 4), momentum=0.0)
    for _ in range(3):
        opt(g)
    np.testing.assert_allclose(p2.asnumpy(), -(_r32(0.0) + _r32(0.1) + _r32(0.2)), rtol=1e-6)
    assert isinstance(opt.learning_rate, nn.LearningRateSchedule)


def test_group_params_lr_weight_decay_and_order():
    w, b = _params(seed=4)
    opt = nn.Momentum([{"params": [b], "lr": 0.5, "weight_decay": 0.2}, {"params": [w]},
                       {"order_params": [w, b]}], learning_rate=0.1, momentum=0.0)
    assert opt.parameters[0] is w and opt.is_group_lr
    w0, b0 = w.asnumpy().copy(), b.asnumpy().copy()
    gw, gb = _grads([w, b], 5)
    opt((gw, gb))
    np.testing.assert_allclose(w.asnumpy(), w0 - _r32(0.1) * gw.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(b.asnumpy(), b0 - 0.5 * (gb.asnumpy() + 0.2 * b0), rtol=1e-12)
    assert opt.get_lr_parameter(b).asnumpy() == f32(0.5)


def test_bad_gradients_change_nothing():
    ps = _params()
    opt = nn.Momentum(ps, 0.1, 0.9)
    before = [p.asnumpy().copy() for p in ps]
    g = _grads(ps, 0)
    with pytest.raises(ValueError, match="Momentum.*2 gradients"):
        opt(g[:1])
    with pytest.raises(ValueError, match="Momentum.*fc.beta.*\\[2\\]"):
        opt((g[0], Tensor(np.ones(3))))
    with pytest.raises(TypeError, match="Momentum.*fc.beta.*Float64"):
        opt((g[0], Tensor(np.ones(2, np.float32))))
    for p, w in zip(ps, before):
        np.testing.assert_array_equal(p.asnumpy(), w)
    assert int(opt.global_step.asnumpy()[0]) == 0


@pytest.mark.parametrize("make,err,words", [
    (lambda p: nn.SGD([]), ValueError, ["SGD", "empty"]),
    (lambda p: nn.SGD([1.0]), TypeError, ["SGD", "Parameter"]),
    (lambda p: nn.SGD(p, learning_rate=-0.1), ValueError, ["SGD", "learning_rate"]),
    (lambda p: nn.SGD(p, learning_rate="x"), TypeError, ["SGD", "learning_rate"]),
    (lambda p: nn.SGD(p, nesterov=True), ValueError, ["SGD", "nesterov", "momentum"]),
    (lambda p: nn.SGD(p, weight_decay=-1.0), ValueError, ["SGD", "weight_decay"]),
    (lambda p: nn.Momentum(p, 0.1, -0.5), ValueError, ["Momentum", "momentum"]),
    (lambda p: nn.Momentum(p, 0.1, 0.9, loss_scale=0.0), ValueError, ["Momentum", "loss_scale"]),
    (lambda p: nn.Adam(p, beta1=1.0), ValueError, ["Adam", "beta1"]),
    (lambda p: nn.Adam(p, eps=0.0), ValueError, ["Adam", "eps"]),
    (lambda p: nn.AdamWeightDecay(p, beta2="0.9"), TypeError, ["AdamWeightDecay", "beta2"]),
    (lambda p: nn.Momentum(p + p[:1], 0.1, 0.9), ValueError, ["Momentum", "more than once"]),
])
def test_optimizer_argument_errors(make, err, words):
    with pytest.raises(err) as e:
        make(_params())
    for w in words:
        assert w in str(e.value)


# ---- learning-rate schedules ----------------------------------------------------------------
def _lr(schedule, step):
    return float(schedule(Tensor(np.array(step, np.int32))).asnumpy())


def test_schedules_match_formulas():
    for step in (0, 1, 3, 7, 12):
        assert math.isclose(_lr(nn.ExponentialDecayLR(0.1, 0.9, 4), step),
                            0.1 * 0.9 ** (step / 4), rel_tol=1e-6)
        assert math.isclose(_lr(nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True), step),
                            0.1 * 0.9 ** (step // 4), rel_tol=1e-6)
        assert math.isclose(_lr(nn.NaturalExpDecayLR(0.1, 0.5, 4), step),
                            0.1 * math.exp(-0.5 * step / 4), rel_tol=1e-6)
        assert math.isclose(_lr(nn.InverseDecayLR(0.1, 0.5, 4), step),
                            0.1 / (1 + 0.5 * step / 4), rel_tol=1e-6)
        cur = min(step, 10)
        assert math.isclose(_lr(nn.CosineDecayLR(0.01, 0.1, 10), step),
                            0.01 + 0.045 * (1 + math.cos(math.pi * cur / 10)), rel_tol=1e-6)
        assert math.isclose(_lr(nn.WarmUpLR(0.1, 5), step), 0.1 * min(step, 5) / 5,
                            rel_tol=1e-6, abs_tol=1e-9)
        assert math.isclose(_lr(nn.PolynomialDecayLR(0.1, 0.01, 10, 2.0), step),
                            0.09 * (1 - min(step, 10) / 10) ** 2 + 0.01, rel_tol=1e-5)
    # MindSpore's documented example
    assert math.isclose(_lr(nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), 2), 0.07363961, rel_tol=1e-6)
    upd = nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0, update_decay_steps=True)
    assert math.isclose(_lr(upd, 6), 0.09 * (1 - 6 / 8) + 0.01, rel_tol=1e-6)
    out = nn.CosineDecayLR(0.01, 0.1, 10)(Tensor(np.array([3], np.int32)))
    assert out.dtype == ms.float32 and out.shape == ()


@pytest.mark.parametrize("make,err", [
    (lambda: nn.ExponentialDecayLR(-0.1, 0.9, 4), ValueError),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 0), ValueError),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4.0), TypeError),
    (lambda: nn.CosineDecayLR(0.2, 0.1, 10), ValueError),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.0), ValueError),
    (lambda: nn.WarmUpLR(0.1, 0), ValueError),
])
def test_schedule_argument_errors(make, err):
    with pytest.raises(err):
        make()


@given(st.integers(0, 50))
def test_warmup_then_cosine_are_monotone(step):
    warm, cos = nn.WarmUpLR(0.1, 20), nn.CosineDecayLR(0.0, 0.1, 40)
    assert _lr(warm, step) <= _lr(warm, step + 1) + 1e-9
    assert _lr(cos, step) >= _lr(cos, step + 1) - 1e-9
