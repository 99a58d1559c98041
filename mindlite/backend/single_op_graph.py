"""KernelGraph: a single-op graph (inputs -> one kernel node -> outputs), as PyNative builds.

It holds the selected kernel and its bound launch function; execution_order
lists the kernel nodes the runtime launches in order (one here; graph mode will
make longer ones).
"""
from ..common.abstract import AbstractTensor


class KernelNode:
    __slots__ = ("prim", "kernel", "launch", "input_abstracts", "output_abstracts")

    def __init__(self, prim, kernel, launch, input_abstracts, output_abstracts):
        self.prim = prim
        self.kernel = kernel
        self.launch = launch
        self.input_abstracts = input_abstracts
        self.output_abstracts = output_abstracts


class KernelGraph:
    def __init__(self, graph_id, node, dynamic):
        self.graph_id = graph_id
        self.execution_order = [node]
        self.kernel = node.kernel
        self.launch = node.launch
        self.dynamic = dynamic
        out = node.output_abstracts
        self.outputs = (out,) if isinstance(out, AbstractTensor) else tuple(out)

    def __repr__(self):
        node = self.execution_order[0]
        return (f"KernelGraph(id={self.graph_id}, {node.prim!r} -> {node.kernel.name} "
                f"[{node.kernel.provider}])")
