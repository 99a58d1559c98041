"""The backend session of a plugin device: how eager ops (and lowered graphs) reach it.

register_device_session(name) registers, through backend/session.py's register_session, a
session whose compile_op selects per op:
  kernel mode   the device's KernelExecutor kernel (KernelRequest: op, abstracts, params);
                none -> the CPU session's kernel (heterogeneous fallback, always allowed)
  graph mode    a single-op FuncGraph compiled by the device's GraphExecutor (as MindSpore
                runs PyNative ops on graph-mode chips); unsupported -> the CPU kernel
The selected device kernel becomes a DeviceKernelDef (a KernelDef whose launch copies the
host inputs to the device, launches, and copies the outputs back), so the forward executor,
the runners and the graph lowering use it as any other kernel. `kernel.device` says where a
node runs; the GraphCompiler (backend/graph_compiler.py) reads it to split graphs.

A device kernel that fails raises a PluginError naming the plugin and the op; with
set_context(device_fallback=True) the call is rerun on the CPU kernel instead (with one
warning) and that kernel is not used again.
"""
import warnings

import numpy as np

from ..common.abstract import AbstractTensor, abstract_of_array
from .single_op_graph import KernelGraph, KernelNode
from .session import register_session, session_factory
from ..cache_limits import LRUCache
from ..context import CONTEXT
from ..kernels.kernel_def import KernelDef
from ..runtime.cpu_kernel_runtime import CPUKernelRuntime
from ..device.base import KernelRequest, PluginError


class DeviceKernelDef(KernelDef):
    """A KernelDef for a kernel running on a plugin device; `device_kernel` the DeviceKernel
    (kernel mode) or the SuperKernel (graph mode), `context` its DeviceContext."""
    __slots__ = ("device_kernel", "context", "request", "cpu_graph", "failed")


def request_for(info):
    """The KernelRequest of a forward-executor call (kernel inputs only: constants drop)."""
    prim = info.prim
    ins = []
    for kind, a, v in zip(info.kinds, info.input_abstracts, info.values):
        if kind == "const":
            continue
        ins.append(a if isinstance(a, AbstractTensor) else abstract_of_array(np.asarray(v)))
    out = info.output_abstract
    outs = out if isinstance(out, tuple) else (out,)
    op = getattr(prim, "kernel_key", None) or prim.name
    return KernelRequest(op, ins, outs, prim.kernel_params(*info.input_abstracts), prim)


class DeviceSession:
    device_name = None

    def __init__(self):
        from ..device.registry import get_device_context
        self.context = get_device_context(self.device_name)
        self.runtime = CPUKernelRuntime()
        self.graphs = LRUCache("GRAPH_CAP")
        from ..kernels import registry
        registry.LISTENERS.append(self.graphs.clear)

    @property
    def cpu(self):
        return session_factory("CPU")

    def select_kernel(self, info, policy="ms", provider=None):
        graph = self.compile_op(info, policy, provider)
        return graph.kernel

    def compile_op(self, info, policy="ms", provider=None):
        prim = info.prim
        key = (type(prim), prim.name, prim.attrs_key, info.key, policy, provider)
        graph = self.graphs.get(key)
        if graph is not None:
            return graph
        cpu_graph = self.cpu.compile_op(info, policy, provider)
        graph = cpu_graph
        if policy == "ms" and provider is None and "kernel_provider" not in prim.attrs \
                and not prim.dynamic_shape and cpu_graph.kernel.alloc != "kernel" \
                and "list" not in info.kinds:
            kdef = self._device_kernel(info, cpu_graph)
            if kdef is not None:
                kdef.fn = self._launch(kdef)      # lowering calls kernel.fn as the launch
                node = KernelNode(prim, kdef, kdef.fn, info.input_abstracts,
                                  info.output_abstract)
                graph = KernelGraph(cpu_graph.graph_id, node, False)
        self.graphs[key] = graph
        return graph

    def _device_kernel(self, info, cpu_graph):
        ctx = self.context
        request = request_for(info)
        try:
            if ctx.kernel_executor is not None:
                dk = ctx.kernel_executor.select_kernel(request)
            else:
                dk = self._single_op_graph(info, request)
        except PluginError:
            raise
        except Exception as err:
            raise PluginError(f"Device plugin '{ctx.plugin}' failed selecting a kernel for op "
                              f"'{request.op}': {type(err).__name__}: {err}") from err
        if dk is None:
            return None
        kdef = DeviceKernelDef(request.op, ctx.name, None, ctx.name, 0, "runtime", None, None,
                               builtin=True)
        kdef.name = getattr(dk, "name", request.op)
        kdef.device_kernel, kdef.context, kdef.request = dk, ctx, request
        kdef.cpu_graph, kdef.failed = cpu_graph, False
        return kdef

    def _single_op_graph(self, info, request):
        """Graph mode: the op as a one-node FuncGraph, compiled by the GraphExecutor."""
        from ..ir.anf import FuncGraph
        if len(request.outputs) != 1:
            return None
        fg = FuncGraph(f"{request.op}_op")
        args, ins = [], iter(request.inputs)
        for i, (kind, v) in enumerate(zip(info.kinds, info.values)):
            args.append(v if kind == "const" else fg.add_parameter(f"x{i}", next(ins)))
        node = fg.new_cnode([info.prim, *args], abstract=request.outputs[0])
        fg.set_output(node)
        ge = self.context.graph_executor
        if not ge.supports(node):
            return None
        return _LazySuperKernel(ge, fg)

    def _launch(self, kdef):
        ctx, dk = kdef.context, kdef.device_kernel
        nin = len(kdef.request.inputs)
        label = kdef.request.op
        if ctx.kernel_executor is not None:
            rm, ke = ctx.res_manager, ctx.kernel_executor

            def run(ins, outs):
                in_addrs = [rm.to_device(a) for a in ins]
                out_addrs = [rm.alloc_address(o.shape, o.dtype) for o in outs]
                ke.launch(dk, in_addrs, out_addrs)
                for o, a in zip(outs, out_addrs):
                    rm.copy_device_to_host(o, a)
        else:
            def run(ins, outs):
                for o, r in zip(outs, dk(list(ins))):
                    np.copyto(o, np.asarray(r).reshape(o.shape), casting="same_kind")

        def launch(*arrays):
            if kdef.failed:
                return kdef.cpu_graph.launch(*arrays)
            try:
                run(arrays[:nin], arrays[nin:])
            except Exception as err:
                error = kernel_error(ctx, label, kdef.name, err)
                if not CONTEXT.values.get("device_fallback"):
                    raise error from err
                kdef.failed = True
                warnings.warn(f"mindlite: {error}; op '{label}' runs on CPU from now on "
                              f"(device_fallback=True)", RuntimeWarning, stacklevel=2)
                return kdef.cpu_graph.launch(*arrays)
        launch.__name__ = kdef.name
        return launch

    def run_op(self, graph, inputs):
        return self.runtime.run(graph, inputs)


class _LazySuperKernel:
    """A single-op graph compiled on its first launch (graph lowering selects kernels for
    every node but the GraphCompiler runs graph-mode devices' nodes as whole SuperKernels)."""

    def __init__(self, graph_executor, graph):
        self.graph_executor, self.graph, self.compiled = graph_executor, graph, None
        self.name = f"{graph_executor.device}:{graph.name}"

    def __call__(self, arrays):
        if self.compiled is None:
            self.compiled = self.graph_executor.compile_graph(self.graph)
        return self.compiled(arrays)


def kernel_error(ctx, op, kernel, err):
    if isinstance(err, PluginError):
        return err
    return PluginError(f"Device plugin '{ctx.plugin}' failed op '{op}' (kernel '{kernel}' on "
                       f"{ctx.name}:{ctx.device_id}): {type(err).__name__}: {err}")


def register_device_session(name):
    """The session class of plugin device `name` (backend/session.py's registry)."""
    register_session(name)(type(f"{name}Session", (DeviceSession,), {"device_name": name}))
