"""Helpers the device plugin tests share (tests/test_device_cupy.py, test_device_ort.py,
test_device_graph.py): an example plugin package made visible as an installed distribution
(its `mindlite.devices` entry point in a .dist-info on sys.path, as pip would leave it),
float32 tensors, the small MLP they run and a few GRAPH_MODE training steps on a device."""
import contextlib
import importlib
import os
import sys
import tomllib

import numpy as np

import mindlite as ms
from mindlite import nn
from mindlite.backend.graph_compiler import compile_graph
from mindlite.device import registry


@contextlib.contextmanager
def installed_plugin(site, src):
    """Load the plugin package in folder `src` through its entry point, as if installed:
    `site` (an empty folder) gets the .dist-info built from src/pyproject.toml. On exit the
    context is back on CPU/PYNATIVE and the plugin's devices are unregistered."""
    with open(os.path.join(src, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    entries = project["entry-points"]["mindlite.devices"]
    dist = project["name"].replace("-", "_")
    info = site / f"{dist}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[mindlite.devices]\n{lines}")
    sys.path[:0] = [src, str(site)]
    importlib.invalidate_caches()
    try:
        registry.load_plugins(reload=True)
        yield
    finally:
        ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE, device_fallback=False)
        sys.path.remove(src)
        sys.path.remove(str(site))
        for name in entries:
            ms.device.unregister_device(name)


def rand_tensor(rng, *shape):
    return ms.Tensor(rng.standard_normal(shape).astype(np.float32))


def plugin_mlp(activation=nn.Tanh):
    """8 -> 16 -> 16 -> 4 Dense layers with ReLU, then `activation`, between them (seed 1)."""
    ms.set_seed(1)
    return nn.SequentialCell([nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 16), activation(),
                              nn.Dense(16, 4)])


def train_steps(device, make_net=plugin_mlp, steps=3):
    """`steps` Momentum steps of an MSE-trained `make_net()` in GRAPH_MODE on `device`:
    (losses, the trained parameters as arrays, the TrainOneStepCell)."""
    ms.set_context(device_target=device, mode=ms.GRAPH_MODE)
    try:
        net = make_net()
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        rng = np.random.default_rng(3)
        x, y = rand_tensor(rng, 6, 8), rand_tensor(rng, 6, 4)
        losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
        return losses, [p.asnumpy() for p in net.trainable_params()], step
    finally:
        ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE)


def assert_trained_alike(got, want):
    """Two train_steps results agree: losses to rtol 1e-5, parameters to 1e-5 / 1e-6."""
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    for p, r in zip(got[1], want[1]):
        np.testing.assert_allclose(p, r, rtol=1e-5, atol=1e-6)


def assert_outputs_alike(got, want, rtol, atol):
    """Arrays run on a device equal the CPU's: dtype and shape exactly, values to tolerance."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def jit_on_device(device, fwd, x):
    """The jit'd `fwd` on `x` on CPU, then on `device`: (the device's output array, the CPU's,
    the CompiledGraph the device runs)."""
    ref = fwd(x).asnumpy()
    ms.set_context(device_target=device)
    try:
        out = fwd(x).asnumpy()
        cg = compile_graph(fwd.graph(x))
    finally:
        ms.set_context(device_target="CPU")
    return out, ref, cg
