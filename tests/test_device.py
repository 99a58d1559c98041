"""Pluggable devices (issue 17): the registry, the C ABI plugin DEMO (examples/devices/
demo_cpp_device, built with g++ into a temporary folder) in eager mode, and bad plugins."""
import ctypes
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import ops
from mindlite.device import registry
from mindlite.device.base import PluginError
from mindlite.device.c_plugin import load_library

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO_SRC = os.path.join(HERE, "..", "examples", "devices", "demo_cpp_device")

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the C++ plugin")


@functools.lru_cache(maxsize=None)
def build_demo():
    """The DEMO plugin compiled once per process (test_device_graph.py shares it)."""
    sys.path.insert(0, DEMO_SRC)
    import mindlite_demo_device as mod
    return mod, mod.build_library(tempfile.mkdtemp(prefix="mindlite_demo_"))


@pytest.fixture(scope="module")
def demo():
    """The DEMO plugin discovered through MINDLITE_PLUGIN_PATH."""
    if shutil.which("g++") is None:
        pytest.skip("g++ builds the C++ plugin")
    mod, path = build_demo()
    old = os.environ.get("MINDLITE_PLUGIN_PATH")
    os.environ["MINDLITE_PLUGIN_PATH"] = path
    registry.load_plugins(reload=True)
    yield mod, path
    ms.set_context(device_target="CPU", device_fallback=False)
    if old is None:
        os.environ.pop("MINDLITE_PLUGIN_PATH")
    else:
        os.environ["MINDLITE_PLUGIN_PATH"] = old


@pytest.fixture
def on_demo(demo):
    ms.set_context(device_target="DEMO")
    yield demo
    ms.set_context(device_target="CPU", device_fallback=False)
    demo[0].fail_launches(demo[1], False)


def test_cpu_is_builtin():
    assert "CPU" in ms.device.list_devices()
    ctx = ms.device.get_device_context("CPU")
    assert ctx.mode == "kernel" and ctx.name == "CPU"
    t = ms.Tensor(np.arange(6, dtype=np.float32))
    addr = ms.device.device_address(t)
    assert addr.host is t._data() and addr.ptr == t._data().ctypes.data   # zero-copy


def test_cpu_kernel_executor_launches_registry_kernels():
    from mindlite.abstract import abstract_of_array
    from mindlite.device.base import KernelRequest
    ctx = ms.device.get_device_context("CPU")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full((3, 2), 0.5, np.float32)
    req = KernelRequest("MatMul", [abstract_of_array(a), abstract_of_array(b)],
                        [abstract_of_array(np.empty((2, 2), np.float32))],
                        {"transpose_a": False, "transpose_b": False})
    kernel = ctx.kernel_executor.select_kernel(req)
    rm = ctx.res_manager
    out = rm.alloc_address((2, 2), np.float32)
    ctx.kernel_executor.launch(kernel, [rm.to_device(a), rm.to_device(b)], [out])
    np.testing.assert_allclose(rm.to_host(out), a @ b)
    assert ctx.kernel_executor.select_kernel(KernelRequest("NoSuchOp", [], [], {})) is None


def test_register_device_errors():
    with pytest.raises(TypeError, match="register_device"):
        ms.device.register_device("", lambda i: None)
    with pytest.raises(TypeError, match="factory"):
        ms.device.register_device("X1", 3)
    with pytest.raises(ValueError, match="already registered"):
        ms.device.register_device("CPU", lambda i: None)
    with pytest.raises(ValueError, match="device_target"):
        ms.set_context(device_target="NOPE")
    with pytest.raises(TypeError, match="device_fallback"):
        ms.set_context(device_fallback=1)


def test_factory_returning_junk_is_plugin_error():
    ms.device.register_device("JUNK", lambda device_id: 42)
    try:
        with pytest.raises(PluginError, match="JUNK"):
            ms.set_context(device_target="JUNK")
        ms.set_context(device_fallback=True)
        with pytest.warns(RuntimeWarning, match="JUNK"):
            ms.set_context(device_target="JUNK")
        assert ms.get_context("device_target") == "CPU"
    finally:
        ms.set_context(device_fallback=False)
        ms.device.unregister_device("JUNK")


def test_demo_listed(demo):
    assert "DEMO" in ms.device.list_devices()
    ctx = ms.device.get_device_context("DEMO")
    assert ctx.mode == "kernel" and "DEMO" in ctx.plugin


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6),
       st.sampled_from([np.float32, np.float64]))
def test_demo_eager_equals_cpu(demo, m, k, n, dtype):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    x = ms.Tensor(rng.standard_normal((m, k)).astype(dtype))
    z = ms.Tensor(rng.standard_normal((m, k)).astype(dtype))
    w = ms.Tensor(rng.standard_normal((k, n)).astype(dtype))

    def run():
        return [ops.relu(x), x + z, x - z, x * z, ops.matmul(x, w),
                ops.MatMul(transpose_b=True)(x, x), ops.exp(x), x + 1.5]
    cpu = [r.asnumpy() for r in run()]
    ms.set_context(device_target="DEMO")
    try:
        before = demo[0].stats(demo[1])
        dev = [r.asnumpy() for r in run()]
        after = demo[0].stats(demo[1])
    finally:
        ms.set_context(device_target="CPU")
    for i, (a, b) in enumerate(zip(cpu, dev)):
        if i in (4, 5):          # MatMul: the plugin sums in another order than BLAS
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(b, a)
        assert b.dtype == a.dtype
    # six ops ran on DEMO (exp and the scalar add went to CPU), each with copies in and out
    assert after["launches"] - before["launches"] == 6
    assert after["h2d"] - before["h2d"] == 11
    assert after["d2h"] - before["d2h"] == 6


def test_demo_kernel_failure_names_plugin_and_op(on_demo):
    mod, path = on_demo
    x = ms.Tensor(np.array([[-1.0, 2.0]], np.float32))
    mod.fail_launches(path, True)
    with pytest.raises(PluginError, match=r"DEMO.*ReLU"):
        ops.relu(x)
    ms.set_context(device_fallback=True)
    with pytest.warns(RuntimeWarning, match="runs on CPU"):
        y = ops.relu(x)
    np.testing.assert_array_equal(y.asnumpy(), [[0.0, 2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # the kernel is not tried again
        np.testing.assert_array_equal(ops.relu(x).asnumpy(), [[0.0, 2.0]])


def _compile(tmp_path, name, code):
    src = tmp_path / f"{name}.c"
    src.write_text(code)
    out = tmp_path / f"lib{name}.so"
    subprocess.run(["gcc", "-shared", "-fPIC", str(src), "-o", str(out)], check=True)
    return str(out)


@needs_gxx
def test_bad_libraries(tmp_path):
    lacking = _compile(tmp_path, "lacking", "const char* mindlite_device_name(void)"
                       "{ return \"HALF\"; }\n")
    with pytest.raises(PluginError, match=r"lacking.*mindlite_device_abi_version"):
        load_library(lacking)
    junk = tmp_path / "libjunk.so"
    junk.write_bytes(b"not a library")
    with pytest.raises(PluginError, match="libjunk.so.*failed to load"):
        load_library(str(junk))
    old = os.environ.get("MINDLITE_PLUGIN_PATH", "")
    os.environ["MINDLITE_PLUGIN_PATH"] = os.pathsep.join([lacking, str(junk)])
    try:
        registry.load_plugins(reload=True)
        assert "liblacking.so" in registry.FAILED and "libjunk.so" in registry.FAILED
        with pytest.raises(ValueError, match="liblacking.so"):
            ms.set_context(device_target="HALF")
    finally:
        os.environ["MINDLITE_PLUGIN_PATH"] = old
        registry.FAILED.pop("liblacking.so", None)
        registry.FAILED.pop("libjunk.so", None)


def test_entry_point_plugins(tmp_path, monkeypatch):
    """Entry points of group mindlite.devices: a working one, one that fails to import, one
    that is not a factory (a .dist-info written here makes importlib.metadata find them)."""
    pkg = tmp_path / "epdev.py"
    pkg.write_text("from mindlite.device.cpu import make_cpu_context\n"
                   "def factory(device_id=0):\n"
                   "    ctx = make_cpu_context(device_id)\n"
                   "    ctx.name = 'EPDEV'\n"
                   "    return ctx\n"
                   "NOT_CALLABLE = 3\n")
    info = tmp_path / "epdev-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: epdev\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[mindlite.devices]\nEPDEV = epdev:factory\n"
                                           "EPBROKEN = epdev_missing:factory\n"
                                           "EPJUNK = epdev:NOT_CALLABLE\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        registry.load_plugins(reload=True)
        assert "EPDEV" in ms.device.list_devices()
        assert "epdev_missing" in registry.FAILED["EPBROKEN"]
        assert "lacks its factory" in registry.FAILED["EPJUNK"]
        with pytest.raises(PluginError, match="EPBROKEN"):
            ms.set_context(device_target="EPBROKEN")
        ms.set_context(device_target="EPDEV")
        x = ms.Tensor(np.array([1.0, -2.0], np.float32))
        np.testing.assert_array_equal(ops.relu(x).asnumpy(), [1.0, 0.0])
    finally:
        ms.set_context(device_target="CPU")
        ms.device.unregister_device("EPDEV")
        registry.FAILED.pop("EPBROKEN", None)
        registry.FAILED.pop("EPJUNK", None)


def test_demo_res_manager_roundtrip(demo):
    ctx = ms.device.get_device_context("DEMO")
    rm = ctx.res_manager
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    addr = rm.to_device(a)
    assert addr.device == "DEMO" and addr.nbytes == a.nbytes
    np.testing.assert_array_equal(rm.to_host(addr), a)
    with pytest.raises(ValueError, match="C-contiguous"):
        rm.copy_device_to_host(np.empty((4, 3), np.float64), addr)
    ptr = addr.ptr
    del addr                                       # back to the pool, reused
    again = rm.alloc_address((3, 4), np.float32)
    assert again.ptr == ptr
    with pytest.raises(PluginError, match="free"):
        rm.free(ctypes.c_void_p(12345).value)


def test_cpu_fast_path_is_kept(demo):
    """Back on CPU after a plugin device, eager ops run CPU kernels through the C cached
    runner again (nothing of the device stays in their path)."""
    from mindlite import _C
    mod, path = demo
    x = ms.Tensor(np.ones((4, 4), np.float32))
    relu = ops.ReLU()
    ms.set_context(device_target="DEMO")
    try:
        before = mod.stats(path)["launches"]
        relu(x)
        assert mod.stats(path)["launches"] == before + 1
    finally:
        ms.set_context(device_target="CPU")
    relu(x)
    relu(x)
    assert mod.stats(path)["launches"] == before + 1
    assert any(isinstance(r, _C.FastRunner) for r in relu._runners.values())


def test_device_pool_reuses_blocks():
    freed, ptrs = [], iter(range(4096, 1 << 20, 4096))
    pool = ms.device.DevicePool(lambda n: next(ptrs), freed.append, max_per_bucket=1)
    a = pool.alloc(64)
    pool.release(a)
    assert pool.alloc(64) == a and pool.hits == 1          # reused
    b = pool.alloc(64)                                      # a is in use: a new block
    assert b != a and pool.misses == 2 and pool.peak_bytes == 128
    pool.release(a)
    pool.release(b)                                         # the bucket holds one: b freed
    assert freed == [b]
    pool.release_all()
    assert freed == [b, a] and pool.used_bytes == 0
