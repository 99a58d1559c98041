"""mindlite.mint (MindSpore 2.10's mint and its submodules nn, nn.functional, optim, linalg,
special, distributed) against PyTorch, whose signatures mint follows: functions (tuple returns,
int64 indices, dim / keepdim / correction), layers with copied weights, optimizers over
several steps with the same gradients, lazy loading, single-process distributed semantics."""
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, mint

from gradcheck import check_grad
from helpers import arrays, shapes, tensor

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 4))


def t(a):
    return torch.from_numpy(np.asarray(a))


def same(got, want, rtol=1e-6, atol=1e-7):
    if isinstance(want, torch.Tensor):
        want = want.detach().numpy()
    got = got.asnumpy()
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def test_mint_loads_lazily():
    code = ("import sys, mindlite; assert 'mindlite.mint._elementwise' not in sys.modules; "
            "assert 'mindlite.mint.nn._layers_basic' not in sys.modules; "
            "mindlite.mint.add; assert 'mindlite.mint._elementwise' in sys.modules; "
            "assert mindlite.mint.nn.functional.relu and mindlite.mint.optim.SGD")
    subprocess.run([sys.executable, "-c", code], check=True)


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_reductions_and_sorting_against_torch(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    a = data.draw(arrays(np.float64, shape, allow_special=False))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keep = data.draw(st.booleans())
    x, q = tensor(a), t(a)
    for got, want in zip(mint.max(x, dim, keep), q.max(dim, keep)):
        same(got, want)
    for got, want in zip(mint.min(x, dim), q.min(dim)):
        same(got, want)
    same(mint.max(x), q.max())
    same(mint.sum(x, dim, keep), q.sum(dim, keep))
    same(mint.mean(x, dim, keep), q.mean(dim, keep))
    same(mint.prod(x, dim), q.prod(dim), rtol=1e-10)
    same(mint.amax(x, dim, keep), q.amax(dim, keep))
    same(mint.argmax(x, dim, keep), q.argmax(dim, keep))
    same(mint.argmin(x, dim), q.argmin(dim))
    same(mint.cumsum(x, dim), q.cumsum(dim))
    same(mint.logsumexp(x, dim, keep), q.logsumexp(dim, keep))
    if a.shape[dim] > 1:
        same(mint.std(x, dim, keepdim=keep), q.std(dim, keepdim=keep), rtol=1e-10)
        same(mint.var(x, dim, correction=0), q.var(dim, correction=0), rtol=1e-10)
    for got, want in zip(mint.sort(x, dim=dim, descending=True), q.sort(dim, descending=True)):
        same(got, want)
    same(mint.argsort(x, dim), q.argsort(dim=dim, stable=True))
    k = data.draw(st.integers(1, a.shape[dim]))
    values, index = mint.topk(x, k, dim)
    same(values, q.topk(k, dim).values)
    assert index.dtype == ms.int64
    same(mint.gather(x, dim, index), q.topk(k, dim).values)
    for got, want in zip(mint.cummax(x, dim), q.cummax(dim)):
        same(got, want)
    same(mint.median(x), q.median())
    for got, want in zip(mint.median(x, dim, keep), q.median(dim, keep)):
        same(got, want)
    same(mint.count_nonzero(x, dim), q.count_nonzero(dim))


def test_elementwise_and_creation_against_torch():
    x, y, q, r = Tensor(X), Tensor(X[::-1].copy()), t(X), t(X[::-1].copy())
    same(mint.add(x, y, alpha=2.5), torch.add(q, r, alpha=2.5))
    same(mint.sub(x, y, alpha=0.5), torch.sub(q, r, alpha=0.5))
    same(mint.div(x, y, rounding_mode="floor"), torch.div(q, r, rounding_mode="floor"))
    same(mint.clamp(x, -0.5, 0.5), q.clamp(-0.5, 0.5))
    same(mint.where(x > 0, x, y), torch.where(q > 0, q, r))
    for got, want in zip(mint.where(x > 0), torch.where(q > 0)):
        same(got, want)
    same(mint.lerp(x, y, 0.3), torch.lerp(q, r, 0.3))
    same(mint.addcdiv(x, y, x + 3, value=2), torch.addcdiv(q, r, q + 3, value=2))
    same(mint.round(x, decimals=1), q.round(decimals=1))
    same(mint.logaddexp(x, y), torch.logaddexp(q, r))
    same(mint.float_power(x, 2), torch.float_power(q, 2))
    same(mint.arange(1, 7, 2), torch.arange(1, 7, 2))
    same(mint.zeros((2, 3)), torch.zeros(2, 3))
    same(mint.full((2,), 1.5), torch.full((2,), 1.5))
    same(mint.full_like(x, 7), torch.full_like(q, 7))
    same(mint.eye(2, 3), torch.eye(2, 3))
    assert mint.empty(2, 3).shape == (2, 3) and mint.empty((2,), dtype=ms.int32).dtype == ms.int32
    same(mint.special.erfc(x), torch.special.erfc(q))
    same(mint.special.exp2(x), torch.special.exp2(q))
    same(mint.special.log_softmax(x, 1), TF.log_softmax(q, 1))
    same(mint.linalg.vector_norm(x, 3, 1), torch.linalg.vector_norm(q, 3, 1))
    same(mint.linalg.matrix_norm(x, "nuc"), torch.linalg.matrix_norm(q, "nuc"), rtol=1e-10)
    same(mint.linalg.inv(Tensor(X[:3, :3])), torch.linalg.inv(q[:3, :3]), rtol=1e-10)


def test_shape_and_index_functions_against_torch():
    x, q = Tensor(X), t(X)
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    same(mint.gather(x, 1, Tensor(idx)), q.gather(1, t(idx)))
    uniq = np.array([[0, 3], [1, 2], [2, 0]])
    src = RNG.standard_normal((3, 2))
    same(mint.scatter(x, 1, Tensor(uniq), Tensor(src)), q.scatter(1, t(uniq), t(src)))
    same(mint.scatter(x, 1, Tensor(uniq), value=2.0), q.scatter(1, t(uniq), 2.0))
    same(mint.scatter_add(x, 1, Tensor(idx), Tensor(src)), q.scatter_add(1, t(idx), t(src)))
    i32 = np.array([0, 2], np.int32)
    same(mint.index_add(x, 0, Tensor(i32), Tensor(X[:2]), alpha=2),
         q.index_add(0, t(i32.astype(np.int64)), t(X[:2]), alpha=2))
    same(mint.index_select(x, 1, Tensor(np.array([3, 0]))),
         q.index_select(1, torch.tensor([3, 0])))
    same(mint.narrow(x, 1, 1, 2), q.narrow(1, 1, 2))
    same(mint.select(x, 1, 2), q.select(1, 2))
    for got, want in zip(mint.split(x, [1, 3], 1), q.split([1, 3], 1)):
        same(got, want)
    for got, want in zip(mint.chunk(x, 2, 1), q.chunk(2, 1)):
        same(got, want)
    same(mint.transpose(x, 0, 1), q.transpose(0, 1))
    same(mint.permute(Tensor(X[None]), (2, 0, 1)), t(X[None]).permute(2, 0, 1))
    same(mint.flatten(Tensor(X[None]), 1), t(X[None]).flatten(1))
    same(mint.squeeze(Tensor(X[None]), 0), t(X[None]).squeeze(0))
    same(mint.cat([x, x], dim=1), torch.cat([q, q], 1))
    same(mint.stack([x, x], dim=2), torch.stack([q, q], 2))
    same(mint.repeat_interleave(x, 2, 1), q.repeat_interleave(2, 1))
    same(mint.diff(x, 2, 0), q.diff(2, 0))
    same(mint.take(x, Tensor(np.array([0, -1]))), q.take(torch.tensor([0, 11])))
    same(mint.diag(Tensor(X[0])), torch.diag(q[0]))
    same(mint.diag(x, 1), torch.diag(q, 1))
    v, w = RNG.standard_normal(4), RNG.standard_normal(4)
    same(mint.outer(Tensor(v), Tensor(w)), torch.outer(t(v), t(w)))
    same(mint.dot(Tensor(v), Tensor(w)), torch.dot(t(v), t(w)))
    same(mint.mv(x, Tensor(v)), q.mv(t(v)))
    same(mint.addmm(Tensor(X[:, :3]), x, Tensor(X.T[:, :3]), beta=0.5, alpha=2),
         torch.addmm(q[:, :3], q, q.T[:, :3], beta=0.5, alpha=2))
    b1, b2 = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 5))
    same(mint.baddbmm(Tensor(np.ones((2, 3, 5))), Tensor(b1), Tensor(b2), alpha=0.5),
         torch.baddbmm(torch.ones(2, 3, 5, dtype=torch.float64), t(b1), t(b2), alpha=0.5))
    sol, a = mint.triangular_solve(Tensor(X[:3, :2]), Tensor(np.triu(X[:3, :3]) + 3 * np.eye(3)))
    want = torch.linalg.solve_triangular(t(np.triu(X[:3, :3]) + 3 * np.eye(3)), t(X[:3, :2]),
                                         upper=True)
    same(sol, want, rtol=1e-10)


def test_random_functions_shapes_and_dtypes():
    ms.set_seed(0)
    assert mint.rand(2, 3).shape == (2, 3) and mint.randn((4,)).dtype == ms.float32
    assert mint.randint(5, (2, 2)).dtype == ms.int64 and mint.randint(2, 5, (3,)).shape == (3,)
    r = mint.randint(2, 5, (200,)).asnumpy()
    assert r.min() >= 2 and r.max() < 5
    p = np.sort(mint.randperm(6).asnumpy())
    np.testing.assert_array_equal(p, np.arange(6))
    assert mint.normal(0.0, 1.0, (3, 2)).shape == (3, 2)
    assert mint.normal(Tensor(np.zeros(4)), 1.0).shape == (4,)
    b = mint.bernoulli(Tensor(np.full((100,), 0.5, np.float32))).asnumpy()
    assert set(np.unique(b)) <= {0.0, 1.0}
    assert mint.multinomial(Tensor(np.array([[0.0, 1.0]], np.float32)), 1).asnumpy()[0, 0] == 1


def test_mint_gradients():
    check_grad(lambda a, b: mint.add(a, b, alpha=2.0), X, X.T.T)
    check_grad(lambda a: mint.max(a, 1)[0], X)
    check_grad(lambda a: mint.std(a, 1, correction=1), X)
    check_grad(lambda a: mint.nn.functional.gelu(a, approximate="tanh"), X)
    check_grad(lambda a: mint.gather(a, 1, Tensor(np.array([[0, 3], [1, 1], [2, 0]]))), X)


# ---- layers ----------------------------------------------------------------------------------
def _copy_params(cell, module):
    params = dict(module.named_parameters())
    for p in cell.get_parameters():
        p.assign_value(Tensor(params[p.name].detach().numpy().astype(np.float32)))


@pytest.mark.parametrize("make", [
    lambda: (mint.nn.Linear(4, 3), torch.nn.Linear(4, 3), (2, 4)),
    lambda: (mint.nn.Conv2d(3, 4, 3, padding=1, stride=2), torch.nn.Conv2d(3, 4, 3, 2, 1),
             (2, 3, 7, 6)),
    lambda: (mint.nn.Conv1d(3, 2, 2, dilation=2), torch.nn.Conv1d(3, 2, 2, dilation=2), (2, 3, 9)),
    lambda: (mint.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1),
             torch.nn.ConvTranspose2d(3, 2, 3, 2, 1, 1), (1, 3, 4, 5)),
    lambda: (mint.nn.GroupNorm(2, 4), torch.nn.GroupNorm(2, 4), (2, 4, 3, 3)),
    lambda: (mint.nn.PReLU(3), torch.nn.PReLU(3), (2, 3, 4)),
])
def test_parametrized_layers_against_torch(make):
    cell, module, shape = make()
    module = module.float()
    _copy_params(cell, module)
    a = RNG.standard_normal(shape).astype(np.float32)
    same(cell(Tensor(a)), module(torch.from_numpy(a)), rtol=1e-5, atol=1e-5)
    names = sorted(p.name for p in cell.get_parameters())
    assert names == sorted(n for n, _ in module.named_parameters())


def test_batchnorm_training_and_eval_against_torch():
    cell, module = mint.nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    a = RNG.standard_normal((4, 3, 2, 2)).astype(np.float32)
    cell.set_train(True)
    for _ in range(2):
        same(cell(Tensor(a)), module(torch.from_numpy(a)), rtol=1e-5, atol=1e-5)
    same(cell.running_mean, module.running_mean, rtol=1e-6)
    same(cell.running_var, module.running_var, rtol=1e-5)
    assert int(cell.num_batches_tracked.asnumpy()) == 2
    cell.set_train(False)
    module.eval()
    same(cell(Tensor(a)), module(torch.from_numpy(a)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cell, module", [
    (mint.nn.ReLU(), torch.nn.ReLU()), (mint.nn.GELU("tanh"), torch.nn.GELU("tanh")),
    (mint.nn.ELU(0.5), torch.nn.ELU(0.5)),
    (mint.nn.Hardtanh(-0.5, 2.0), torch.nn.Hardtanh(-0.5, 2)),
    (mint.nn.Softmax(1), torch.nn.Softmax(1)), (mint.nn.LogSoftmax(0), torch.nn.LogSoftmax(0)),
    (mint.nn.Threshold(0.1, 20.0), torch.nn.Threshold(0.1, 20.0)),
    (mint.nn.Hardshrink(0.3), torch.nn.Hardshrink(0.3)), (mint.nn.Mish(), torch.nn.Mish()),
    (mint.nn.ReflectionPad2d(1), torch.nn.ReflectionPad2d(1)),
    (mint.nn.ReplicationPad2d((1, 2, 0, 1)), torch.nn.ReplicationPad2d((1, 2, 0, 1))),
    (mint.nn.ConstantPad2d((1, 0, 2, 1), 3.5), torch.nn.ConstantPad2d((1, 0, 2, 1), 3.5)),
    (mint.nn.ZeroPad2d(2), torch.nn.ZeroPad2d(2)), (mint.nn.Flatten(), torch.nn.Flatten()),
    (mint.nn.AdaptiveAvgPool2d((2, 3)), torch.nn.AdaptiveAvgPool2d((2, 3))),
    (mint.nn.AvgPool2d(2, 1, 1), torch.nn.AvgPool2d(2, 1, 1)),
    (mint.nn.Upsample(scale_factor=2, mode="bilinear"),
     torch.nn.Upsample(scale_factor=2, mode="bilinear")),
    (mint.nn.Unfold(2, padding=1), torch.nn.Unfold(2, padding=1)),
    (mint.nn.PixelShuffle(2), torch.nn.PixelShuffle(2)),
])
def test_parameter_free_layers_against_torch(cell, module):
    a = RNG.standard_normal((2, 4, 5, 6)).astype(np.float32)
    same(cell(Tensor(a)), module(torch.from_numpy(a)), rtol=1e-5, atol=1e-6)


def test_losses_against_torch():
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.uniform(0.05, 0.95, (3, 4)).astype(np.float32)
    q, r = torch.from_numpy(a), torch.from_numpy(b)
    same(mint.nn.BCEWithLogitsLoss()(Tensor(a), Tensor(b)),
         torch.nn.BCEWithLogitsLoss()(q, r), rtol=1e-5)
    same(mint.nn.BCELoss(reduction="sum")(Tensor(b), Tensor(b)),
         torch.nn.BCELoss(reduction="sum")(r, r), rtol=1e-5)
    same(mint.nn.SmoothL1Loss(beta=0.5)(Tensor(a), Tensor(b)),
         torch.nn.SmoothL1Loss(beta=0.5)(q, r), rtol=1e-5)
    lp = TF.log_softmax(q, 1)
    same(mint.nn.KLDivLoss("batchmean")(Tensor(lp.numpy()), Tensor(b)),
         torch.nn.KLDivLoss(reduction="batchmean")(lp, r), rtol=1e-5)
    same(mint.nn.L1Loss()(Tensor(a), Tensor(b)), torch.nn.L1Loss()(q, r), rtol=1e-6)
    same(mint.nn.functional.cross_entropy(Tensor(a), Tensor(np.array([1, 0, 3]))),
         TF.cross_entropy(q, torch.tensor([1, 0, 3])), rtol=1e-5)
    same(mint.nn.functional.one_hot(Tensor(np.array([2, 0]))), TF.one_hot(torch.tensor([2, 0])))


# ---- optimizers ------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda p: (mint.optim.SGD(p, 0.1, momentum=0.9, weight_decay=0.01, nesterov=True),
               lambda q: torch.optim.SGD(q, 0.1, momentum=0.9, weight_decay=0.01, nesterov=True)),
    lambda p: (mint.optim.SGD(p, 0.05, momentum=0.5, dampening=0.1),
               lambda q: torch.optim.SGD(q, 0.05, momentum=0.5, dampening=0.1)),
    lambda p: (mint.optim.Adam(p, 0.01, weight_decay=0.1, amsgrad=True),
               lambda q: torch.optim.Adam(q, 0.01, weight_decay=0.1, amsgrad=True)),
    lambda p: (mint.optim.AdamW(p, 0.01, betas=(0.8, 0.9)),
               lambda q: torch.optim.AdamW(q, 0.01, betas=(0.8, 0.9))),
    lambda p: (mint.optim.Adam(p, 0.01, maximize=True),
               lambda q: torch.optim.Adam(q, 0.01, maximize=True)),
])
def test_optimizers_against_torch(make):
    w0 = RNG.standard_normal((3, 2))
    p = ms.Parameter(Tensor(w0), name="w")
    opt, make_torch = make([p])
    q = torch.nn.Parameter(torch.from_numpy(w0.copy()))
    topt = make_torch([q])
    for step in range(4):
        g = RNG.standard_normal((3, 2))
        opt((Tensor(g),))
        q.grad = torch.from_numpy(g)
        topt.step()
        np.testing.assert_allclose(p.asnumpy(), q.detach().numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=f"step {step}")
    with pytest.raises(ValueError, match="gradient"):
        opt((Tensor(np.ones((2, 2))),))


def test_optimizer_param_groups_and_training_step():
    net = mint.nn.Linear(4, 1)
    opt = mint.optim.SGD([{"params": [net.weight], "lr": 0.1}, {"params": [net.bias]}], lr=0.0)
    x = Tensor(RNG.standard_normal((8, 4)).astype(np.float32))
    y = Tensor(RNG.standard_normal((8, 1)).astype(np.float32))
    loss_fn = mint.nn.MSELoss()
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    b0 = net.bias.asnumpy().copy()
    losses = []
    for _ in range(5):
        loss, grads = grad_fn(x, y)
        opt(grads)
        losses.append(float(loss.asnumpy()))
    assert losses[-1] < losses[0]
    np.testing.assert_array_equal(net.bias.asnumpy(), b0)           # its group's lr is 0


# ---- distributed (one process) -----------------------------------------------------------------
def test_distributed_single_process():
    d = mint.distributed
    assert d.get_rank() == 0 and d.get_world_size() == 1 and not d.is_initialized()
    a = Tensor(np.array([1.0, 2.0], np.float32))
    assert d.all_reduce(a) is None and a.asnumpy().tolist() == [1.0, 2.0]
    assert d.all_reduce(a, async_op=True).wait()
    out = [Tensor(np.zeros(2, np.float32))]
    d.all_gather(out, a)
    np.testing.assert_array_equal(out[0].asnumpy(), a.asnumpy())
    buf = Tensor(np.zeros(2, np.float32))
    d.all_gather_into_tensor(buf, a)
    np.testing.assert_array_equal(buf.asnumpy(), a.asnumpy())
    objs = [None]
    d.all_gather_object(objs, {"k": 1})
    assert objs == [{"k": 1}]
    assert d.get_process_group_ranks() == [0] and d.barrier() is None
