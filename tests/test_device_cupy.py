"""The optional GPU plugin (examples/devices/cupy_device, issue 17): kernel mode on CuPy.

Two parts:
  test_fake_backend_*   unit tests of the plugin's bookkeeping (kernel selection, copies at
                        the boundaries, CPU fallback, errors) with its backend replaced by
                        a numpy stand-in (_NumpyBackend) under the name FAKEGPU: they run
                        everywhere and say nothing about GPU results
  test_gpu_*            the real plugin on a GPU, found through its `mindlite.devices` entry
                        point (a .dist-info written by the fixture, as test_device_ort does):
                        eager ops, a jit'd MLP and a GRAPH_MODE training step against CPU,
                        and the fallback of an op without a GPU kernel; skipped unless cupy
                        imports and sees a CUDA device
"""
import contextlib
import importlib
import os
import sys

import numpy as np
import pytest

import mindlite as ms
from mindlite import ops
from mindlite.backend.graph_compiler import compile_graph
from mindlite.device.base import PluginError
from device_helpers import installed_plugin, plugin_mlp as _mlp, rand_tensor as _t
from device_helpers import assert_outputs_alike, assert_trained_alike, jit_on_device
from device_helpers import train_steps

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "examples", "devices", "cupy_device")


@pytest.fixture(scope="module")
def plugin():
    sys.path.insert(0, SRC)
    importlib.invalidate_caches()
    yield importlib.import_module("mindlite_cupy_device")
    sys.path.remove(SRC)


class _NumpyBackend:
    """The plugin's backend interface on host memory (numpy as `xp`): a stand-in, not a GPU."""
    name = "numpy-fake"
    xp = np

    def alloc(self, nbytes):
        block = np.empty(nbytes, np.uint8)
        return block.ctypes.data, block

    def view(self, block, shape, dtype):
        n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        return block[:n].view(dtype).reshape(shape)

    def h2d(self, view, array):
        np.copyto(view, np.asarray(array).reshape(view.shape))

    def d2h(self, array, view):
        np.copyto(array, view)

    def scope(self):
        return contextlib.nullcontext()

    def sync(self):
        pass


@pytest.fixture()
def fake(plugin):
    ms.device.register_device("FAKEGPU", lambda i=0: plugin.make_context(i, _NumpyBackend(),
                                                                           "FAKEGPU"))
    yield ms.device.get_device_context("FAKEGPU")
    ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE, device_fallback=False)
    ms.device.unregister_device("FAKEGPU")


def test_fake_backend_eager_copies_and_fallback(fake):
    rng = np.random.default_rng(0)
    x, z = _t(rng, 4, 5), _t(rng, 4, 5)
    ref_add, ref_cos = (x + z).asnumpy(), ops.cos(x).asnumpy()
    rm, ke = fake.res_manager, fake.kernel_executor
    ms.set_context(device_target="FAKEGPU")
    rm.reset_counts()
    out = (x + z).asnumpy()
    assert rm.counts == {"h2d": 2, "d2h": 1, "h2d_bytes": 160, "d2h_bytes": 80}
    assert ke.launches == {"Add": 1}
    rm.reset_counts()
    cos = ops.cos(x).asnumpy()                 # no kernel: CPU, no copies
    assert rm.counts["h2d"] == rm.counts["d2h"] == 0 and "Cos" not in ke.launches
    np.testing.assert_array_equal(out, ref_add)
    np.testing.assert_array_equal(cos, ref_cos)


def test_fake_backend_graph_copies_only_at_boundaries(fake):
    rng = np.random.default_rng(1)
    x = _t(rng, 6, 8)
    net = _mlp()
    fwd = ms.jit(lambda a: ops.cos(net(a)))
    ref = fwd(x).asnumpy()
    ms.set_context(device_target="FAKEGPU")
    cg = compile_graph(fwd.graph(x))
    out = fwd(x).asnumpy()
    where = {s.name: s.device for s in cg.steps if s.kind not in ("h2d", "d2h")}
    assert where["MatMul"] == where["BiasAdd"] == where["ReLU"] == "FAKEGPU"
    assert where["Cos"] == "CPU"
    kinds = [s.kind for s in cg.steps]
    assert kinds.count("h2d") == 7 and kinds.count("d2h") == 1     # x, 3 w, 3 b; logits
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


def test_fake_backend_kernel_failure_names_plugin_and_op(fake, monkeypatch):
    from mindlite_cupy_device import kernels

    def broken(xp, ins, out, params):
        raise RuntimeError("out of device memory")
    monkeypatch.setitem(kernels.KERNELS, "Sub", (broken, kernels.FLOATS))
    rng = np.random.default_rng(2)
    x, z = _t(rng, 3, 3), _t(rng, 3, 3)
    ms.set_context(device_target="FAKEGPU")
    with pytest.raises(PluginError, match=r"FAKEGPU.*'Sub'.*out of device memory"):
        x - z
    ms.set_context(device_fallback=True)
    with pytest.warns(RuntimeWarning, match="FAKEGPU"):
        out = (x - z).asnumpy()
    np.testing.assert_array_equal(out, x.asnumpy() - z.asnumpy())


# ---- the real plugin on a GPU -----------------------------------------------------------

def _gpu_skip_reason():
    try:
        import cupy
    except Exception as err:                    # noqa: BLE001  (any import failure)
        return f"cupy cannot be imported ({type(err).__name__}: {err})"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "cupy sees no CUDA device"
    except Exception as err:                    # noqa: BLE001  (no driver, no device)
        return f"cupy sees no CUDA device ({type(err).__name__}: {err})"
    return None


@pytest.fixture(scope="module")
def gpu(tmp_path_factory):
    reason = _gpu_skip_reason()
    if reason:
        pytest.skip(reason)
    with installed_plugin(tmp_path_factory.mktemp("site"), SRC):
        assert "GPU" in ms.device.list_devices(), ms.device.FAILED.get("GPU")
        yield ms.device.get_device_context("GPU")


def test_gpu_eager_ops_equal_cpu(gpu):
    rng = np.random.default_rng(0)
    x, z, w = _t(rng, 4, 5), _t(rng, 4, 5), _t(rng, 5, 3)
    a, b = _t(rng, 2, 3, 4), _t(rng, 2, 4, 5)

    def run():
        return [ops.relu(x), x + z, x - z, x * 2.5, x / z, ops.exp(x), ops.sigmoid(z),
                ops.tanh(x), ops.matmul(x, w), ops.BatchMatMul()(a, b),
                ops.ReduceSum()(x, 1), ops.ReduceMean(keep_dims=True)(x, (0, 1)),
                ops.softmax(x), ops.cos(x)]
    cpu = [r.asnumpy() for r in run()]
    gpu.kernel_executor.launches.clear()
    ms.set_context(device_target="GPU")
    try:
        dev = [r.asnumpy() for r in run()]
    finally:
        ms.set_context(device_target="CPU")
    ran = gpu.kernel_executor.launches
    assert {"ReLU", "Add", "MatMul", "BatchMatMul", "Softmax", "ReduceMean"} <= set(ran)
    assert "Cos" not in ran                     # no GPU kernel: CPU fallback
    assert_outputs_alike(dev, cpu, rtol=1e-5, atol=1e-6)


def test_gpu_jit_mlp_equals_cpu(gpu):
    rng = np.random.default_rng(1)
    x = _t(rng, 6, 8)
    net = _mlp()
    out, ref, cg = jit_on_device("GPU", ms.jit(lambda a: ops.cos(net(a))), x)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    where = {s.name: s.device for s in cg.steps if s.kind not in ("h2d", "d2h")}
    assert where["MatMul"] == "GPU" and where["Cos"] == "CPU"
    assert [s.kind for s in cg.steps].count("d2h") == 1


def test_gpu_graph_mode_training_step_equals_cpu(gpu):
    ref = train_steps("CPU")
    gpu.kernel_executor.launches.clear()
    assert_trained_alike(train_steps("GPU"), ref)
    ran = gpu.kernel_executor.launches
    assert {"MatMul", "BiasAdd", "BiasAddGrad", "ReluGrad", "TanhGrad"} <= set(ran)
