"""The install is not a trap: mindlite runs with numba unimportable and from a read-only copy.

Each case runs WORKLOAD in a fresh interpreter: a tiny net trained with CrossEntropyLoss and
the SCE losses under every optimizer, and a sample of the ops that have numba kernels
(softmax, reductions, argmax, NLL), once with the default kernels and once with numba
preferred (context kernel_provider, as C++ kernels outrank numba). Its results are compared
with the same script run in the normal install. With numba blocked (a sys.meta_path finder
raising ModuleNotFoundError, the way an uninstalled numba fails) selection falls back to the
next kernel with one warning;
with no writable numba cache (read-only package, unwritable NUMBA_CACHE_DIR, cache dir and
HOME) numba compiles in memory with one warning. Also the registry's provider fallback in
process, with a provider whose loader fails.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mindlite as ms
from mindlite import ops
from mindlite.kernels import registry

ROOT = Path(__file__).resolve().parent.parent

BLOCKER = '''
import sys
class _NoNumba:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numba", "llvmlite"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)")
sys.meta_path.insert(0, _NoNumba())
'''

WORKLOAD = '''
import json, sys, warnings
warnings.simplefilter("always")
import numpy as np
with warnings.catch_warnings(record=True) as caught:
    import mindlite as ms
    from mindlite import nn, ops

    def workload(out, tag):
        rng = np.random.default_rng(0)
        x = ms.Tensor(rng.standard_normal((16, 6)).astype(np.float32))
        y = ms.Tensor(rng.integers(0, 4, 16).astype(np.int32))
        losses = {"ce": nn.CrossEntropyLoss(),
                  "sce": nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  "sce_dense": nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction="mean")}
        optims = {"momentum": lambda p: nn.Momentum(p, 0.1, 0.9),
                  "sgd": lambda p: nn.SGD(p, 0.1, momentum=0.5),
                  "adam": lambda p: nn.Adam(p, 0.01),
                  "adamw": lambda p: nn.AdamWeightDecay(p, 0.01, weight_decay=0.01)}
        for lname, loss in losses.items():
            for oname, make in optims.items():
                ms.set_seed(1)
                net = nn.SequentialCell([nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 4)])
                target = y if lname != "sce_dense" else ops.one_hot(y, 4, ms.Tensor(1.0),
                                                                   ms.Tensor(0.0))
                step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                                           make(net.trainable_params()))
                out[f"{tag}/{lname}/{oname}"] = [float(step(x, target).asnumpy())
                                                 for _ in range(3)]
        a = ms.Tensor(rng.standard_normal((5, 7)).astype(np.float32))
        b = ms.Tensor(rng.standard_normal((5, 7)) > 0)
        sample = {
            "softmax": ops.softmax(a, 1), "log_softmax": ops.log_softmax(a, 0),
            "sum": ops.ReduceSum()(a, 1), "mean": ops.ReduceMean(keep_dims=True)(a, 0),
            "max": ops.ReduceMax()(a, (0, 1)), "min": ops.ReduceMin()(a, 1),
            "prod": ops.ReduceProd()(a, 0), "all": ops.ReduceAll()(b, 1),
            "any": ops.ReduceAny()(b, 0), "argmax": ops.Argmax(axis=1)(a),
            "argmin": ops.Argmin(axis=0)(a), "argmax_value": ops.ArgMaxWithValue(axis=1)(a)[1],
            "nll": ops.nll_loss(ops.log_softmax(a, 1), ms.Tensor(np.arange(5) % 7, ms.int32)),
            "sum_int": ops.ReduceSum()(ms.Tensor(np.arange(12).reshape(3, 4)), 0),
        }
        for k, v in sample.items():
            out[f"{tag}/{k}"] = np.asarray(v.asnumpy(), np.float64).ravel().tolist()

    out = {}
    workload(out, "default")
    # NOTE: C++ kernels outrank numba for these ops; preferring numba makes every op that has
    # a numba kernel try it (and fall back when numba cannot load)
    ms.set_context(kernel_provider="numba")
    workload(out, "numba")
ours = [str(w.message) for w in caught if "mindlite:" in str(w.message)]
print(json.dumps({"out": out, "warnings": ours, "numba": "numba" in sys.modules,
                  "file": ms.__file__}))
'''


def run(prelude="", env=None, cwd=None):
    full = dict(os.environ, **(env or {}))
    res = subprocess.run([sys.executable, "-c", prelude + WORKLOAD], capture_output=True,
                         text=True, env=full, cwd=cwd or str(ROOT), timeout=600)
    assert res.returncode == 0, res.stderr[-4000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def reference():
    return run()


def assert_close(got, want):
    assert got.keys() == want.keys()
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=2e-5, atol=1e-6, err_msg=k)


def test_runs_with_numba_blocked(reference):
    pytest.importorskip("numba", reason="numba is missing here: the whole run is the blocked case")
    assert reference["numba"] and not reference["warnings"], reference["warnings"]
    got = run(prelude=BLOCKER)
    assert not got["numba"]
    assert len(got["warnings"]) == 1, got["warnings"]
    assert "kernel provider 'numba' cannot load" in got["warnings"][0]
    assert_close(got["out"], reference["out"])


def _read_only_copy(tmp_path):
    """A copy of the package no one can write to, and numba cache locations that cannot be
    created. Root ignores file modes, so every __pycache__ numba would write into is a file."""
    pkg = tmp_path / "site" / "mindlite"
    shutil.copytree(ROOT / "mindlite", pkg,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for d in [pkg, *(p for p in pkg.rglob("*") if p.is_dir())]:
        (d / "__pycache__").write_text("not a folder")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, so nothing can be created under it")
    for p in [pkg, *pkg.rglob("*")]:
        mode = p.stat().st_mode
        p.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    env = {"PYTHONPATH": str(tmp_path / "site"), "NUMBA_CACHE_DIR": str(blocked / "numba"),
           "XDG_CACHE_HOME": str(blocked / "cache"), "HOME": str(blocked),
           "PYTHONDONTWRITEBYTECODE": "1"}
    return pkg, env


def test_runs_from_a_read_only_install(tmp_path, reference):
    pytest.importorskip("numba", reason="the numba cache fallback needs numba")
    pkg, env = _read_only_copy(tmp_path)
    try:
        got = run(env=env, cwd=str(tmp_path))
        assert got["file"].startswith(str(pkg))
        assert len(got["warnings"]) == 1, got["warnings"]
        assert "numba cannot cache compiled kernels" in got["warnings"][0]
        assert_close(got["out"], reference["out"])
        blocked = run(prelude=BLOCKER, env=env, cwd=str(tmp_path))
        assert "kernel provider 'numba' cannot load" in blocked["warnings"][0]
        assert_close(blocked["out"], reference["out"])
    finally:
        for p in [pkg, *pkg.rglob("*")]:
            p.chmod(p.stat().st_mode | stat.S_IWUSR)


@pytest.fixture
def broken_provider():
    """A user provider 'brokenlib' whose loader raises ImportError, ranked above the rest."""
    def loader():
        raise ImportError("No module named 'brokenlib'")
    registry.PROVIDER_LOADERS["brokenlib"] = loader
    calls = []

    def relu_broken(x, out):
        calls.append(1)
        out[...] = -1
    registry.register_kernel("ReLU", provider="brokenlib", kernel=relu_broken)
    yield calls
    registry.unregister_kernel("ReLU", "brokenlib")
    registry.PROVIDER_LOADERS.pop("brokenlib", None)
    registry.UNAVAILABLE.pop("brokenlib", None)


def test_selection_skips_a_provider_that_cannot_load(broken_provider):
    x = ms.Tensor(np.array([-1.0, 2.0], np.float32))
    with pytest.warns(RuntimeWarning, match="provider 'brokenlib' cannot load"):
        got = ops.relu(x).asnumpy()
    np.testing.assert_array_equal(got, [0.0, 2.0])
    assert not broken_provider
    assert "ModuleNotFoundError" in registry.UNAVAILABLE["brokenlib"] or \
        "ImportError" in registry.UNAVAILABLE["brokenlib"]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")             # the warning is given once, not per call
        np.testing.assert_array_equal(ops.relu(x * 2).asnumpy(), [0.0, 4.0])
    strict = ops.ReLU().add_prim_attr("kernel_provider", "brokenlib")
    with pytest.raises(ValueError, match="provider 'brokenlib' cannot load: ImportError"):
        strict(x)


def test_an_op_with_only_unloadable_kernels_says_why(broken_provider):
    registry.register_kernel("only_broken", provider="brokenlib", custom=True,
                             kernel=lambda x, out: None)
    try:
        with pytest.warns(RuntimeWarning, match="cannot load"):
            with pytest.raises(RuntimeError, match="For 'Custom:only_broken', the only CPU "
                               "kernels .* provider 'brokenlib', which cannot load: ImportError"):
                ops.Custom(None, type="only_broken")(ms.Tensor(np.ones(2, np.float32)))
    finally:
        registry.unregister_kernel("only_broken", "brokenlib", custom=True)


def test_tests_write_caches_under_pytest_tmp(tmp_path_factory):
    from mindlite.kernels.custom import cache_dir
    base = tmp_path_factory.getbasetemp().resolve()
    for path in (cache_dir(), os.environ["IPYTHONDIR"], os.environ["JUPYTER_RUNTIME_DIR"],
                 os.environ["MPLCONFIGDIR"]):
        assert Path(path).resolve().is_relative_to(base), path


@pytest.mark.parametrize("provider", ["numpy", "numba"])
def test_optimizer_with_a_requested_kernel_provider(provider):
    """A per-primitive provider request reaches selection, not the kernel's arguments."""
    if provider == "numba":
        pytest.importorskip("numba", reason="numba is not installed")
    var = ms.Parameter(ms.Tensor(np.ones(4, np.float32)), name="var")
    acc = ms.Parameter(ms.Tensor(np.zeros(4, np.float32)), name="acc")
    prim = ops.ApplyMomentum().add_prim_attr("kernel_provider", provider)
    prim(var, acc, 0.5, ms.Tensor(np.full(4, 2.0, np.float32)), 0.9)
    np.testing.assert_array_equal(var.asnumpy(), np.zeros(4, np.float32))
