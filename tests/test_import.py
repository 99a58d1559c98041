"""`import mindlite` stays light (no numba, scipy, torch, ...) and its lazy names resolve.

Fresh interpreters (subprocesses) check what a bare `import mindlite` loads, that the
lazy attributes (nn, train, dataset, Model, ops.ReLU, ...) resolve and are listed by
dir(), and that the op namespaces drop their module __getattr__ once used. In process:
every name of mindlite.ops / ops.operations / ops.functional is the object the eager
star-imports bound. No timing asserts (benchmarks/import_time.py measures).
"""
import importlib
import json
import os
import subprocess
import sys

import pytest

import mindlite
from mindlite import _lazy, ops
from mindlite.ops import functional, operations

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ["numba", "llvmlite", "scipy", "torch", "sklearn", "matplotlib", "tqdm",
         "google.protobuf", "pandas"]
DEFERRED = ["mindlite.ops.operations.nn_ops", "mindlite.ops.function.math_func",
            "mindlite.nn.layer.basic", "mindlite.nn.optim.adam", "mindlite.profiler.breakdown",
            "mindlite.profiler.report",
            "mindlite.benchmark", "mindlite.pynative.forward", "numpy.random"]


def run_child(code):
    """Run `code` in a fresh interpreter at the repo root; returns its stdout parsed as JSON."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_mindlite_loads_no_heavy_module():
    got = run_child(
        "import sys, json, mindlite\n"
        "print(json.dumps({'file': mindlite.__file__, 'mods': sorted(sys.modules)}))")
    assert got["file"].startswith(ROOT)
    mods = set(got["mods"])
    loaded = [m for m in HEAVY if m in mods or any(x.startswith(m + ".") for x in mods)]
    assert loaded == [], f"`import mindlite` imported {loaded}"
    assert [m for m in DEFERRED if m in mods] == []  # numpy.random: at the first random draw
    assert not any(m.startswith("mindlite.kernels.cpu") for m in mods)


def test_public_names_resolve_in_fresh_process():
    got = run_child(
        "import json, sys\n"
        "import mindlite as ms\n"
        "hooks = ['__getattr__' in vars(m) for m in (ms, ms.nn, ms.ops)]\n"
        "from mindlite import nn\n"
        "import mindlite.dataset as ds\n"
        "ok = {\n"
        "  'nn': nn is ms.nn and ms.nn.Dense.__name__ == 'Dense' and nn.Cell is ms.nn.Cell,\n"
        "  'nn_layer': ms.nn.layer.basic.Dense is nn.Dense and 'loss' in dir(nn),\n"
        "  'model': ms.Model is ms.train.Model,\n"
        "  'dataset': ds is ms.dataset and hasattr(ms.dataset, 'NumpySlicesDataset'),\n"
        "  'ckpt': ms.save_checkpoint is ms.train.serialization.save_checkpoint,\n"
        "  'kernel': ms.register_kernel is sys.modules['mindlite.kernels.registry']"
        ".register_kernel,\n"
        "  'initializer': callable(ms.initializer) and ms.initializer.__name__ == 'initializer',\n"
        "  'relu': ms.ops.ReLU.__name__ == 'ReLU' and ms.ops.relu.__name__ == 'relu',\n"
        "}\n"
        "after = ['__getattr__' in vars(m) for m in (ms, ms.nn, ms.ops)]\n"
        "listed = [n for n in ('nn', 'train', 'dataset', 'Model', 'ops') if n in dir(ms)]\n"
        "print(json.dumps({'ok': ok, 'hooks': hooks, 'after': after, 'listed': listed}))")
    assert all(got["ok"].values()), got["ok"]
    assert got["hooks"] == [False, True, True]        # mindlite itself never has one
    assert got["after"] == [False, False, False]      # nn and ops completed at first use
    assert got["listed"] == ["nn", "train", "dataset", "Model", "ops"]


def test_ops_complete_at_first_use_and_lose_getattr():
    """The op families load at the first ops/F name used, all at once; then ops, functional
    and operations have no module __getattr__ left (CPython specializes their lookups)."""
    got = run_child(
        "import json, sys\nimport numpy as np\nimport mindlite as ms\n"
        "from mindlite.ops import functional as F, operations as P\n"
        "before = {'loaded': 'mindlite.ops.operations.nn_ops' in sys.modules,\n"
        "          'hooks': ['__getattr__' in vars(m) for m in (ms.ops, F, P)]}\n"
        "y = ms.ops.ReLU()(ms.Tensor(np.array([-1.0, 2.0], np.float32))) + 1\n"
        "after = {'loaded': 'mindlite.ops.operations.loss_ops' in sys.modules,\n"
        "         'hooks': ['__getattr__' in vars(m) for m in (ms.ops, F, P)]}\n"
        "print(json.dumps({'y': y.asnumpy().tolist(), 'before': before, 'after': after}))")
    assert got["y"] == [1.0, 3.0]
    assert got["before"] == {"loaded": False, "hooks": [True, True, True]}
    assert got["after"] == {"loaded": True, "hooks": [False, False, False]}


def test_kernel_registration_before_the_family_is_imported():
    """register_kernel checks op names and resets runner caches in a fresh process too, where
    no primitive family has been imported yet (the registry glue is installed at import)."""
    got = run_child(
        "import json, sys\nimport numpy as np\nimport mindlite as ms\n"
        "fresh = 'mindlite.ops.operations.nn_ops' not in sys.modules\n"
        "x = ms.Tensor(np.array([-1.0, 2.0], np.float32))\n"
        "try:\n"
        "    ms.register_kernel('NoSuchOp', provider='t', kernel=lambda a, out: None)\n"
        "    bad = 'registered'\n"
        "except ValueError as e:\n"
        "    bad = str(e)\n"
        "def seven(a, out):\n"
        "    out[...] = 7\n"
        "ms.register_kernel('ReLU', provider='t', dtypes=(ms.float32,), kernel=seven)\n"
        "y = ms.ops.ReLU()(x).asnumpy().tolist()\n"
        "ms.unregister_kernel('ReLU', 't')\n"
        "z = ms.ops.ReLU()(x).asnumpy().tolist()\n"
        "print(json.dumps({'fresh': fresh, 'bad': bad, 'y': y, 'z': z}))")
    assert got["fresh"]
    assert "no primitive named 'NoSuchOp'" in got["bad"]
    assert got["y"] == [7.0, 7.0]                     # the user kernel outranks the built-ins
    assert got["z"] == [0.0, 2.0]                     # unregistering resets the cached runner


def eager_namespace(modules):
    """The names and objects `from <m> import *` for each module m, in order, binds."""
    ns = {}
    for name in modules:
        module = importlib.import_module(name)
        ns.update((n, getattr(module, n)) for n in _lazy._exports(module))
    return ns


def test_lazy_names_match_eager_star_imports():
    families = eager_namespace(f"mindlite.ops.operations.{m}" for m in operations._MODULES)
    functions = eager_namespace(f"mindlite.ops.{m}" for m in functional._MODULES)
    assert families and functions
    for module, expected in ((operations, families), (functional, functions),
                             (ops, {**families, **functions})):
        for name, value in expected.items():
            assert getattr(module, name) is value, f"{module.__name__}.{name}"
        assert set(expected) <= set(dir(module))
    layers = eager_namespace(f"mindlite.nn.{m}" for m in mindlite.nn._LAZY.modules)
    assert layers
    for name, value in layers.items():
        assert getattr(mindlite.nn, name) is value, f"nn.{name}"
    for m in operations._MODULES:                     # star-importing operations bound these
        if not m.startswith("_"):
            assert getattr(ops, m) is sys.modules[f"mindlite.ops.operations.{m}"]


def test_lazy_exports_state_machine():
    """A fresh deferred namespace: nothing bound, then everything at the first miss."""
    ns = {"__name__": "mindlite.ops.operations", "__path__": operations.__path__}
    state = _lazy.lazy_exports(ns, operations._MODULES)
    assert "ReLU" not in ns and "__getattr__" in ns and not state.done
    assert ns["__getattr__"]("ReLU") is ops.ReLU
    assert state.done and "__getattr__" not in ns and "__dir__" not in ns
    assert ns["Add"] is ops.Add and ns["ReluGrad"] is ops.ReluGrad
    with pytest.raises(AttributeError, match="no_such_op"):
        state.resolve("no_such_op")
    with pytest.raises(AttributeError, match="__wrapped__"):
        state.resolve("__wrapped__")                  # dunders never trigger a load
    ns2 = {"__name__": "mindlite.ops.functional"}
    state2 = _lazy.lazy_exports(ns2, functional._MODULES)
    names = state2.resolve("__all__")                 # `from m import *` before any use
    assert "relu" in names and ns2["__all__"] == names and "__getattr__" not in ns2


def test_submodules_and_star_import():
    assert ops.math_ops is sys.modules["mindlite.ops.operations.math_ops"]
    assert ops.composite is sys.modules["mindlite.ops.composite"]
    assert operations._grad_ops.ReluGrad is ops.ReluGrad
    ns = {}
    exec("from mindlite.ops import *", ns)
    assert ns["ReLU"] is ops.ReLU and ns["relu"] is ops.relu and ns["Primitive"] is ops.Primitive
    assert "math_ops" in ns and "functional" in ns
    with pytest.raises(AttributeError, match="no_such_op"):
        ops.no_such_op
    with pytest.raises(AttributeError, match="no_such_fn"):
        functional.no_such_fn


def test_dir_mindlite_lists_public_api():
    names = dir(mindlite)
    for n in ("Tensor", "Parameter", "float32", "ops", "nn", "train", "dataset", "Model",
              "value_and_grad", "set_seed", "register_kernel", "load_checkpoint"):
        assert n in names
    assert "__getattr__" not in vars(mindlite)


@pytest.mark.parametrize("first", ["elementwise_ops", "logic_ops", "math_ops", "norm_ops"])
def test_any_family_module_can_be_imported_first(first):
    """math_ops re-exports elementwise_ops and logic_ops, which import math_ops: whichever of
    them a user imports first, every name ends up in both places."""
    out = run_child(
        f"import json, mindlite.ops.operations.{first}\n"
        "from mindlite.ops.operations import elementwise_ops as e, logic_ops as l, math_ops as m\n"
        "ok = all(getattr(m, n) is getattr(e, n) for n in e.__all__)\n"
        "ok = ok and all(getattr(m, n) is getattr(l, n) for n in l.__all__)\n"
        "ok = ok and set(e.__all__) | set(l.__all__) <= set(m.__all__)\n"
        "print(json.dumps(ok))\n")
    assert out is True
