"""PynativeExecutor: the singleton `_run_op` hands every first call of a signature to.

As MindSpore's PynativeExecutor it owns a ForwardExecutor (runs the op) and a
GradExecutor (records it for autodiff); `real_run_op` is the entry point.
"""
from .forward import ForwardExecutor
from .grad import GRAD_EXECUTOR


class PynativeExecutor:
    def __init__(self):
        self.grad_executor = GRAD_EXECUTOR
        self.forward_executor = ForwardExecutor(self.grad_executor)

    def real_run_op(self, prim, name, args):
        return self.forward_executor.run_op(prim, args)


PYNATIVE_EXECUTOR = PynativeExecutor()
