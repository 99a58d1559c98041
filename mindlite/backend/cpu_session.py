"""CPUSession: compiles a call into a single-op KernelGraph (cached) and runs it.

compile_op: graph-info key (prim, attrs, input abstracts, policy, provider) ->
KernelGraph with the kernel selected from the registry and its parameters bound.
run_op: hands the graph and input arrays to the CPUKernelRuntime.
"""
from ..kernels import registry
from ..runtime.cpu_kernel_runtime import CPUKernelRuntime
from .kernel_graph import KernelGraph, KernelNode
from .session import register_session


@register_session("CPU")
class CPUSession:
    def __init__(self):
        self.runtime = CPUKernelRuntime()
        self.graphs = {}

    def compile_op(self, info, policy="ms", provider=None):
        prim = info.prim
        key = (type(prim), prim.name, prim.attrs_key, info.key, policy, provider)
        graph = self.graphs.get(key)
        if graph is None:
            main_type = _main_type(info)
            if policy == "vm":
                provider = "numpy"
            kernel = registry.select_kernel(prim.name, "CPU", main_type, provider,
                                            info.input_abstracts)
            params = prim.kernel_params(*info.input_abstracts)
            launch = kernel.bind(params, info)
            node = KernelNode(prim, kernel, launch, info.input_abstracts, info.output_abstract)
            graph = KernelGraph(len(self.graphs), node, prim.dynamic_shape)
            self.graphs[key] = graph
        return graph

    def run_op(self, graph, inputs):
        return self.runtime.run(graph, inputs)


def _main_type(info):
    """The dtype kernels are selected by: the first tensor input's (after casting)."""
    for kind, t in zip(info.kinds, info.types):
        if kind == "tensor" or kind == "scalar":
            return t
        if kind == "list" and t:
            return t[0]
    out = info.output_abstract
    return out.dtype if hasattr(out, "dtype") else out[0].dtype
