"""Old module paths kept importable after a module moved: `import mindlite.ops.primitive` (or
`from mindlite.ops.primitive import Primitive`, or a pickle naming it) gives the module at its
new place itself, the same object, so attributes set on it (tests' monkeypatching) are seen
everywhere.

MOVED maps each old dotted path to the new one. A finder put on sys.meta_path when this
module is imported (first thing in mindlite/__init__.py) answers only for those names and
imports the new module when an old name is first asked for, so the table costs nothing at
`import mindlite` and draws no import arrow between floors. New code uses the new paths
(docs/architecture.md lists the floors).
"""
import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    "mindlite.abstract": "mindlite.common.abstract",
    "mindlite.backend.kernel_graph": "mindlite.backend.single_op_graph",
    "mindlite.device.passes": "mindlite.jit.passes.device",
    "mindlite.device.session": "mindlite.backend.device_session",
    "mindlite.device.segments": "mindlite.backend.segments",
    "mindlite.jit.executor": "mindlite.backend.interpreter",
    "mindlite.jit.kernel_graph": "mindlite.backend.program",
    "mindlite.jit.parse_call": "mindlite.jit.parse.call",
    "mindlite.jit.parse_control": "mindlite.jit.parse.control",
    "mindlite.jit.parse_expr": "mindlite.jit.parse.expr",
    "mindlite.jit.parse_grad": "mindlite.jit.parse.grad",
    "mindlite.jit.parse_graph_cell": "mindlite.jit.parse.graph_cell",
    "mindlite.jit.parse_stmt": "mindlite.jit.parse.stmt",
    "mindlite.jit.memory_plan": "mindlite.backend.memory_plan",
    "mindlite.kernels.views": "mindlite.common.views",
    "mindlite.ops.function.vmap_func": "mindlite.jit.vmap",
    "mindlite.ops.primitive": "mindlite.ir.primitive",
}


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of MOVED and loads it as the module at its new path."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name])
        spec.loader_state = module.__spec__       # restored below: the module keeps its own
        return module

    def exec_module(self, module):
        # the import system set the old name's spec on the module; give it back its own
        real = module.__spec__.loader_state
        if real is not None:
            module.__spec__ = real
            module.__loader__ = real.loader


if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _MovedFinder())
