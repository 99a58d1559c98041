"""Mixed precision: Cell.to_float (inputs and Parameters cast at use, Parameters stay float32,
gradients float32), amp.auto_mixed_precision O0-O3 as MindSpore 2.10 (output dtypes, the
wrapper, black/white lists), loss-scale managers, update cells and
TrainOneStepWithLossScaleCell (overflow skips the update and shrinks the scale), the functional
loss scalers."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, amp, nn

X = Tensor(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))


def _net():
    ms.set_seed(0)
    return nn.SequentialCell([nn.Dense(3, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Dense(5, 2)])


def test_to_float_casts_inputs_and_parameters_at_use_only():
    net = _net()
    want = net(X).asnumpy()
    net.to_float(ms.float16)
    out = net(X)
    assert out.dtype == ms.float16                     # as MindSpore's PyNative
    assert all(p.dtype == ms.float32 for p in net.get_parameters())
    assert isinstance(net[0].weight, ms.Parameter)     # outside a call: the Parameter itself
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), want, rtol=2e-2, atol=2e-2)
    grads = ms.grad(lambda t: net(t).astype(ms.float32).sum(), None,
                    net.trainable_params())(X)
    assert all(g.dtype == ms.float32 for g in grads)
    net.to_float(ms.float32)
    assert net(X).dtype == ms.float32


@pytest.mark.parametrize("level, wrapped", [("O0", False), ("O1", False), ("O2", True),
                                            ("O3", True)])
def test_auto_mixed_precision_levels(level, wrapped):
    net = _net()
    want = net(X).asnumpy()
    mixed = amp.auto_mixed_precision(net, level)
    assert (mixed is not net) == wrapped
    out = mixed(X)
    assert out.dtype == ms.float32                     # every level returns float32 here
    assert all(p.dtype == ms.float32 for p in net.get_parameters())
    tol = 0 if level == "O0" else 3e-2
    np.testing.assert_allclose(out.asnumpy(), want, rtol=tol, atol=tol)
    if level == "O2":
        assert net[1]._mp_dtype == ms.float32 and net[0]._mp_dtype == ms.float16
    if level == "O1":
        assert net[0]._mp_dtype == ms.float16 and net[1]._mp_dtype is None


def test_loss_scale_managers():
    fixed = amp.FixedLossScaleManager(64.0)
    assert fixed.get_loss_scale() == 64.0 and fixed.get_drop_overflow_update()
    assert isinstance(fixed.get_update_cell(), nn.FixedLossScaleUpdateCell)
    assert amp.FixedLossScaleManager(8.0, False).get_update_cell() is None
    dyn = amp.DynamicLossScaleManager(1024, 2, 3)
    dyn.update_loss_scale(True)
    assert dyn.get_loss_scale() == 512
    for _ in range(3):
        dyn.update_loss_scale(False)
    assert dyn.get_loss_scale() == 1024
    with pytest.raises(ValueError, match="'scale_factor' must be > 1"):
        amp.DynamicLossScaleManager(scale_factor=1)


def test_train_one_step_with_loss_scale_skips_overflow_and_adjusts():
    net = nn.Dense(3, 1)
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    opt = nn.SGD(net.trainable_params(), 0.01)
    update = amp.DynamicLossScaleManager(2.0 ** 10, 2, 2).get_update_cell()
    step = nn.TrainOneStepWithLossScaleCell(loss_net, opt, update)
    y = Tensor(np.ones((4, 1), np.float32))
    before = net.weight.asnumpy().copy()
    loss, overflow, scale = step(X, y)
    assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 1024.0
    assert not np.array_equal(net.weight.asnumpy(), before)           # updated
    step(X, y)                                                         # 2 clean steps: grows
    assert float(step.scale_sense.asnumpy()) == 2048.0
    after = net.weight.asnumpy().copy()
    big = Tensor(np.full((4, 3), 3e38, np.float32))                    # overflowing gradients
    loss, overflow, _ = step(big, y)
    assert bool(overflow.asnumpy())
    np.testing.assert_array_equal(net.weight.asnumpy(), after)        # skipped
    assert float(step.scale_sense.asnumpy()) == 1024.0                 # shrunk


def test_functional_loss_scalers():
    scaler = amp.DynamicLossScaler(1024, 2, 2)
    g = (Tensor(np.array([2.0], np.float32)),)
    assert float(scaler.scale(Tensor(np.float32(1.0))).asnumpy()) == 1024.0
    assert float(scaler.unscale(g)[0].asnumpy()[0]) == 2.0 / 1024
    assert bool(amp.all_finite(g).asnumpy())
    assert not bool(amp.all_finite((Tensor(np.array([np.inf], np.float32)),)).asnumpy())
    scaler.adjust(amp.all_finite((Tensor(np.array([np.nan], np.float32)),)))
    assert float(scaler.scale_value.asnumpy()) == 512.0
    scaler.adjust(True)
    scaler.adjust(True)
    assert float(scaler.scale_value.asnumpy()) == 1024.0
    assert amp.StaticLossScaler(8).adjust(False) is False


def test_errors():
    with pytest.raises(ValueError, match="'amp_level' must be one of O0, O1, O2, O3"):
        amp.auto_mixed_precision(_net(), "O4")
    with pytest.raises(TypeError, match="'network' must be a Cell"):
        amp.auto_mixed_precision(lambda x: x, "O2")
    with pytest.raises(ValueError, match="'dst_type' must be a float type"):
        _net().to_float(ms.int32)
