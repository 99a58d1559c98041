"""The build does no needless work: `make test` / `make demo` install with pip only when
pyproject.toml or setup.py changed and rebuild the extension only when a file under csrc/
changed (checked with `make -n` on a copy of the Makefile in a scratch tree), and setup.py
recompiles an object only when its source, a file it includes (gcc -MMD) or setup.py is newer.
"""
import ast
import os
import shutil
import subprocess
import sysconfig
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _needs_recompile(setup_py):
    """setup.py's needs_recompile (with its _deps), without running setup(); `setup_py` stands
    in for setup.py itself."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    ns = {"os": os, "SETUP_PY": str(setup_py)}
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)
             and n.name in ("_deps", "needs_recompile")]
    exec(compile(ast.Module(funcs, []), "setup.py", "exec"), ns)
    return ns["needs_recompile"]


def _age(path, seconds):
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_needs_recompile_follows_gcc_dependency_files(tmp_path):
    src, hdr, obj, setup_py = (tmp_path / n for n in ("a.cc", "a.h", "a.o", "setup.py"))
    needs_recompile = _needs_recompile(setup_py)
    for p in (src, hdr, obj, setup_py):
        p.write_text("\n")
    for p in (src, hdr, setup_py):
        _age(p, 100)
    _age(obj, 50)
    assert needs_recompile(str(obj), str(src))                 # no .d file: compile
    (tmp_path / "a.d").write_text(f"{obj}: {src} \\\n {hdr}\n")
    assert not needs_recompile(str(obj), str(src))             # up to date
    _age(hdr, 10)                                              # an included header changed
    assert needs_recompile(str(obj), str(src))
    _age(hdr, 100)
    _age(setup_py, 10)                                         # flags may have changed
    assert needs_recompile(str(obj), str(src))
    _age(setup_py, 100)
    hdr.unlink()                                               # a dependency disappeared
    assert needs_recompile(str(obj), str(src))


@pytest.fixture
def tree(tmp_path):
    """A scratch tree with the Makefile, built and installed (every output newer)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for name in ("pyproject.toml", "setup.py", "csrc/kernels/a.cc", "csrc/kernels/a.h"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("\n")
        _age(tmp_path / name, 100)
    ext = tmp_path / "mindlite" / ("_C" + sysconfig.get_config_var("EXT_SUFFIX"))
    stamp = tmp_path / "build" / ".install-stamp"
    lite = tmp_path / "build" / "litevenv" / ".installed"    # real MindSpore Lite, made once
    for p in (ext, stamp, lite):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
        _age(p, 50)
    return tmp_path


def _planned(tree):
    """The commands `make test` would run (make -n)."""
    res = subprocess.run(["make", "-n", "test", "PYTHON=python3"], cwd=tree, capture_output=True,
                         text=True, timeout=60, check=True)
    return res.stdout


def test_second_make_test_runs_only_pytest(tree):
    planned = _planned(tree)
    assert "pytest" in planned
    assert "pip install" not in planned and "build_ext" not in planned, planned


def test_a_changed_source_rebuilds_the_extension_only(tree):
    _age(tree / "csrc" / "kernels" / "a.h", 10)
    planned = _planned(tree)
    assert "build_ext" in planned and "pip install" not in planned, planned


def test_a_changed_pyproject_reinstalls(tree):
    _age(tree / "pyproject.toml", 10)
    assert "pip install" in _planned(tree)


def test_real_mindspore_lite_venv_once_or_a_printed_reason(tree):
    """`make test` makes build/litevenv (MindSpore Lite 2.0.0, a cp37 wheel) once where a
    Python 3.7 is, and says why tests/test_lite_real.py will be skipped where none is."""
    (tree / "build" / "litevenv" / ".installed").unlink()
    run = subprocess.run(["make", "-n", "test", "PYTHON=python3", "PY37=/opt/py37/bin/python3.7"],
                         cwd=tree, capture_output=True, text=True, timeout=60, check=True)
    assert "mindspore-lite==2.0.0" in run.stdout and "/opt/py37/bin/python3.7 -m venv" in run.stdout
    run = subprocess.run(["make", "test", "PYTHON=true", "PY37="], cwd=tree,
                         capture_output=True, text=True, timeout=60, check=True)
    assert "no Python 3.7" in run.stdout and "tests/test_lite_real.py" in run.stdout
    assert "mindspore-lite" not in run.stdout
