"""CPUKernelRuntime: assigns output addresses, binds, launches a KernelGraph's kernels in order.

run() is the first-call path, step by step; allocator() gives the cached runner
a zero-argument function producing an output buffer for one output abstract.
Dynamic-shape kernels (Unique, MaskedSelect) allocate their own outputs; the
output abstract is taken from the result after launch ("resize").
"""
import numpy as np

from .memory import MemoryPool, POOL_MIN_BYTES


class CPUKernelRuntime:
    def __init__(self):
        self.pool = MemoryPool()

    def allocator(self, out_abs):
        shape, np_dtype = tuple(out_abs.shape), out_abs.np
        nbytes = out_abs.size * np_dtype.itemsize
        if nbytes < POOL_MIN_BYTES:
            empty = np.empty
            return lambda: empty(shape, np_dtype)
        alloc = self.pool.alloc
        return lambda: alloc(shape, np_dtype, nbytes)

    def assign_addresses(self, graph):
        if graph.kernel.alloc == "kernel" or graph.dynamic:
            return []
        return [self.allocator(a)() for a in graph.outputs]

    def run(self, graph, inputs):
        outputs = self.assign_addresses(graph)
        for node in graph.execution_order:
            if outputs:
                node.launch(*inputs, *outputs)
            else:
                result = node.launch(*inputs)
                outputs = list(result) if isinstance(result, (tuple, list)) else [result]
                self._check_kernel_outputs(graph, node, outputs)
        return outputs

    def _check_kernel_outputs(self, graph, node, outputs):
        """Kernels that allocate must return what inference promised (dynamic dims aside)."""
        if len(outputs) != len(graph.outputs):
            raise RuntimeError(f"Kernel '{node.kernel.name}' of '{node.prim.name}' returned "
                               f"{len(outputs)} outputs, inference expected {len(graph.outputs)}")
        for o, a in zip(outputs, graph.outputs):
            ok_shape = len(o.shape) == len(a.shape) and all(
                d < 0 or d == s for d, s in zip(a.shape, o.shape))
            if not ok_shape or o.dtype != a.np:
                raise RuntimeError(f"Kernel '{node.kernel.name}' of '{node.prim.name}' returned "
                                   f"shape {list(o.shape)} {o.dtype}, inference expected "
                                   f"{list(a.shape)} {a.dtype}")
