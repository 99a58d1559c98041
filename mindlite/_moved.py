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
import importlib.util
import sys

MOVED = {
    "mindlite.abstract": "mindlite.common.abstract",
    "mindlite.backend.kernel_graph": "mindlite.backend.single_op_graph",
    "mindlite.device.passes": "mindlite.jit.passes.device",
    "mindlite.device.segments": "mindlite.backend.segments",
    "mindlite.device.session": "mindlite.backend.device_session",
    "mindlite.jit.executor": "mindlite.backend.interpreter",
    "mindlite.jit.kernel_graph": "mindlite.backend.program",
    "mindlite.jit.memory_plan": "mindlite.backend.memory_plan",
    "mindlite.jit.parse_call": "mindlite.jit.parse.call",
    "mindlite.jit.parse_control": "mindlite.jit.parse.control",
    "mindlite.jit.parse_expr": "mindlite.jit.parse.expr",
    "mindlite.jit.parse_grad": "mindlite.jit.parse.grad",
    "mindlite.jit.parse_graph_cell": "mindlite.jit.parse.graph_cell",
    "mindlite.jit.parse_stmt": "mindlite.jit.parse.stmt",
    "mindlite.kernels.cpu.loss_extra_numpy": "mindlite.kernels.cpu.pointwise_loss_numpy",
    "mindlite.kernels.cpu.optim_extra_numpy": "mindlite.kernels.cpu.optim_adaptive_numpy",
    "mindlite.kernels.views": "mindlite.common.views",
    "mindlite.nn.layer.activation_extra": "mindlite.nn.layer.activation",
    "mindlite.nn.layer.norm_extra": "mindlite.nn.layer.group_norm",
    "mindlite.nn.loss.loss_extra": "mindlite.nn.loss.functional_losses",
    "mindlite.onnx.export_ops_extra": "mindlite.onnx.export_ops_activation",
    "mindlite.onnx.import_ops_extra": "mindlite.onnx.import_ops_activation",
    "mindlite.ops.function.conv_extra_func": "mindlite.ops.function.conv_nd_func",
    "mindlite.ops.function.loss_extra_func": "mindlite.ops.function.loss_distance_func",
    "mindlite.ops.function.loss_more_func": "mindlite.ops.function.loss_margin_nll_func",
    "mindlite.ops.function.nn_extra_func": "mindlite.ops.function.pool_resize_func",
    "mindlite.ops.function.random_extra_func": "mindlite.ops.function.random_func",
    "mindlite.ops.function.vmap_func": "mindlite.jit.vmap",
    "mindlite.ops.operations.index_extra_ops": "mindlite.ops.operations.mask_ops",
    "mindlite.ops.operations.loss_extra_ops": "mindlite.ops.operations.pointwise_loss_ops",
    "mindlite.ops.operations.optim_extra_ops": "mindlite.ops.operations.optim_adaptive_ops",
    "mindlite.ops.primitive": "mindlite.ir.primitive",
    "mindlite.train.callback_extra": "mindlite.train.callback_monitor",
    "mindlite.train.metrics_extra": "mindlite.train.metrics_classification",
}


class _MovedFinder:
    """Finds an old path of MOVED and loads it as the module at its new path (a meta path
    finder and its loader, by protocol: importlib.abc's classes would cost an import)."""

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
