"""PynativeExecutor: the singleton `_run_op` hands every first call of a signature to.

As MindSpore's PynativeExecutor it owns a ForwardExecutor (runs the op) and a
GradExecutor (records it for autodiff); `real_run_op` is the entry point. Importing this module
fills common/api.py's PYNATIVE slot, through which Primitive, Tensor and the op families reach
the executor and its grad recorder from the floors below.
"""
from ..backend.session import session_factory
from ..common import api
from ..common.abstract import AbstractTensor
from ..context import CONTEXT
from . import inplace
from .forward import ForwardExecutor
from .grad import GRAD_EXECUTOR


class PynativeExecutor:
    def __init__(self):
        self.grad_executor = GRAD_EXECUTOR
        self.forward_executor = ForwardExecutor(self.grad_executor)

    def real_run_op(self, prim, name, args):
        return self.forward_executor.run_op(prim, args)

    def select_kernel(self, prim, args):
        """The KernelDef that runs `prim(*args)` (None if inference folds it to a constant): the
        first-call steps 1-4 and the session's kernel selection, without running the kernel."""
        info = self.forward_executor.prepare(prim, args)
        out = info.output_abstract
        if not isinstance(out, (AbstractTensor, tuple)) or getattr(out, "value", None) is not None:
            return None
        graph = session_factory(CONTEXT.values["device_target"]).compile_op(
            info, CONTEXT.values["backend_policy"], CONTEXT.values["kernel_provider"])
        return graph.kernel


PYNATIVE_EXECUTOR = PynativeExecutor()
api.PYNATIVE.fill(run_op=PYNATIVE_EXECUTOR.real_run_op,
                  select_kernel=PYNATIVE_EXECUTOR.select_kernel,
                  prepare=PYNATIVE_EXECUTOR.forward_executor.prepare, grad=GRAD_EXECUTOR,
                  log_write=inplace.log_write, snapshot=inplace.snapshot, adopt=inplace.adopt)
