"""experimental.optim's Adadelta, Adagrad, RMSprop, Rprop, ASGD, Adamax, RAdam and NAdam
against torch.optim step by step (float64 parameters; the learning rate is a float32
Parameter, as MindSpore's, so agreement is to ~1e-7)."""
import numpy as np
import pytest

from mindlite import Parameter, Tensor
from mindlite.experimental import optim

torch = pytest.importorskip("torch", reason="torch.optim is the reference")

rng = np.random.default_rng(1)
W0 = rng.standard_normal((3, 4))
B0 = rng.standard_normal(4)
GRADS = [(rng.standard_normal((3, 4)), rng.standard_normal(4)) for _ in range(7)]
GRADS[3] = (-GRADS[2][0], GRADS[2][1])          # sign flips, for Rprop's shrinking branch

CASES = [
    ("Adadelta", dict(lr=1.0)), ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1,
                                                  maximize=True)),
    ("Adagrad", dict(lr=0.1)), ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1,
                                                initial_accumulator_value=0.2)),
    ("RMSprop", dict(lr=0.01)), ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True,
                                                 weight_decay=0.05)),
    ("RMSprop", dict(lr=0.02, alpha=0.9, maximize=True)),
    ("Rprop", dict(lr=0.01)), ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2),
                                             maximize=True)),
    ("ASGD", dict(lr=0.05)), ("ASGD", dict(lr=0.05, lambd=0.1, alpha=0.5, t0=2,
                                           weight_decay=0.1)),
    ("Adamax", dict(lr=0.01)), ("Adamax", dict(lr=0.02, betas=(0.8, 0.9), weight_decay=0.1,
                                               maximize=True)),
    ("RAdam", dict(lr=0.01)), ("RAdam", dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1)),
    ("NAdam", dict(lr=0.01)), ("NAdam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1,
                                             momentum_decay=0.01)),
]


@pytest.mark.parametrize("name, kw", CASES)
def test_steps_equal_torch(name, kw):
    w = Parameter(Tensor(W0.copy()), name="w")
    b = Parameter(Tensor(B0.copy()), name="b")
    tw, tb = torch.nn.Parameter(torch.tensor(W0)), torch.nn.Parameter(torch.tensor(B0))
    opt = getattr(optim, name)([w, b], **kw)
    topt = getattr(torch.optim, name)([tw, tb], **kw)
    for gw, gb in GRADS:
        opt((Tensor(gw), Tensor(gb)))
        tw.grad, tb.grad = torch.tensor(gw), torch.tensor(gb)
        topt.step()
        np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(b.asnumpy(), tb.detach().numpy(), rtol=1e-6, atol=1e-7)
    if name == "ASGD":
        np.testing.assert_allclose(opt.ax[0].asnumpy(), topt.state[tw]["ax"].numpy(),
                                   rtol=1e-6, atol=1e-7)


def test_argument_errors_name_the_optimizer():
    w = Parameter(Tensor(W0.copy()), name="w")
    with pytest.raises(ValueError, match="'Rprop'.*'etas'"):
        optim.Rprop([w], etas=(1.5, 0.5))
    with pytest.raises(TypeError, match="'RMSprop'.*'centered'"):
        optim.RMSprop([w], centered=1)
    with pytest.raises(ValueError, match="'RAdam'.*'betas'"):
        optim.RAdam([w], betas=(0.9,))


def test_scheduler_changes_the_rate():
    w = Parameter(Tensor(W0.copy()), name="w")
    opt = optim.Adagrad([w], lr=0.1)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    opt((Tensor(GRADS[0][0]),))
    sched.step()
    assert float(opt.param_groups[0]["lr"].asnumpy()) == pytest.approx(0.05)
