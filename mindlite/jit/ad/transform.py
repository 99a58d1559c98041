"""The J transform: the backward of a region of a graph being built, as graph nodes.

    backprop(parser, start, outputs, sens, wrt) -> [gradient value or None per wrt]

`start` is where a forward call began in `parser.fg.order`: the nodes after it are the
forward region (parsed and specialized already, abstracts known). The transform
1. marks the region's nodes that depend on `wrt` (the inputs and weights differentiated),
   as eager's tape tracks tensors: not through non-differentiable primitives
   (comparisons, StopGradient, ...) nor through side-effect nodes;
2. walks the tracked nodes in reverse, calling each primitive's bprop from the same
   registry eager uses (pynative/grad.py BPROPS): the bprop is a Python function, parsed
   by the same parser with the forward node values as its arguments (`x`, `out`) and the
   adjoint as `dout`, so the bprop's primitives become nodes of the graph, each carrying the
   forward node's source line and then the bprop's own; `needs_grad` in a bprop is answered
   from the tracked set (parse_grad.py), exactly as eager's backward answers it;
3. accumulates adjoints where a value has several users (Add, after summing broadcast
   dimensions and casting to the value's dtype, as eager's accumulate), with zeros for the
   missing parts of a tuple output;
4. gives an `if` on a tensor (a `Switch(c, @t, @f)()` call) a backward Switch: per branch
   a backward graph (the branch recomputed, then its own backprop; parameters = the
   adjoints of the branch's outputs; outputs = the gradients of the tracked values the
   branch reads from enclosing graphs), picked by the same condition;
5. honours custom `Cell.bprop` regions (custom.py).
A loop graph (`while` on a tensor) raises ADUnsupportedError naming it.
Higher order needs nothing more: a backward region is ordinary nodes, so an outer
transform differentiates it through the bprops' own bprops.
"""
import numpy as np

from ...common.abstract import AbstractTensor
from ...common.tensor import Tensor
from ...ir.anf import (MAKE_TUPLE, SWITCH, TUPLE_GETITEM, AnfNode, CNode, FuncGraph, ValueNode)
from ...ir.rules import BPROPS, NON_DIFFERENTIABLE
from .nodes import ADUnsupportedError, _ir, _prim_of  # noqa: F401


def _float_tensor(a):
    return isinstance(a, AbstractTensor) and a.dtype.kind == "f"


def zeros_of(a):
    """A constant zero value of abstract `a` (a tuple for a tuple abstract)."""
    if isinstance(a, tuple):
        return tuple(zeros_of(x) for x in a)
    return Tensor.from_numpy(np.zeros(a.shape, dtype=a.dtype.np))


def _switch_of(node):
    """The forward Switch node when `node` calls a Switch's pick, else None."""
    callee = node.inputs[0]
    if isinstance(callee, CNode) and _ir(callee.inputs[0]) is SWITCH:
        return callee
    return None


def free_values(g):
    """The nodes of enclosing graphs that g or any graph nested in it reads (FuncGraph's
    free_variables looks at g's own nodes only)."""
    own = {g} | set(g.children_all())
    seen, out = set(), []
    for h in [g] + list(g.children_all()):
        # the output is a value h reads (a node of an enclosing graph when a branch returns
        # a variable it did not change), not a call whose inputs h reads
        used = [i for node in h.order for i in node.inputs]
        for i in used + ([h.output] if h.output is not None else []):
            if i.graph is not None and i.graph not in own and i not in seen:
                seen.add(i)
                out.append(i)
    return out


def _branch_graphs(sw):
    return [i.value for i in sw.inputs[2:4]]


class _Backprop:
    def __init__(self, parser, region, wrt):
        self.p = parser
        self.region = region
        self.adj = {}
        self.tracked = {w for w in wrt if isinstance(w, AnfNode)}
        self.getitems = {}
        self.written = None      # Parameters the region writes in place (ad/recompute.py)
        self.customs = [c for c in getattr(parser, "ad_custom", {}).get(parser.fg, ())
                        if c.first in set(region)]

    # ---- which nodes the gradient flows through ----------------------------------------
    def mark(self):
        tracked = self.tracked
        ends = {c.last: c for c in self.customs}
        for n in self.region:
            if n in ends:
                from .custom import mark_custom
                mark_custom(self, ends[n])
            if not isinstance(n, CNode):
                continue
            callee = n.inputs[0]
            if _ir(callee) is TUPLE_GETITEM:
                self.getitems[(n.inputs[1], n.inputs[2].value)] = n
            prim = _prim_of(n)
            if prim is not None and type(prim) in NON_DIFFERENTIABLE:
                continue
            if _ir(callee) is SWITCH:
                continue
            sw = _switch_of(n)
            if sw is not None:
                fvs = {v for g in _branch_graphs(sw) for v in free_values(g)}
                if any(v in tracked for v in fvs) or any(i in tracked for i in n.inputs[1:]):
                    tracked.add(n)
                continue
            if isinstance(_ir(callee), FuncGraph):           # a loop graph's call
                if any(v in tracked for v in free_values(_ir(callee))):
                    tracked.add(n)
            if any(i in tracked for i in n.inputs[1:]):
                tracked.add(n)

    # ---- adjoints -------------------------------------------------------------------------
    def add(self, node, d):
        if d is None or not isinstance(node, AnfNode):
            return
        value = self.acc(self.p.abstract_of(node), self.adj.get(node), d)
        if value is not None:
            self.adj[node] = value

    def acc(self, a, prev, d):
        if d is None:
            return prev
        if isinstance(a, tuple):
            out = dict(prev or {})
            items = d.items() if isinstance(d, dict) else enumerate(d)
            for i, v in items:
                r = self.acc(a[i], out.get(i), v)
                if r is not None:
                    out[i] = r
            return out
        if isinstance(a, AbstractTensor) and a.dtype.kind == "c":
            raise ADUnsupportedError(f"Graph autodiff does not support gradients through "
                                     f"{a.dtype} values yet (use PYNATIVE mode for them)")
        if not _float_tensor(a):
            return prev
        d = self.fit(d, a)
        return d if prev is None else self.p.emit_prim(_ADD, (prev, d))

    def fit(self, d, a):
        """d summed to a's shape and cast to a's dtype (eager's accumulate)."""
        from ...ops.function.grad_func import sum_to
        from ...ops.operations.array_ops import Cast
        p = self.p
        if not isinstance(d, (Tensor, AnfNode)):
            d = Tensor.from_numpy(np.full(a.shape, d, dtype=a.dtype.np))
        da = p.abstract_of(d)
        if tuple(da.shape) != tuple(a.shape):
            d = p.call_function(sum_to, (d, tuple(a.shape)), {})
            da = p.abstract_of(d)
        if da.dtype is not a.dtype:
            d = p.emit_prim(_cast(Cast), (d, a.dtype))
        return d

    def dense(self, a, v):
        """An adjoint as the bprop's `dout`: tuples filled with zeros where none flowed."""
        if isinstance(a, tuple):
            v = v or {}
            return tuple(self.dense(x, v.get(i)) for i, x in enumerate(a))
        return zeros_of(a) if v is None else v

    def arg(self, i):
        """A node input as the bprop sees it (eager's values: constants, tuples, tensors)."""
        if isinstance(i, CNode) and _ir(i.inputs[0]) is MAKE_TUPLE:
            return tuple(self.arg(x) for x in i.inputs[1:])
        if isinstance(i, ValueNode) and i not in self.tracked:
            return i.value
        return i

    # ---- the reverse walk ---------------------------------------------------------------
    def run(self, outputs, sens):
        for o, s in zip(outputs, sens):
            if o in self.tracked:
                self.add(o, s)
        skip, at_end = set(), {}
        for c in self.customs:
            skip.update(c.nodes)
            at_end[c.last] = c
        stack = self.p.__dict__.setdefault("ad_tracked", [])
        stack.append(self.tracked)
        try:
            for n in reversed(self.region):
                c = at_end.get(n)
                if c is not None:
                    from .custom import custom_backward
                    custom_backward(self, c)
                if n in skip or n not in self.tracked:
                    continue
                dout = self.adj.pop(n, None)
                if dout is not None:
                    self.node_backward(n, dout)
        finally:
            stack.pop()

    def node_backward(self, n, dout):
        callee = _ir(n.inputs[0])
        if callee is MAKE_TUPLE:
            for i, x in enumerate(n.inputs[1:]):
                if x in self.tracked:
                    self.add(x, dout.get(i) if isinstance(dout, dict) else dout[i])
            return
        if callee is TUPLE_GETITEM:
            self.add(n.inputs[1], {n.inputs[2].value: dout})
            return
        prim = _prim_of(n)
        if prim is not None:
            return self.prim_backward(n, prim, dout)
        sw = _switch_of(n)
        if sw is not None:
            from .control import switch_backward
            return switch_backward(self, n, sw, dout)
        if isinstance(callee, FuncGraph):
            from .loop import loop_backward, loop_parts
            if getattr(callee, "ad_generated", False):
                raise ADUnsupportedError(
                    "Graph autodiff does not support differentiating the backward of a 'while' "
                    f"loop on a tensor (a second grad through the loop) yet{_trace(n)}")
            if loop_parts(callee) is not None:
                return loop_backward(self, n, callee, dout)
        what = ("a call of the graph @" + callee.name if isinstance(callee, FuncGraph)
                else f"the call of {callee!r}")
        raise ADUnsupportedError(f"Graph autodiff does not support {what} yet (use PYNATIVE "
                                 f"mode for its gradient){_trace(n)}")

    def prim_backward(self, n, prim, dout):
        bprop = BPROPS.get(type(prim))
        if bprop is None:
            raise self.p.error(NotImplementedError(
                f"For '{prim.name}', no bprop is registered: it cannot be differentiated"))
        p = self.p
        a = n.abstract
        if isinstance(a, tuple):
            out = tuple(self.getitems.get((n, i)) or p.emit([TUPLE_GETITEM, n, i], x)
                        for i, x in enumerate(a))
        else:
            out = n
        ins = [self.arg(i) for i in n.inputs[1:]]
        saved = p.stack, p.loc
        p.stack = list(n.debug[:-1])
        p.loc = n.debug[-1] if n.debug else None
        try:
            dins = p.call_function(bprop, (prim, *ins, out, self.dense(a, dout)), {})
        finally:
            p.stack, p.loc = saved
        if isinstance(dins, AnfNode) and isinstance(dins.abstract, tuple):
            dins = p.unpack(dins)
        if len(dins) != len(ins):
            raise p.error(RuntimeError(f"The bprop of '{prim.name}' returned {len(dins)} "
                                       f"gradients for {len(ins)} inputs"))
        for x, dx in zip(n.inputs[1:], dins):
            if dx is None:
                continue
            if isinstance(x, CNode) and _ir(x.inputs[0]) is MAKE_TUPLE and x not in self.tracked:
                continue
            if isinstance(x, CNode) and _ir(x.inputs[0]) is MAKE_TUPLE:
                for xi, dxi in zip(x.inputs[1:], dx):
                    if xi in self.tracked:
                        self.add(xi, dxi)
            elif x in self.tracked:
                self.add(x, dx)


def _trace(node):
    from ..errors import trace_text
    return trace_text(node.debug)


_CASTS = {}


def _cast(cls):
    if cls not in _CASTS:
        _CASTS[cls] = cls()
    return _CASTS[cls]


def _add_prim():
    from ...ops.operations.math_ops import Add
    return Add()


_ADD = _add_prim()


def backprop(parser, start, outputs, sens, wrt):
    """The gradients of sum(sens_i * outputs_i) w.r.t. each of `wrt` (graph values; None
    where no gradient flows), emitted into parser.fg after the forward region."""
    region = parser.fg.order[start:]
    _refuse_tracked_writes(region, wrt)
    bp = _Backprop(parser, region, wrt)
    bp.mark()
    bp.run(outputs, sens)
    return [bp.adj.get(w) if w in bp.tracked else None for w in wrt], bp


def _refuse_tracked_writes(region, wrt):
    """A differentiated Parameter the function writes in place (Assign, AssignAdd, item
    assignment; in a branch or loop too): eager's tape follows the written value from the
    write on, while the graph reads the one Parameter node before and after it, so its
    gradient would differ. Refused, naming the Parameter and the primitive."""
    params = {w for w in wrt if isinstance(w, AnfNode) and getattr(w, "default", None)
              is not None}
    if not params:
        return
    nodes, seen = list(region), set()
    while nodes:
        n = nodes.pop()
        if not isinstance(n, CNode) or n.id in seen:
            continue
        seen.add(n.id)
        for i in n.inputs:
            if isinstance(i, ValueNode) and isinstance(i.value, FuncGraph):
                nodes.extend(i.value.order)
        prim = _prim_of(n)
        for k in getattr(prim, "inplace_inputs", None) or ():
            if k + 1 < len(n.inputs) and n.inputs[k + 1] in params:
                raise ADUnsupportedError(
                    f"Graph autodiff does not support a gradient with respect to the Parameter "
                    f"'{n.inputs[k + 1].default.name}', which the function writes in place "
                    f"('{prim.name}'): eager's tape follows the written value, the graph "
                    f"would not (differentiate before writing, or use PYNATIVE mode)")
