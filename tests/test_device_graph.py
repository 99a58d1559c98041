"""GraphCompiler and GraphScheduler (issue 17): heterogeneous split with copies on the DEMO
C++ plugin, per-device memory plans, a jit'd MLP and a GRAPH_MODE training step equal to CPU,
the actor scheduler equal to the sequential runner."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import nn, ops
from mindlite.backend import graph_compiler
from mindlite.backend.graph_compiler import compile_graph
from mindlite.backend.graph_scheduler import GraphScheduler, sequential_order_ok
from mindlite.device.base import PluginError
from mindlite.jit.memory_plan import check_plan
from device_helpers import assert_trained_alike, plugin_mlp, rand_tensor as _t, train_steps
from test_device import demo  # noqa: F401  (the DEMO plugin fixture)


@pytest.fixture(scope="module")
def scheduler():
    s = GraphScheduler(2)
    yield s
    s.close()


@pytest.fixture
def on_demo(demo):  # noqa: F811
    ms.set_context(device_target="DEMO")
    yield demo
    ms.set_context(device_target="CPU", device_fallback=False, mode=ms.PYNATIVE_MODE)
    demo[0].fail_launches(demo[1], False)


@ms.jit
def mixed(x, w1, w2):
    a = ops.relu(ops.matmul(x, w1))
    b = ops.exp(a) + a                    # Exp has no DEMO kernel: CPU, copies around it
    return ops.matmul(b, w2), a * 2


def test_heterogeneous_split_and_copies(on_demo):
    mod, path = on_demo
    rng = np.random.default_rng(0)
    args = [_t(rng, 4, 8), _t(rng, 8, 8), _t(rng, 8, 3)]
    ms.set_context(device_target="CPU")
    ref = [r.asnumpy() for r in mixed(*args)]
    ms.set_context(device_target="DEMO")
    cg = compile_graph(mixed.graph(*args))
    where = {s.name: s.device for s in cg.steps if s.kind not in ("h2d", "d2h")}
    assert where == {"MatMul": "DEMO", "ReLU": "DEMO", "Add": "DEMO", "Exp": "CPU",
                     "Mul": "CPU"}
    kinds = [s.kind for s in cg.copies()]
    # x, w1, exp(a) and w2 go to DEMO; relu's result and the last MatMul's come back
    assert kinds.count("h2d") == 4 and kinds.count("d2h") == 2
    for s in cg.steps:                        # every value is read where it lives
        need = s.device if s.kind in ("device", "d2h") else "CPU"
        assert all(cg.loc[v] == need for v in s.ins), s
        made = "CPU" if s.kind in ("d2h", "kernel", "alloc", "prim") else s.device
        assert all(cg.loc[v] == made for v in s.outs), s
    before = mod.stats(path)
    out = cg.run(args)
    after = mod.stats(path)
    assert after["h2d"] - before["h2d"] == 4 and after["d2h"] - before["d2h"] == 2
    assert after["launches"] - before["launches"] == 4
    for o, r in zip(out, ref):
        np.testing.assert_allclose(o.asnumpy(), r, rtol=1e-5, atol=1e-5)
    report = cg.memory_report()
    assert set(report) == {"CPU", "DEMO"}
    for dev, p in cg.plans.items():
        check_plan(p.view, p)
        assert report[dev]["bytes"] <= report[dev]["unplanned_bytes"]
    assert sequential_order_ok(cg)


def _mlp():
    return plugin_mlp(nn.ReLU)


def test_jit_mlp_equals_cpu(on_demo):
    mod, path = on_demo
    rng = np.random.default_rng(2)
    x = _t(rng, 6, 8)
    net = _mlp()
    fwd = ms.jit(lambda a: net(a))
    ms.set_context(device_target="CPU")
    ref = fwd(x).asnumpy()
    ms.set_context(device_target="DEMO")
    before = mod.stats(path)["launches"]
    out = fwd(x).asnumpy()
    assert mod.stats(path)["launches"] - before == 5          # 3 MatMuls, 2 ReLUs on DEMO
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_graph_mode_training_step_equals_cpu(on_demo):
    mod, path = on_demo
    ref = train_steps("CPU", _mlp)
    before = mod.stats(path)["launches"]
    got = train_steps("DEMO", _mlp)
    assert mod.stats(path)["launches"] - before > 0
    assert_trained_alike(got, ref)


def test_graph_kernel_failure(on_demo):
    mod, path = on_demo
    rng = np.random.default_rng(4)
    args = [_t(rng, 4, 8), _t(rng, 8, 8), _t(rng, 8, 3)]
    ms.set_context(device_target="CPU")
    ref = [r.asnumpy() for r in mixed(*args)]
    ms.set_context(device_target="DEMO")
    cg = compile_graph(mixed.graph(*args))
    mod.fail_launches(path, True)
    with pytest.raises(PluginError, match=r"DEMO.*MatMul"):
        cg.run(args)
    ms.set_context(device_fallback=True)
    with pytest.warns(RuntimeWarning, match="runs on CPU"):
        out = cg.run(args)
    for o, r in zip(out, ref):
        np.testing.assert_allclose(o.asnumpy(), r, rtol=1e-5, atol=1e-5)


@ms.jit
def branches(x, w1, w2):
    a = ops.relu(ops.matmul(x, w1))
    b = ops.sigmoid(ops.matmul(x, w2))
    a = ops.matmul(a, w1) * 0.5
    b = ops.matmul(b, w2) + 1.0
    return a, b, a + b


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12))
def test_scheduler_equals_sequential(scheduler, m, k):
    rng = np.random.default_rng(m * 13 + k)
    args = [_t(rng, m, k), _t(rng, k, k), _t(rng, k, k)]
    cg = compile_graph(branches.graph(*args), parallel=True)
    seq = [o.asnumpy() for o in cg.run(args)]
    for _ in range(2):
        par = [o.asnumpy() for o in scheduler.run(cg, args)]
        for a, b in zip(seq, par):
            np.testing.assert_array_equal(a, b)
    ref = [o.asnumpy() for o in branches(*args)]         # jit's own C runner
    for a, b in zip(seq, ref):
        np.testing.assert_array_equal(a, b)
    assert sequential_order_ok(cg)


def test_scheduler_runs_branches_concurrently(scheduler):
    """The two branches' first MatMuls have no arrow between them."""
    rng = np.random.default_rng(5)
    args = [_t(rng, 4, 4), _t(rng, 4, 4), _t(rng, 4, 4)]
    cg = compile_graph(branches.graph(*args), parallel=True)
    mm = [s.index for s in cg.steps if s.name == "MatMul"][:2]

    def ancestors(i, seen=None):
        seen = set() if seen is None else seen
        for p in cg.preds[i]:
            if p not in seen:
                seen.add(p)
                ancestors(p, seen)
        return seen
    assert mm[0] not in ancestors(mm[1])
    assert cg.num_streams["CPU"] >= 1


def test_scheduler_reports_errors(scheduler):
    rng = np.random.default_rng(6)
    args = [_t(rng, 3, 3), _t(rng, 3, 3), _t(rng, 3, 3)]
    cg = compile_graph(branches.graph(*args), parallel=True)
    step = next(s for s in cg.steps if s.name == "Sigmoid")
    fn = step.fn

    def broken(*a, **k):
        raise RuntimeError("broken kernel")
    step.fn = broken
    try:
        with pytest.raises(RuntimeError, match="broken kernel"):
            scheduler.run(cg, args)
    finally:
        step.fn = fn
    out = scheduler.run(cg, args)                 # the graph still runs afterwards
    np.testing.assert_array_equal(out[2].asnumpy(), branches(*args)[2].asnumpy())


def test_jit_uses_scheduler_when_parallel(on_demo, scheduler, monkeypatch):
    monkeypatch.setattr(graph_compiler, "PARALLEL", scheduler)
    rng = np.random.default_rng(7)
    args = [_t(rng, 5, 6), _t(rng, 6, 6), _t(rng, 6, 6)]
    ms.set_context(device_target="CPU")
    ref = [o.asnumpy() for o in branches(*args)]
    ms.set_context(device_target="DEMO")
    out = [o.asnumpy() for o in branches(*args)]
    for a, b in zip(out, ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    ref = train_steps("CPU", _mlp)
    got = train_steps("DEMO", _mlp)                 # optimizer updates under the scheduler
    assert_trained_alike(got, ref)


@ms.jit
def branchy(x, w):
    y = ops.matmul(x, w)
    if y.sum() > 0:
        y = ops.relu(y)
    else:
        y = y * y
    return y


def test_control_flow_runs_ops_on_device(on_demo):
    mod, path = on_demo
    rng = np.random.default_rng(8)
    for x, w in [(_t(rng, 3, 4), _t(rng, 4, 4)), (-abs(_t(rng, 3, 4)), abs(_t(rng, 4, 4)))]:
        ms.set_context(device_target="CPU")
        ref = branchy(x, w).asnumpy()
        ms.set_context(device_target="DEMO")
        assert compile_graph(branchy.graph(x, w)) is None         # stays interpreted
        before = mod.stats(path)["launches"]
        out = branchy(x, w).asnumpy()
        assert mod.stats(path)["launches"] > before               # its ops ran on DEMO
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


class _AssignThenRead(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.ones((3, 3), np.float32)), name="p")

    def construct(self, x):
        a = ops.matmul(x, self.p)
        ops.assign(self.p, self.p + 1.0)
        return a, ops.matmul(x, self.p)


def test_parameter_written_in_graph_is_copied_again(on_demo):
    x = ms.Tensor(np.eye(3, dtype=np.float32))
    ms.set_context(device_target="CPU", mode=ms.GRAPH_MODE)
    ref = [o.asnumpy() for o in _AssignThenRead()(x)]
    ms.set_context(device_target="DEMO")
    out = [o.asnumpy() for o in _AssignThenRead()(x)]
    for a, b in zip(out, ref):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(out[1], np.full((3, 3), 2.0, np.float32))


class _HostMemory(ms.device.DeviceResManager):
    """A Python plugin's memory: host blocks kept by address."""

    def __init__(self, device):
        super().__init__(device)
        self.blocks = {}

    def allocate(self, nbytes):
        buf = np.empty(nbytes, np.uint8)
        self.blocks[buf.ctypes.data] = buf
        return buf.ctypes.data

    def free(self, ptr):
        del self.blocks[ptr]

    def view(self, addr):
        return self.blocks[addr.ptr][:addr.nbytes].view(addr.dtype).reshape(addr.shape)

    def copy_host_to_device(self, addr, array):
        np.copyto(self.view(addr), array)

    def copy_device_to_host(self, array, addr):
        np.copyto(array, self.view(addr))


class _HookedKernels(ms.device.KernelExecutor):
    """Kernel mode in Python: the CPU kernels of MatMul/ReLU/Add on its own memory; the
    split hook gives ReLU back to CPU, the optimize hook records what it saw."""

    def __init__(self, device, memory):
        super().__init__(device)
        self.memory, self.seen = memory, None

    def select_kernel(self, request):
        if request.op not in ("MatMul", "ReLU", "Add"):
            return None
        cpu = ms.device.get_device_context("CPU").kernel_executor.select_kernel(request)
        view = self.memory.view

        class _Addr:
            def __init__(self, a):
                self.host = view(a)

        def launch(ins, outs):
            cpu.launch([_Addr(a) for a in ins], [_Addr(a) for a in outs])
        return ms.device.DeviceKernel(request.op, f"py:{request.op}", launch, "PYDEV")

    def split_graph(self, steps):
        return [s for s in steps if s.name != "ReLU"]

    def optimize_graph(self, steps):
        self.seen = [s.name for s in steps]
        return steps


def test_python_kernel_plugin_hooks():
    def factory(device_id=0):
        memory = _HostMemory("PYDEV")
        return ms.device.DeviceContext("PYDEV", device_id, memory,
                                       _HookedKernels("PYDEV", memory))
    ms.device.register_device("PYDEV", factory)
    rng = np.random.default_rng(9)
    args = [_t(rng, 4, 8), _t(rng, 8, 8), _t(rng, 8, 3)]
    ref = [r.asnumpy() for r in mixed(*args)]
    try:
        ms.set_context(device_target="PYDEV")
        cg = compile_graph(mixed.graph(*args))
        out = [r.asnumpy() for r in mixed(*args)]
        ke = ms.device.get_device_context("PYDEV").kernel_executor
    finally:
        ms.set_context(device_target="CPU")
        ms.device.unregister_device("PYDEV")
    where = {s.name: s.device for s in cg.steps if s.kind not in ("h2d", "d2h")}
    assert where["ReLU"] == "CPU" and where["MatMul"] == "PYDEV" and where["Add"] == "PYDEV"
    assert ke.seen == ["MatMul", "Add", "MatMul"]
    for a, b in zip(out, ref):                   # the same kernels: bit for bit
        np.testing.assert_array_equal(a, b)
