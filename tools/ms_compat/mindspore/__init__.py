"""`mindspore` as an alias of mindlite, for running code written for MindSpore unchanged.

Put `tools/ms_compat` first on PYTHONPATH (with mindlite importable) and `import mindspore`
gives the `mindlite` module itself; `import mindspore.X.Y` gives `mindlite.X.Y` — the same
module objects, so `mindspore.nn.Cell is mindlite.nn.Cell` and classes, registries and
global state are shared. A name mindlite lacks fails as it would: ImportError or
AttributeError naming the mindlite module. Used by the model-zoo and op-test runners in
tools/ms_compat/ and by tests/test_ms_compat.py.
"""
import importlib
import importlib.abc
import importlib.util
import sys

import mindlite

_PREFIX = "mindspore"


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `mindspore.X` as the already imported (or now imported) `mindlite.X`."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX + "."):
            return None
        real = "mindlite" + fullname[len(_PREFIX):]
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        return importlib.import_module("mindlite" + spec.name[len(_PREFIX):])

    def exec_module(self, module):
        pass


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.insert(0, _Alias())
sys.modules[_PREFIX] = mindlite
