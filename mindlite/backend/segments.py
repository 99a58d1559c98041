"""Graph mode: grouping a graph's device-supported nodes into SuperKernels.

super_kernels(kg, steps, graph, target) is the GraphCompiler's split for a device with a
GraphExecutor: the lowered steps align one to one with the graph's primitive CNodes; a node
the device supports (its session gave it a device kernel) whose inputs are graph inputs,
constants or single-output primitive nodes joins the current run; any other node ends the
run and runs on CPU (its CPU kernel). Each run becomes a sub-FuncGraph -- parameters for the
values it reads from outside, output the values read after it -- compiled once by
`graph_executor.compile_graph` into a SuperKernel: one "super" step, host arrays in and out.
A whole graph the device supports is one SuperKernel. A run the device fails to compile
raises a PluginError, or runs on CPU with a warning under device_fallback=True.
"""
import warnings

from ..common.abstract import AbstractTensor
from ..context import CONTEXT
from ..ir.anf import CNode, FuncGraph, ParameterNode, ValueNode
from .memory_plan import flat_refs
from ..ir.primitive import Primitive
from ..device.base import PluginError


def _prim_nodes(graph):
    return [n for n in graph.order if isinstance(n.inputs[0], ValueNode)
            and isinstance(n.inputs[0].value, Primitive)]


def _cpu(step):
    cpu = step.kernel.cpu_graph
    step.kind, step.device, step.fn, step.kernel = "kernel", "CPU", cpu.launch, cpu.kernel
    step.params, step.kwnames = (), None
    return step


def super_kernels(kg, steps, graph, target):
    nodes = _prim_nodes(graph)
    if len(nodes) != len(steps):
        return [_cpu(s) if s.kind == "super" else s for s in steps]
    ref = {p.id: v for p, v in zip(graph.parameters, kg.args)}
    single = {}
    for n, s in zip(nodes, steps):
        if len(s.outs) == 1 and isinstance(n.abstract, AbstractTensor):
            ref[n.id] = s.outs[0]
            single[n.id] = True
    out, run = [], []
    for n, s in zip(nodes, steps):
        ok = s.kind == "super" and n.id in single and all(
            isinstance(i, ValueNode) or (isinstance(i, (ParameterNode, CNode)) and i.id in ref)
            for i in n.inputs[1:])
        if ok:
            run.append((n, s))
            continue
        if s.kind == "super":
            _cpu(s)
        out += _close(run, steps, kg, graph, target, ref, len(out))
        run = []
        out.append(s)
    out += _close(run, steps, kg, graph, target, ref, len(out))
    return out


def _close(run, steps, kg, graph, target, ref, index):
    if not run:
        return []
    fg = FuncGraph(f"{graph.name}_super{index}")
    new, params, ins = {}, {}, []
    for n, s in run:
        args = []
        for i in n.inputs[1:]:
            if isinstance(i, ValueNode):
                args.append(i)
            elif i.id in new:
                args.append(new[i.id])
            else:
                v = ref[i.id]
                if v not in params:
                    params[v] = fg.add_parameter(f"in{len(ins)}", kg.values[v].abstract)
                    ins.append(v)
                args.append(params[v])
        new[n.id] = fg.new_cnode([n.inputs[0], *args], abstract=n.abstract)
    mine = {id(s) for _, s in run}
    used_after = set(flat_refs(kg.output)) if kg.output is not None else set()
    for s in steps:
        if id(s) not in mine:
            used_after.update(flat_refs(s.ins))
    outs = [s.outs[0] for _, s in run if s.outs[0] in used_after]
    if not outs:
        return []                                  # nothing read afterwards: dead code
    by_value = {s.outs[0]: new[n.id] for n, s in run}
    if len(outs) == 1:
        fg.set_output(by_value[outs[0]])
    else:
        from ..ir.anf import MAKE_TUPLE
        fg.set_output(fg.new_cnode([MAKE_TUPLE, *(by_value[v] for v in outs)],
                                   abstract=tuple(by_value[v].abstract for v in outs)))
    try:
        kernel = target.graph_executor.compile_graph(fg)
    except Exception as err:
        error = PluginError(f"Device plugin '{target.plugin}' failed to compile the graph "
                            f"@{fg.name} ({', '.join(s.name for _, s in run)}): "
                            f"{type(err).__name__}: {err}")
        if not CONTEXT.values.get("device_fallback"):
            raise error from err
        warnings.warn(f"mindlite: {error}; it runs on CPU (device_fallback=True)",
                      RuntimeWarning, stacklevel=2)
        return [_cpu(s) for _, s in run]
    from .graph_compiler import Step
    return [Step("super", target.name, kernel, tuple(ins), tuple(outs), kernel=kernel)]
