"""CPUSession: compiles a call into a single-op KernelGraph (cached) and runs it.

compile_op: graph-info key (prim, attrs, input abstracts, policy, provider) ->
KernelGraph with the kernel selected from the registry and its parameters bound (an LRU of
GRAPH_CAP graphs, mindlite/cache_limits.py; a runner keeps its own graph's launch).
select_kernel: the selection itself (kernels/registry.py's order): the primitive's own
"kernel_provider" attr is a strict request, the context's a preference; policy "vm" asks for
the numpy reference. A Custom primitive chooses among the kernels registered for its type
("Custom:<type>") and, last, its own func's generic kernel.
run_op: hands the graph and input arrays to the CPUKernelRuntime.
Registering a kernel after graphs were built drops them (registry.LISTENERS).
"""
import itertools

from ..cache_limits import LRUCache
from ..kernels import registry
from ..runtime.cpu_kernel_runtime import CPUKernelRuntime
from .single_op_graph import KernelGraph, KernelNode
from .session import register_session


@register_session("CPU")
class CPUSession:
    def __init__(self):
        self.runtime = CPUKernelRuntime()
        self.graphs = LRUCache("GRAPH_CAP")
        self._graph_ids = itertools.count()
        registry.LISTENERS.append(self.graphs.clear)

    def compile_op(self, info, policy="ms", provider=None):
        prim = info.prim
        key = (type(prim), prim.name, prim.attrs_key, info.key, policy, provider)
        graph = self.graphs.get(key)
        if graph is None:
            kernel = self.select_kernel(info, policy, provider)
            params = prim.kernel_params(*info.input_abstracts)
            launch = kernel.bind(params, info)
            node = KernelNode(prim, kernel, launch, info.input_abstracts, info.output_abstract)
            graph = KernelGraph(next(self._graph_ids), node, prim.dynamic_shape)
            self.graphs[key] = graph
        return graph

    def select_kernel(self, info, policy="ms", provider=None):
        prim = info.prim
        op = getattr(prim, "kernel_key", None) or prim.name
        label = getattr(prim, "label", prim.name)
        candidates = registry.kernels_for(op, "CPU")
        own = list(prim.own_kernels()) if hasattr(prim, "own_kernels") else []
        strict = False
        requested = prim.attrs.get("kernel_provider")
        if requested is not None:
            if not isinstance(requested, str):
                raise TypeError(f"For '{label}', the attr 'kernel_provider' must be a str, but "
                                f"got {requested!r}")
            provider, strict = requested, True
        if policy == "vm":
            if own:
                candidates = []
            provider, strict = "numpy", False
        return registry.select_from(label, candidates + own, "CPU", _main_type(info), provider,
                                    info.input_abstracts, strict)

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
    if out is None:
        return None
    return out.dtype if hasattr(out, "dtype") else out[0].dtype
