"""Lite nodes -> a FuncGraph of mindlite primitives -> a runnable program.

    GraphBuilder(model, name, abstracts)   .add(node) runs the node's ops_map.IMPORT rule
    builder.compile(outputs) -> Program    the Transposes around NHWC ops moved down and
                                           cancelled (transposes.sink_transposes; one that
                                           moves size-1 axes only is a Reshape), then
                                           mindlite's pass pipeline (its fusions: fused
                                           MatMul+BiasAdd+ReLU, elementwise groups; no user
                                           converter passes; then MobileNetV2's inverted-residual
                                           blocks as one node each, fuse_inverted_residual),
                                           then lowering to a KernelGraph
                                           with kernels selected through mindlite's kernel
                                           registry and buffers preplanned (backend/memory_plan.py),
                                           run by the C graph runner

The scheduler (scheduler.py) builds one per Lite kernel (for kernel selection, shapes and
per-kernel callbacks) and one per CPU SubGraph kernel (the fast path). A graph the C runner
cannot take runs on mindlite's graph interpreter instead (Program.reason says why).
"""

from .. import _C
from ..common.abstract import AbstractTensor
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, TUPLE_GETITEM, AnfNode, FuncGraph, ParameterNode, ValueNode
from ..ir.infer import Folded, infer_call
from ..backend import lowering as kernel_graph
from ..backend.interpreter import run_graph
from ..ir.manager import FuncGraphManager
from ..jit.passes import fuse_inverted_residual
from ..jit.passes.pipeline import run_pipeline, skipping
from .transposes import reshape_trivial_transposes, sink_transposes
from .ops_map import IMPORT


ALIGN = 64                  # bytes: an AVX-512 vector, a cache line


def const_parameter(array, name):
    """A model constant as a Parameter whose data is a frozen copy (`_C.frozen_copy`): read-only
    for good (numpy refuses to make it writeable) and starting on an ALIGN-byte boundary.

    Frozen: kernels may trust its contents by the block's id; the Winograd weight cache
    (csrc/kernels/conv_winograd_weights.cc) then skips comparing the weights with its copy at
    every call (2 x 9.4 MB read per call for a 512 x 512 3 x 3 layer; ResNet18's whole predict
    at 224, one thread, 25.3-25.8 -> 22.4-23.0 ms). Aligned: numpy's allocator gives large
    arrays 16-byte alignment (malloc's mmap'd chunks), so a kernel's 64-byte vector loads along
    a weight row split across two cache lines. Measured on the 10x256 MLP at batch 1: 45 us
    with every weight aligned, 47-48 us as allocated (same bits: the kernels compute the same
    sums, only the loads differ)."""
    value = Parameter(Tensor(array), name=name, requires_grad=False)
    value._arr = _C.frozen_copy(value.asnumpy())   # a fresh Parameter: nothing has seen its array
    return value


class LiteBuildError(ValueError):
    """A node the Lite runtime cannot build: names the file, the node and the op."""


class GraphBuilder:
    """Builds one FuncGraph from Lite nodes. `abstracts`: tensor index -> AbstractTensor of
    the tensors that come from outside (graph inputs, other kernels' outputs); `folded`:
    tensor index -> Tensor of those the scheduler computed at build (a Shape and what it
    feeds), which the graph takes as constants."""

    def __init__(self, model, name, abstracts, folded=None):
        self.model, self.abstracts = model, abstracts
        self.folded = {} if folded is None else folded
        self.fg = FuncGraph(name)
        self.env = {}                       # tensor index -> AnfNode
        self.sources = []                   # per parameter: tensor index (input) or Tensor
        self.node = None

    # the rule-facing API (ops_map.IMPORT)
    def input(self, i):
        t = self.node.inputs[i]
        hit = self.env.get(t)
        if hit is not None:
            return hit
        lt = self.model.tensors[t]
        const = lt.const if lt.const is not None else self.folded.get(t)
        if const is not None:
            p = self.fg.add_parameter(lt.name, const._abs, default=const)
            self.sources.append(const)
        else:
            a = self.abstracts.get(t)
            if a is None:
                self.fail(f"its input {lt.name!r} (tensor {t}) is not computed before it")
            if not isinstance(a, AbstractTensor):
                self.fail(f"its input {lt.name!r} (tensor {t}) is a PartialFusion's value, "
                          "not a tensor")
            p = self.fg.add_parameter(lt.name, a)
            self.sources.append(t)
        self.env[t] = p
        return p

    def new_const(self, array, name):
        """A constant made at build time (e.g. weights in another layout): a parameter."""
        value = const_parameter(array, name)
        self.sources.append(value)
        return self.fg.add_parameter(name, value._abs, default=value)

    def const(self, i):
        t = self.node.inputs[i]
        c = self.model.tensors[t].const
        c = self.folded.get(t) if c is None else c
        return None if c is None else c.asnumpy()

    def is_const(self, t):
        return self.model.tensors[t].const is not None or t in self.folded

    def fail(self, msg):
        n = self.node
        raise LiteBuildError(f"{self.model.path}: node {n.name!r} (op {n.op_type}): {msg}")

    def emit(self, prim, *args):
        ins, abstracts = [], []
        for a in args:
            if isinstance(a, tuple) and all(isinstance(x, AnfNode) for x in a):
                abs_ = tuple(x.abstract for x in a)
                a = self.fg.new_cnode([ValueNode(MAKE_TUPLE)] + list(a), abs_)
            ins.append(a if isinstance(a, AnfNode) else ValueNode(a))
            abstracts.append(a.abstract if isinstance(a, AnfNode) else a)
        try:
            out = infer_call(prim, abstracts)
        except (TypeError, ValueError) as err:
            self.fail(f"{type(err).__name__}: {err}")
        if isinstance(out, Folded):
            return ValueNode(out.value)
        return self.fg.new_cnode([ValueNode(prim)] + ins, out, name=self.node.name)

    def item(self, node, i):
        """Output i of a multi-output primitive call."""
        return self.fg.new_cnode([ValueNode(TUPLE_GETITEM), node, ValueNode(i)],
                                 node.abstract[i])

    # the scheduler-facing API
    def add(self, node):
        """Add Lite node `node`; returns the AbstractTensors of its outputs."""
        self.node = node
        rule = IMPORT.get(node.op_type)
        if rule is None:
            self.fail("the op is not supported by mindlite's Lite runtime")
        for i in range(len(node.inputs)):
            if not self.is_const(node.inputs[i]):
                self.input(i)
        try:
            outs = rule(self, node)
        except LiteBuildError:
            raise
        except (TypeError, ValueError, KeyError, IndexError) as err:
            self.fail(f"{type(err).__name__}: {err}")
        if len(outs) != len(node.outputs):
            self.fail(f"it has {len(node.outputs)} output tensors, the op gives {len(outs)}")
        for t, out in zip(node.outputs, outs):
            self.env[t] = out
        return [o.abstract for o in outs]

    def constant(self, t):
        """The value of tensor t as a Tensor when the graph makes it a constant (a rule that
        gives one, as Shape's), else None."""
        n = self.env[t]
        if isinstance(n, ParameterNode) and n.default is not None:
            return n.default
        if isinstance(n, ValueNode) and isinstance(n.value, Tensor):
            return n.value
        return None

    def compile(self, outputs):
        """The Program computing tensors `outputs` (indices) from this graph's parameters."""
        nodes = [self.env[t] for t in outputs]
        if len(nodes) == 1:
            self.fg.set_output(nodes[0])
        else:
            self.fg.set_output(self.fg.new_cnode([ValueNode(MAKE_TUPLE)] + nodes,
                                                 tuple(n.abstract for n in nodes)))
        manager = FuncGraphManager(self.fg)       # the transposes around NHWC ops meet and
        sink_transposes(self.fg, manager)         # cancel; one of one channel is a reshape
        reshape_trivial_transposes(self.fg, manager)
        with skipping(user_passes=True):
            run_pipeline(self.fg)
        fuse_inverted_residual.run(self.fg, FuncGraphManager(self.fg))   # inference only
        return Program(self.fg, self.sources, outputs)


class Program:
    """A compiled graph: call with {tensor index: Tensor}; returns the output Tensors.
    `selected`: (primitive, KernelDef) of each lowered kernel step (None: interpreted)."""

    def __init__(self, fg, sources, outputs):
        self.fg, self.sources, self.outputs = fg, sources, list(outputs)
        self.inputs = [s for s in sources if not isinstance(s, Tensor)]
        self.reason = None
        try:
            kg = kernel_graph.lower(fg)
        except kernel_graph.NotLowerable as err:
            kg, self.reason = None, str(err)
        self.prog = None
        if kg is not None:
            from ..backend.program import GraphProgram
            self.prog = GraphProgram(kg, kernel_graph._EPOCH[0])
            if self.prog.runner is None:
                self.reason, self.prog = self.prog.reason, None
        self.kg = kg
        self.selected = [(s.prim, s.kernel) for s in kg.steps] if kg is not None else None

    def __call__(self, env):
        values = [s if isinstance(s, Tensor) else env[s] for s in self.sources]
        out = self.prog(values) if self.prog is not None else run_graph(self.fg, values)
        if len(self.outputs) == 1:
            return [out]
        return list(out)
