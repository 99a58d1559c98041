"""nn optimizers of nn/optim/adaptive.py and composed.py (and LazyAdam): four steps on fixed
parameters and gradients give the values MindSpore 2.10 computed
(tests/data/optim_mindspore.json, written by running `CASES` with mindspore in place of
mindlite); FTRL with l1 > 0, Lamb and LARS (no MindSpore CPU kernel, or a CPU kernel that
departs from its documented rule) against float64 numpy references of the documented rules;
dtypes, in-place state, a training run, errors."""
import json
import os

import numpy as np
import pytest

import mindlite as ms
from mindlite import Parameter, Tensor, nn

rng = np.random.default_rng(0)
W0 = rng.standard_normal((2, 3)).astype(np.float32)
B0 = rng.standard_normal(3).astype(np.float32)
GRADS = [(rng.standard_normal((2, 3)).astype(np.float32),
          rng.standard_normal(3).astype(np.float32)) for _ in range(4)]

CASES = {
    "RMSProp": lambda p: nn.RMSProp(p, learning_rate=0.05, decay=0.8, momentum=0.5,
                                    epsilon=1e-6),
    "RMSProp_centered": lambda p: nn.RMSProp(p, learning_rate=0.05, decay=0.8, momentum=0.3,
                                             epsilon=1e-6, centered=True, weight_decay=0.1),
    "Adagrad": lambda p: nn.Adagrad(p, accum=0.2, learning_rate=0.1, weight_decay=0.05),
    "Adadelta": lambda p: nn.Adadelta(p, learning_rate=0.5, rho=0.8, epsilon=1e-4,
                                      weight_decay=0.1),
    "AdaMax": lambda p: nn.AdaMax(p, learning_rate=0.01, beta1=0.8, beta2=0.9, eps=1e-6),
    "FTRL_p": lambda p: nn.FTRL(p, initial_accum=0.2, learning_rate=0.1, lr_power=-0.3,
                                l1=0.0, l2=0.0, weight_decay=0.1),
    "LazyAdam": lambda p: nn.LazyAdam(p, learning_rate=0.01, beta1=0.8, beta2=0.9, eps=1e-6,
                                      weight_decay=0.05),
    "ProximalAdagrad": lambda p: nn.ProximalAdagrad(p, accum=0.2, learning_rate=0.1, l1=0.01,
                                                    l2=0.02),
    "Rprop": lambda p: nn.Rprop(p, learning_rate=0.1, etas=(0.4, 1.3), step_sizes=(1e-3, 0.5)),
    "ASGD": lambda p: nn.ASGD(p, learning_rate=0.1, lambd=1e-3, alpha=0.75, t0=2.0,
                              weight_decay=0.05),
}


def _run(make, dtype=np.float32, grads=GRADS):
    w = Parameter(Tensor(W0.astype(dtype)), name="w")
    b = Parameter(Tensor(B0.astype(dtype)), name="bias")
    opt = make([w, b])
    for gw, gb in grads:
        assert opt((Tensor(gw.astype(dtype)), Tensor(gb.astype(dtype)))) is not None
    return w.asnumpy(), b.asnumpy(), opt


@pytest.mark.parametrize("name", sorted(CASES))
def test_four_steps_equal_mindspores(name):
    want = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                       "optim_mindspore.json")))[name]
    w, b, _ = _run(CASES[name])
    np.testing.assert_allclose(w, want[0], rtol=1e-6, atol=2e-7)
    np.testing.assert_allclose(b, want[1], rtol=1e-6, atol=2e-7)


@pytest.mark.parametrize("name", ["RMSProp", "Adagrad", "Adadelta", "AdaMax", "LazyAdam",
                                  "ProximalAdagrad"])
def test_float64_parameters_stay_float64_and_agree(name):
    w64, b64, _ = _run(CASES[name], np.float64)
    w32, b32, _ = _run(CASES[name])
    assert w64.dtype == np.float64
    np.testing.assert_allclose(w64, w32, rtol=1e-4, atol=1e-5)


def _ftrl_reference(var, grads, lr, l1, l2, p, accum0):
    accum, linear = np.full_like(var, accum0), np.zeros_like(var)
    for g in grads:
        new = accum + g * g
        linear += g - (new ** -p - accum ** -p) / lr * var
        quad = new ** -p / lr + 2 * l2
        var = np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quad, 0.0)
        accum = new
    return var


def test_ftrl_with_l1_follows_the_documented_rule():
    """MindSpore's docs: var = (sign(linear) l1 - linear) / quadratic where |linear| > l1. Its
    2.10 CPU kernel uses l1 - linear for negative linear too; mindlite follows the docs."""
    make = lambda p: nn.FTRL(p, initial_accum=0.2, learning_rate=0.1, l1=0.01, l2=0.02)  # noqa
    w, b, _ = _run(make, np.float64)
    gw = [g[0].astype(np.float64) for g in GRADS]
    # the hyper-parameters are stored as float32 scalars, as MindSpore's
    lr, l1, l2 = (float(np.float32(v)) for v in (0.1, 0.01, 0.02))
    np.testing.assert_allclose(w, _ftrl_reference(W0.astype(np.float64), gw, lr, l1, l2, -0.5,
                                                   0.2), rtol=1e-12)


def _lamb_reference(w, grads, lr, b1, b2, eps, wd):
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        r = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wd * w
        wn, rn = np.linalg.norm(w), np.linalg.norm(r)
        trust = wn / rn if wn > 0 and rn > 0 else 1.0
        w = w - lr * trust * r
    return w


def test_lamb_against_float64_reference():
    make = lambda p: nn.Lamb(p, learning_rate=0.05, beta1=0.8, beta2=0.9, eps=1e-6,  # noqa
                             weight_decay=0.1)
    w, b, _ = _run(make, np.float64)
    gw = [g[0].astype(np.float64) for g in GRADS]
    gb = [g[1].astype(np.float64) for g in GRADS]
    lr = float(np.float32(0.05))            # the learning rate is a float32 Parameter
    np.testing.assert_allclose(w, _lamb_reference(W0.astype(np.float64), gw, lr, 0.8, 0.9,
                                                  1e-6, 0.1), rtol=1e-10)
    # names without 'beta'/'gamma' are decayed (MindSpore's rule), 'bias' included
    np.testing.assert_allclose(b, _lamb_reference(B0.astype(np.float64), gb, lr, 0.8, 0.9,
                                                  1e-6, 0.1), rtol=1e-10)


@pytest.mark.parametrize("use_clip", [False, True])
def test_lars_against_float64_reference(use_clip):
    make = lambda p: nn.LARS(nn.Momentum(p, 0.1, 0.9, weight_decay=0.05),  # noqa
                             epsilon=1e-5, coefficient=0.01, use_clip=use_clip)
    w, b, opt = _run(make, np.float64)
    ref_w, ref_b = W0.astype(np.float64), B0.astype(np.float64)
    lr, mu = float(np.float32(0.1)), float(np.float32(0.9))     # Momentum's float32 scalars
    mom_w, mom_b = np.zeros_like(ref_w), np.zeros_like(ref_b)
    for gw, gb in GRADS:
        gw, gb = gw.astype(np.float64), gb.astype(np.float64)
        wn, gn = np.linalg.norm(ref_w), np.linalg.norm(gw)
        trust = 0.01 * wn / (gn + 0.05 * wn + 1e-5)
        if use_clip:
            trust = min(trust / lr, 1.0)
        gw = trust * (gw + 0.05 * ref_w)          # 'bias' is filtered out: its gradient as is
        mom_w = mu * mom_w + gw
        mom_b = mu * mom_b + gb
        ref_w, ref_b = ref_w - lr * mom_w, ref_b - lr * mom_b
    np.testing.assert_allclose(w, ref_w, rtol=1e-10)
    np.testing.assert_allclose(b, ref_b, rtol=1e-10)
    assert opt.parameters is opt.opt.parameters


@pytest.mark.parametrize("make", [
    lambda p: nn.RMSProp(p, 0.01), lambda p: nn.Adagrad(p, learning_rate=0.1),
    lambda p: nn.Adadelta(p), lambda p: nn.AdaMax(p, 0.01), lambda p: nn.FTRL(p),
    lambda p: nn.ProximalAdagrad(p, learning_rate=0.1), lambda p: nn.Rprop(p, 0.01),
    lambda p: nn.ASGD(p, 0.05), lambda p: nn.Lamb(p, 0.01), lambda p: nn.LazyAdam(p, 0.01),
    lambda p: nn.LARS(nn.SGD(p, 0.1))])
def test_training_reduces_the_loss(make):
    ms.set_seed(0)
    net = nn.Dense(4, 1)
    opt = make(net.trainable_params())
    x = Tensor(rng.standard_normal((32, 4)).astype(np.float32))
    y = Tensor((rng.standard_normal((32, 1)) * 0.1).astype(np.float32))
    loss_fn = nn.MSELoss()
    step = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    first = float(step(x, y)[0].asnumpy())
    for _ in range(30):
        loss, grads = step(x, y)
        opt(grads)
    assert float(step(x, y)[0].asnumpy()) < first


def test_errors():
    p = [Parameter(Tensor(W0), name="w")]
    with pytest.raises(TypeError, match="For 'RMSProp', 'decay' must be a float"):
        nn.RMSProp(p, decay="x")
    with pytest.raises(ValueError, match="For 'RMSProp', 'epsilon' must be > 0.0"):
        nn.RMSProp(p, epsilon=0.0)
    with pytest.raises(ValueError, match="For 'Adadelta', 'rho' must be <= 1.0"):
        nn.Adadelta(p, rho=1.5)
    with pytest.raises(ValueError, match="For 'FTRL', 'lr_power' must be <= 0"):
        nn.FTRL(p, lr_power=0.5)
    with pytest.raises(ValueError, match="For 'FTRL', dynamic learning rate"):
        nn.FTRL(p, learning_rate=[0.1, 0.01])
    with pytest.raises(ValueError, match="'beta1' must be in range"):
        nn.AdaMax(p, beta1=1.0)
    with pytest.raises(ValueError, match="etaplus must be greater than 1.0"):
        nn.Rprop(p, etas=(0.5, 1.0))
    with pytest.raises(ValueError, match="maximal step size should not be less"):
        nn.Rprop(p, step_sizes=(1.0, 0.5))
    with pytest.raises(TypeError, match="For 'ASGD', 'lambd' must be a float"):
        nn.ASGD(p, lambd=1)
    with pytest.raises(TypeError, match="For 'LARS', 'optimizer' must be an Optimizer"):
        nn.LARS(p)
    opt = nn.Adagrad(p)
    with pytest.raises(ValueError, match="gradient of 'w' must have shape"):
        opt((Tensor(np.ones(3, np.float32)),))
    np.testing.assert_array_equal(p[0].asnumpy(), W0)        # a failed step changes nothing
