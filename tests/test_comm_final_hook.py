"""The final-gradient hook of the eager backward (pynative/grad.py FINAL_HOOKS), which
nn.DistributedGradReducer uses to start gradient reductions during backward (issue 18).
In one process, no MPI: a recording hook checks that each followed leaf is reported once,
after its last tape use, with its full gradient (the very tensor backward returns), that
an unused leaf is never reported, and that only the outermost backward pass is followed.
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Parameter, Tensor, ops
from mindlite.pynative import grad as grad_mod


class Recorder:
    """A final-gradient hook following `params`: records (name, grad tensor, names of the
    followed leaves whose gradient existed then)."""

    def __init__(self, params):
        self.names = {id(p): p.name for p in params}
        self.calls, self.starts = [], 0

    def start(self, tape):
        self.starts += 1
        ids = {id(t) for t in tape.keep if id(t) in self.names}
        return (ids, self.on_final) if ids else None

    def on_final(self, leaf_ids, grads):
        for k in leaf_ids:
            self.calls.append((self.names[k], grads.get(k)))


def _hooked(params, run):
    rec = Recorder(params)
    grad_mod.FINAL_HOOKS.add(rec)
    try:
        return rec, run()
    finally:
        grad_mod.FINAL_HOOKS.discard(rec)


def _params(n, size=3):
    rng = np.random.RandomState(n)
    return [Parameter(Tensor(rng.randn(size, size).astype(np.float32)), name=f"w{i}")
            for i in range(n)]


def test_leaves_are_reported_in_backward_order_with_their_final_gradient():
    w0, w1, w2, unused = _params(4)
    x = Tensor(np.ones((2, 3), np.float32))

    def f(x):
        h = ops.relu(ops.matmul(x, w0))
        h = ops.matmul(h, w1)
        h = ops.matmul(ops.tanh(h), w1)          # w1 used twice: final after its first use
        return ops.sum(ops.matmul(h, w2))
    weights = [w0, w1, w2, unused]
    rec, (_, grads) = _hooked(weights, lambda: ms.value_and_grad(f, None, weights)(x))
    assert [name for name, _ in rec.calls] == ["w2", "w1", "w0"]
    assert rec.starts == 1
    final = dict(zip(["w0", "w1", "w2"], grads[:3]))
    for name, g in rec.calls:
        assert g is final[name]                  # the tensor backward returns: nothing added
    assert not np.any(grads[3].asnumpy())        # unused: zeros, never reported


def test_no_hook_no_extra_walk(monkeypatch):
    def boom(*a):
        raise AssertionError("_final_walk ran without a hook")
    monkeypatch.setattr(grad_mod, "_final_walk", boom)
    assert not grad_mod.FINAL_HOOKS
    w = _params(1)[0]
    g = ms.grad(lambda x: ops.sum(ops.matmul(x, w)), None, [w])(
        Tensor(np.ones((2, 3), np.float32)))
    np.testing.assert_allclose(g[0].asnumpy(), np.full((3, 3), 2.0))


def test_only_the_outermost_backward_is_followed():
    w = _params(1)[0]
    x = Tensor(np.ones((2, 3), np.float32))

    def inner(x):                               # a backward pass while the outer tape is open
        gx = ms.grad(lambda t: ops.sum(ops.matmul(t, w) ** 2))(x)
        return ops.sum(gx * x)
    rec, g = _hooked([w], lambda: ms.grad(inner, None, [w])(x))
    assert rec.starts == 1 and [n for n, _ in rec.calls] == ["w0"]
    assert rec.calls[0][1] is g[0]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["mul", "add", "matmul"])),
                min_size=1, max_size=8))
def test_reported_gradients_are_the_final_ones(program):
    """Any chain of ops over 4 parameters (some used several times, some never): each used
    parameter is reported exactly once, after every use, with the tensor backward returns."""
    params = _params(4)
    x = Tensor(np.full((3, 3), 0.5, np.float32))

    def f(x):
        h = x
        for i, op in program:
            h = {"mul": ops.mul, "add": ops.add, "matmul": ops.matmul}[op](h, params[i])
        return ops.sum(h)
    rec, (_, grads) = _hooked(params, lambda: ms.value_and_grad(f, None, params)(x))
    used = {f"w{i}" for i, _ in program}
    names = [n for n, _ in rec.calls]
    assert sorted(names) == sorted(used)
    first_use = {}
    for k, (i, _) in enumerate(program):
        first_use.setdefault(f"w{i}", k)
    assert names == sorted(used, key=lambda n: -first_use[n])   # backward order
    by_name = {f"w{i}": g for i, g in enumerate(grads)}
    for name, g in rec.calls:
        assert g is by_name[name]
