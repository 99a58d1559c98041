"""The device registry under threads: four threads discovering plugins and creating a
device's context at once load the plugins once and get one DeviceContext per (name, id)."""
import threading
import time

from mindlite.device import registry
from mindlite.device.base import DeviceContext
from mindlite.device.cpu import CPUKernelExecutor, CPUResManager

from thread_helpers import _frequent_switches, run_threads  # noqa: F401  (fixture)


def test_concurrent_first_context_is_created_once():
    made, lock = [], threading.Lock()

    def factory(device_id):
        time.sleep(0.01)                       # a slow plugin start widens the race window
        with lock:
            made.append(device_id)
        return DeviceContext("THREADS", device_id, CPUResManager("THREADS"),
                             CPUKernelExecutor("THREADS"))
    registry.register_device("THREADS", factory, override=True)
    try:
        ctxs = run_threads(lambda i: registry.get_device_context("THREADS", 0))
        assert made == [0]
        assert all(c is ctxs[0] for c in ctxs)
    finally:
        registry.unregister_device("THREADS")


def test_concurrent_discovery_loads_plugins_once(monkeypatch):
    calls = []

    def load_entry_points():
        time.sleep(0.01)
        calls.append(1)
    monkeypatch.setattr(registry, "_LOADED", [])
    monkeypatch.setattr(registry, "_load_entry_points", load_entry_points)
    monkeypatch.setattr(registry, "_load_shared_libraries", lambda: None)
    names = run_threads(lambda i: registry.list_devices())
    assert calls == [1]
    assert all("CPU" in n and n == names[0] for n in names)
