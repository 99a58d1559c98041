"""experimental.optim (PyTorch-style optimizers and schedulers) against torch.optim step by
step: same parameters after each step for Adam, AdamW (amsgrad, maximize, weight decay,
groups) and SGD (momentum, dampening, nesterov); schedulers give torch's rates epoch by epoch."""
import math

import numpy as np
import pytest

from mindlite import Parameter, Tensor
from mindlite.experimental import optim

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
W0 = rng.standard_normal((3, 4))
B0 = rng.standard_normal(4)
GRADS = [(rng.standard_normal((3, 4)), rng.standard_normal(4)) for _ in range(5)]


def _pair(dtype=np.float64):
    return (Parameter(Tensor(W0.astype(dtype)), name="w"),
            Parameter(Tensor(B0.astype(dtype)), name="b"))


def _torch_pair():
    return (torch.nn.Parameter(torch.tensor(W0)), torch.nn.Parameter(torch.tensor(B0)))


CASES = [
    ("Adam", dict(lr=0.01), dict(lr=0.01)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.95), weight_decay=0.1, amsgrad=True),
     dict(lr=0.02, betas=(0.8, 0.95), weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01), dict(lr=0.01)),
    ("AdamW", dict(lr=0.05, weight_decay=0.2, amsgrad=True, maximize=True),
     dict(lr=0.05, weight_decay=0.2, amsgrad=True, maximize=True)),
    ("SGD", dict(lr=0.1), dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
     dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True),
     dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
]


@pytest.mark.parametrize("name, ours, theirs", CASES)
def test_steps_equal_torch(name, ours, theirs):
    w, b = _pair()
    tw, tb = _torch_pair()
    opt = getattr(optim, name)([w, b], **ours)
    topt = getattr(torch.optim, name)([tw, tb], **theirs)
    for gw, gb in GRADS:
        opt((Tensor(gw), Tensor(gb)))
        tw.grad, tb.grad = torch.tensor(gw), torch.tensor(gb)
        topt.step()
        # the learning rate is a float32 Parameter (as MindSpore's): agreement to ~1e-7
        np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(b.asnumpy(), tb.detach().numpy(), rtol=1e-6, atol=1e-7)


def test_param_groups_with_their_own_settings():
    w, b = _pair()
    tw, tb = _torch_pair()
    opt = optim.AdamW([{"params": [w], "weight_decay": 0.5}, {"params": [b], "lr": 0.1}],
                      lr=0.01)
    topt = torch.optim.AdamW([{"params": [tw], "weight_decay": 0.5},
                              {"params": [tb], "lr": 0.1}], lr=0.01)
    assert [float(g["lr"].asnumpy()) for g in opt.param_groups] == pytest.approx([0.01, 0.1])
    for gw, gb in GRADS:
        opt((Tensor(gw), Tensor(gb)))
        tw.grad, tb.grad = torch.tensor(gw), torch.tensor(gb)
        topt.step()
    np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), tb.detach().numpy(), rtol=1e-6)


SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=4, eta_min=0.01)),
    ("LambdaLR", dict(lr_lambda=lambda e: 1.0 / (e + 1))),
    ("LinearLR", dict(start_factor=0.25, total_iters=4)),
    ("ConstantLR", dict(factor=0.5, total_iters=3)),
]


@pytest.mark.parametrize("name, kwargs", SCHEDULERS)
def test_schedulers_give_torchs_rates(name, kwargs):
    w, b = _pair()
    tw, tb = _torch_pair()
    opt = optim.SGD([w, b], lr=0.2)
    topt = torch.optim.SGD([tw, tb], lr=0.2)
    sched = getattr(optim.lr_scheduler, name)(opt, **kwargs)
    tsched = getattr(torch.optim.lr_scheduler, name)(topt, **kwargs)
    for _ in range(12):
        want = tsched.get_last_lr()[0]
        assert float(sched.get_last_lr()[0].asnumpy()) == pytest.approx(want, rel=1e-6)
        assert float(opt.param_groups[0]["lr"].asnumpy()) == pytest.approx(want, rel=1e-6)
        opt((Tensor(GRADS[0][0]), Tensor(GRADS[0][1])))
        topt.step()
        sched.step()
        tsched.step()


def test_errors_and_a_failed_step_changes_nothing():
    w, b = _pair()
    with pytest.raises(ValueError, match="For 'AdamW', invalid 'beta1' value: 1.0"):
        optim.AdamW([w], betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="For 'SGD', invalid 'lr' value: -1"):
        optim.SGD([w], lr=-1)
    with pytest.raises(ValueError, match="nesterov momentum requires"):
        optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="'w' is in more than one group"):
        optim.Adam([{"params": [w]}, {"params": [w]}])
    opt = optim.Adam([w, b], lr=0.1)
    with pytest.raises(ValueError, match="gradient of 'b' must be a Tensor of shape"):
        opt((Tensor(GRADS[0][0]), Tensor(np.ones(3))))
    np.testing.assert_array_equal(w.asnumpy(), W0)
    assert opt.step_count() == 0
    with pytest.raises(TypeError, match="'optimizer' must be an experimental optim Optimizer"):
        optim.lr_scheduler.StepLR(object(), 2)
    assert math.isclose(float(opt.param_groups[0]["lr"].asnumpy()), 0.1, rel_tol=1e-7)
