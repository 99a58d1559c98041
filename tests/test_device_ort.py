"""The graph-mode example plugin ORT (examples/devices/ort_device, issue 17): discovered
through its `mindlite.devices` entry point (a .dist-info written by the fixture on sys.path,
as an installed package has), eager ops as one-node graphs, a jit'd MLP as one SuperKernel,
a GRAPH_MODE training step split between SuperKernels and CPU, all equal to CPU."""
import os

import numpy as np
import pytest

import mindlite as ms
from mindlite import ops
from mindlite.backend.graph_compiler import compile_graph
from mindlite.device.base import PluginError
from device_helpers import installed_plugin, plugin_mlp as _mlp, rand_tensor as _t
from device_helpers import assert_outputs_alike, assert_trained_alike, jit_on_device
from device_helpers import train_steps

pytest.importorskip("onnx", reason="the ORT plugin converts graphs with onnx")
pytest.importorskip("onnxruntime", reason="the ORT plugin runs graphs in onnxruntime")

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_SRC = os.path.join(HERE, "..", "examples", "devices", "ort_device")


@pytest.fixture(scope="module")
def ort(tmp_path_factory):
    with installed_plugin(tmp_path_factory.mktemp("site"), ORT_SRC):
        yield


def test_listed_graph_mode(ort):
    assert "ORT" in ms.device.list_devices()
    ctx = ms.device.get_device_context("ORT")
    assert ctx.mode == "graph" and ctx.kernel_executor is None


def test_eager_ops_equal_cpu(ort):
    rng = np.random.default_rng(0)
    x, z, w = _t(rng, 4, 5), _t(rng, 4, 5), _t(rng, 5, 3)

    def run():
        return [ops.relu(x), x + z, x * 2.5, ops.exp(x), ops.matmul(x, w), ops.sigmoid(z),
                ops.ReduceSum()(x, 1)]
    cpu = [r.asnumpy() for r in run()]
    ms.set_context(device_target="ORT")
    try:
        dev = [r.asnumpy() for r in run()]
        from mindlite.backend.session import session_factory
        on_ort = [g for g in session_factory("ORT").graphs.values()
                  if g.kernel.device == "ORT"]
        assert len(on_ort) >= 5
    finally:
        ms.set_context(device_target="CPU")
    assert_outputs_alike(dev, cpu, rtol=1e-6, atol=1e-6)


def test_jit_mlp_is_one_super_kernel(ort):
    rng = np.random.default_rng(1)
    x = _t(rng, 6, 8)
    net = _mlp()
    out, ref, cg = jit_on_device("ORT", ms.jit(lambda a: net(a)), x)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    assert [s.kind for s in cg.steps] == ["super"]
    assert cg.steps[0].device == "ORT" and not cg.copies()


def test_graph_mode_training_step_equals_cpu(ort):
    ref = train_steps("CPU")
    got = train_steps("ORT")
    assert_trained_alike(got, ref)
    step = got[2]
    from mindlite.jit.cell_graph import _CELL_JIT
    progs = [c._device_program[2] for c in _CELL_JIT[step].cache.values()
             if getattr(c, "_device_program", None) and c._device_program[2]]
    steps = progs[-1].compiled_graph.steps
    assert "super" in {s.kind for s in steps}
    assert any(s.own and s.device == "CPU" for s in steps)    # optimizer updates stay on CPU


def test_compile_failure_names_plugin(ort, monkeypatch):
    ctx = ms.device.get_device_context("ORT")

    def broken(graph):
        raise RuntimeError("no such ONNX op")
    monkeypatch.setattr(ctx.graph_executor, "compile_graph", broken)
    rng = np.random.default_rng(2)
    x = _t(rng, 3, 8)
    net = _mlp()
    fwd = ms.jit(lambda a: net(a))
    ref = fwd(x).asnumpy()
    ms.set_context(device_target="ORT")
    try:
        with pytest.raises(PluginError, match=r"ORT.*MatMul"):
            compile_graph(fwd.graph(x))
        ms.set_context(device_fallback=True)
        with pytest.warns(RuntimeWarning, match="ORT"):
            cg = compile_graph(fwd.graph(x))
        assert {s.device for s in cg.steps} == {"CPU"}
        np.testing.assert_allclose(cg.run([x] + list(net.trainable_params()))
                                   .asnumpy(), ref, rtol=1e-6)
    finally:
        ms.set_context(device_target="CPU", device_fallback=False)
