"""Modules that moved to their floor keep their old import paths (mindlite/_moved.py): each old
path gives the module at its new path itself, by `import`, `from ... import` and pickle."""
import importlib
import pickle
import subprocess
import sys

import mindlite as ms
from mindlite import _moved


def test_every_old_path_is_the_moved_module_itself():
    for old, new in _moved.MOVED.items():
        assert importlib.import_module(old) is importlib.import_module(new), old
        assert sys.modules[old].__name__ == new          # the module keeps its own name
        assert sys.modules[old].__spec__.name == new


def test_old_paths_work_in_every_import_form():
    from mindlite.ops.primitive import Primitive
    from mindlite.ops import primitive
    from mindlite.jit import kernel_graph as kg
    from mindlite.ir.primitive import Primitive as P2
    assert Primitive is P2 and primitive.Primitive is P2
    assert kg.program_for is importlib.import_module("mindlite.backend.program").program_for
    assert kg.KERNEL == importlib.import_module("mindlite.backend.lowering").KERNEL


def test_a_fresh_process_imports_an_old_path_first():
    code = ("import mindlite.pynative.grad as g, mindlite.ops.primitive as p; "
            "from mindlite.ir import rules, primitive; "
            "assert g.bprop_for is rules.bprop_for and p is primitive; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_a_primitive_pickled_by_its_class_path_loads():
    prim = ms.ops.ReduceSum(keep_dims=True)
    again = pickle.loads(pickle.dumps(prim))
    assert again == prim and type(again) is type(prim)
