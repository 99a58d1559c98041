"""The compiled graph runner (mindlite/jit/kernel_graph.py, memory_plan.py, _C.GraphRunner):
what lowers, results equal to the interpreter and eager bit for bit (MLP, LeNet, elementwise
chains, provider and Custom kernels), results never changed by a later run, Parameters read
live and updated in place, threads, the grad recorder, errors."""
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import nn, ops
from mindlite.jit import api as jit_api
from mindlite.jit import cell_graph
from mindlite.jit import kernel_graph as kgm
from mindlite.kernels import registry
from models import LeNet


def _program(jf, *args):
    return jf.compiled(args, {})._program


def _interpreted(monkeypatch, fn, *args):
    with monkeypatch.context() as m:
        m.setattr(kgm, "ENABLED", False)
        return fn(*args)


def _same(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def _lenet():
    return LeNet(image=28, hidden=(120,))


def _mlp(width=32, depth=4):
    return nn.SequentialCell([nn.Dense(width, width, activation="relu") for _ in range(depth)])


@pytest.mark.parametrize("make,shape", [(_mlp, (16, 32)), (_lenet, (2, 1, 28, 28)),
                                        (_lenet, (1, 1, 28, 28))])
def test_networks_equal_eager_and_the_interpreter(monkeypatch, make, shape):
    net = make()
    x = ms.Tensor(np.random.default_rng(0).normal(size=shape).astype(np.float32))
    eager = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = net(x)
        again = net(x)
        interp = _interpreted(monkeypatch, net, x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    prog = cell_graph._CELL_JIT[net].compiled((net, x), {})._program
    assert prog.runner is not None, prog.reason
    assert all(s.kind != kgm.PRIM for s in prog.kg.steps)     # every op a kernel step
    _same(got, eager)
    _same(got, interp)
    _same(again, eager)
    assert not np.shares_memory(got.asnumpy(), again.asnumpy())


def _half(t):
    return t * 0.5


def _minus_one(t):
    return t - 1


def _twice(t):
    return 2.0 * t


_UNARY = [ops.relu, ops.tanh, ops.neg, ops.sigmoid, ops.exp, _half, _minus_one, _twice,
          ops.square]
_BINARY = [ops.add, ops.mul, ops.sub, ops.maximum, ops.minimum]


@settings(deadline=None, max_examples=25)
@given(st.lists(st.tuples(st.integers(0, 13), st.integers(0, 99)), min_size=1, max_size=12),
       st.sampled_from([(3,), (2, 5), (4, 1, 3)]), st.sampled_from([np.float32, np.float64]))
def test_elementwise_chains_equal_the_interpreter(chain, shape, dtype):
    def fn(x, y):
        vals = [x, y]
        for op, pick in chain:
            a, b = vals[pick % len(vals)], vals[(pick // 7) % len(vals)]
            vals.append(_UNARY[op](a) if op < len(_UNARY) else _BINARY[op - len(_UNARY)](a, b))
        return vals[-1], vals[len(vals) // 2]
    rng = np.random.default_rng(len(chain))
    x, y = (ms.Tensor(rng.normal(size=shape).astype(dtype)) for _ in range(2))
    f = ms.jit(fn)
    got = f(x, y)
    prog = _program(f, x, y)
    assert prog.runner is not None, prog.reason
    kgm.ENABLED = False
    try:
        want = f(x, y)
    finally:
        kgm.ENABLED = True
    _same(got, want)
    _same(got, fn(x, y))                                   # eager


def test_results_are_never_overwritten_by_a_later_run():
    @ms.jit
    def f(x):
        y = ops.relu(x * 2 + 1)
        return y, ops.reshape(y, (-1,)), x
    x1 = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    x2 = ms.Tensor(-np.ones((2, 3), np.float32))
    a = f(x1)
    keep = [t.asnumpy().copy() for t in a[:2]]
    b = f(x2)
    assert a[2] is x1 and b[2] is x2                      # an input returned as itself
    for t, k in zip(a[:2], keep):
        np.testing.assert_array_equal(t.asnumpy(), k)
    assert np.shares_memory(a[0].asnumpy(), a[1].asnumpy())   # the view of the result
    assert not np.shares_memory(a[0].asnumpy(), b[0].asnumpy())
    assert _program(f, x1).runner is not None


class Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
        self.total = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="total")

    def construct(self, x):
        ops.assign_add(self.total, x)
        y = x * self.w + self.total            # reads total after the in-place update
        ops.assign(self.w, y)
        return y * self.w


def test_parameters_are_read_live_and_updated_in_place_inside_the_graph(monkeypatch):
    x = ms.Tensor(np.array([1.0, -2.0, 0.5], np.float32))
    nets = [Scaled(), Scaled()]
    outs = []
    for i, net in enumerate(nets):
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            with monkeypatch.context() as m:
                m.setattr(kgm, "ENABLED", i == 0)
                outs.append([net(x).asnumpy() for _ in range(3)])
                net.w.set_data(ms.Tensor(np.full(3, 2.0, np.float32)))
                outs[-1].append(net(x).asnumpy())
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    prog = cell_graph._CELL_JIT[nets[0]].compiled((nets[0], x), {})._program
    assert prog.runner is not None, prog.reason
    # the writes are kernel steps that own the written Parameters first (copy-on-write)
    written = {s.prim.name: s.own for s in prog.kg.steps if s.own}
    assert set(written) == {"AssignAdd", "Assign"}
    assert all(s.kind == kgm.ALLOC for s in prog.kg.steps if s.own)
    assert not [s for s in prog.kg.steps if s.kind == kgm.PRIM]
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(nets[0].w.asnumpy(), nets[1].w.asnumpy())
    np.testing.assert_array_equal(nets[0].total.asnumpy(), nets[1].total.asnumpy())


def test_in_place_steps_leave_live_views_of_a_parameter_unchanged():
    """A view taken of a Parameter before a compiled step writes it keeps its values (the
    step gives the Parameter a private array first), and the write still reaches the
    Parameter; with no view alive the Parameter keeps its own array."""
    x = ms.Tensor(np.array([1.0, -2.0, 0.5], np.float32))
    net = Scaled()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net(x)
        prog = cell_graph._CELL_JIT[net].compiled((net, x), {})._program
        assert prog.runner is not None, prog.reason
        before = net.total.asnumpy().copy()
        array = net.total._arr
        net(x)
        assert net.total._arr is array                   # no view alive: written in place
        view = ops.reshape(net.total, (3, 1))            # a view sharing total's memory
        kept = view.asnumpy().copy()
        net(x)
        after = net.total.asnumpy().copy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(view.asnumpy(), kept)
    np.testing.assert_array_equal(after, before + 2 * x.asnumpy())


@pytest.fixture
def clean_registry():
    registry.load_builtin_kernels()
    kernels = {k: list(v) for k, v in registry.KERNELS.items()}
    yield
    registry.KERNELS.clear()
    registry.KERNELS.update(kernels)
    registry.notify()


def test_provider_and_custom_kernels_run_in_the_graph(clean_registry):
    calls = []

    def vendor_mul(x, y, out):
        calls.append("mul")
        np.multiply(x, y, out=out)
    ms.register_kernel("Mul", provider="vendor", dtypes=(ms.float32,), priority=900,
                       kernel=vendor_mul)
    custom = ops.Custom(lambda a, out: np.subtract(a * a, a, out=out),
                        out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")

    @ms.jit
    def f(x):
        return custom(x * x) + 1
    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    got = f(x).asnumpy()
    prog = _program(f, x)
    assert prog.runner is not None, prog.reason
    kinds = {s.prim.name: (s.kind, s.kernel.provider) for s in prog.kg.steps}
    assert kinds["Mul"] == (kgm.KERNEL, "vendor")
    assert kinds[custom.name][0] == kgm.KERNEL
    f(x)
    assert calls == ["mul", "mul"]
    np.testing.assert_array_equal(got, (custom(x * x) + 1).asnumpy())
    ms.register_kernel("Mul", provider="other", dtypes=(ms.float32,), priority=999,
                       kernel=lambda a, b, out: np.multiply(a, b, out=out))
    f(x)                                              # a new registration re-lowers
    assert calls == ["mul", "mul", "mul"]             # (the eager custom call above)
    assert {s.prim.name: s.kernel.provider for s in _program(f, x).kg.steps}["Mul"] == "other"


def test_two_threads_never_share_buffers():
    w = ms.Tensor(np.random.default_rng(1).normal(size=(192, 192)).astype(np.float32) / 8)

    @ms.jit
    def f(x):
        for _ in range(4):
            x = ops.tanh(ops.matmul(x, w)) + x
        return x
    inputs = [ms.Tensor(np.full((64, 192), k / 7, np.float32)) for k in range(4)]
    want = [f(x).asnumpy() for x in inputs]
    errors = []

    def work(k):
        for _ in range(30):
            got = f(inputs[k]).asnumpy()
            if not np.array_equal(got, want[k]):
                errors.append(k)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _program(f, inputs[0]).runner is not None


def test_the_grad_recorder_runs_the_interpreter(monkeypatch):
    net = _mlp(8, 2)
    x = ms.Tensor(np.ones((2, 8), np.float32))
    used = []
    real = kgm.program_for
    monkeypatch.setattr(jit_api, "program_for",
                        lambda c: used.append(real(c)) or used[-1])
    want = ms.value_and_grad(lambda t: net(t).sum(), None, net.trainable_params())(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.value_and_grad(lambda t: net(t).sum(), None, net.trainable_params())(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(got[0].asnumpy(), want[0].asnumpy())
    for g, w in zip(got[1], want[1]):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())
    assert used and all(p is None for p in used)       # the tape saw every primitive


def test_control_flow_stays_on_the_interpreter_and_errors_keep_the_arena_usable():
    @ms.jit
    def branch(x):
        if x.sum() > 0:
            x = x * 2
        return x + 1
    x = ms.Tensor(np.ones(3, np.float32))
    assert branch(x).asnumpy().tolist() == [3.0, 3.0, 3.0]
    assert "control flow" in _program(branch, x).reason

    def fail(x, out):
        if x[0] < 0:
            raise ValueError("negative")
        np.multiply(x, 3, out=out)
    custom = ops.Custom(fail, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")

    @ms.jit
    def f(x):
        return custom(x + 1) - 1
    assert f(x).asnumpy().tolist() == [5.0, 5.0, 5.0]
    with pytest.raises(RuntimeError, match="negative"):
        f(ms.Tensor(-np.full(3, 5, np.float32)))
    assert f(x).asnumpy().tolist() == [5.0, 5.0, 5.0]
    assert _program(f, x).runner is not None
