"""Elementwise fusion: a maximal DAG of elementwise primitive calls whose intermediate values
have no user outside it becomes one CNode calling FusedElemwise (ops/operations/fused_ops.py),
whose kernel computes the whole expression in one pass over the output.

    run(graph, manager) -> bool      (the pass interface; True when the graph changed; the
                                     walk and the replacement are fusion.py's, the grouping
                                     below)

Fusable ops: ops.operations' Add, Sub, Mul, Div, RealDiv, Maximum, Minimum, Neg, Square, Abs,
Exp, Log, Sqrt, Rsqrt, Reciprocal, ReLU, Sigmoid, Tanh and Cast, as built by the framework
(no attributes changed, no user kernel registered for them), on float32/float64 tensors of
the node's own dtype (a call that would promote or cast its inputs is left alone, so the
fused kernel never has to), with Python int/float constants (converted to the node's dtype
as eager's signature does), 0-d constant Tensors of that dtype (read as constants) and
other constant Tensors of that dtype as further inputs (at most MAX_INPUTS: a larger group
stays unfused).

Grouping, per graph: nodes are visited from the last to the first; an unassigned fusable node
starts a group (its value may have any users), and a fusable producer of a member joins when
every user of its value is a member and no graph returns it. So each intermediate is used
only inside its group, every member flows into the root, and the fused node, placed where
the root was, sees all its inputs already computed. No member is moved past a side-effect
node (an in-place write between a member and the root could change what the member reads).

Groups of fewer than MIN_NODES ops are left as they are, and so are groups of fewer than
MIN_SMALL_NODES ops whose output is under MIN_ELEMENTS elements: there one launch of the
fused kernel costs about what the few kernels it replaces cost (measured within noise for 2-3
ops at 1..1024 elements, a gain from ~7 ops), and such graphs keep MindSpore's dump layout.
Side-effect nodes are never fused. The fused node keeps the root's name, abstract and source
locations.
"""
import numpy as np

from ...common.tensor import Tensor
from ...ir.anf import CNode, ValueNode
from ...ops.operations.fused_ops import ELEMWISE_OPS, FLOAT_DTYPES, FusedElemwise
from .fusion import prim_of, run_fusion

MIN_NODES = 2
MIN_ELEMENTS = 4096     # outputs smaller than this are fused only from MIN_SMALL_NODES ops
MIN_SMALL_NODES = 4
MAX_INPUTS = 64         # the fused kernel's limit (_C.fused_elemwise_call)


def _const_arg(node):
    v = node.value
    return type(v) in (int, float)


def _const_tensor(node, dtype):
    """The value of a 0-d constant Tensor of `dtype` as a Python number (read as the other
    constants are: a converter writes scalars as 0-d tensors), else None."""
    v = node.value
    if isinstance(v, Tensor) and v.dtype is dtype and v.shape == () and v._arr is not None:
        return v.asnumpy().item()
    return None


def _tensor_dtype(node):
    if isinstance(node, ValueNode):
        return node.value.dtype if isinstance(node.value, Tensor) else None
    ab = node.abstract
    return getattr(ab, "dtype", None) if hasattr(ab, "shape") else None


def _fusable(node):
    """The op name when `node` may join a group (see the module docstring), else None."""
    name = prim_of(node, ELEMWISE_OPS)
    if name is None:
        return None
    dtype = getattr(node.abstract, "dtype", None)
    if dtype not in FLOAT_DTYPES or not hasattr(node.abstract, "shape"):
        return None
    args = node.inputs[1:]
    if name == "Cast":
        ok = (len(args) == 2 and isinstance(args[1], ValueNode)
              and _tensor_dtype(args[0]) in FLOAT_DTYPES)
        return name if ok else None
    if len(args) != ELEMWISE_OPS[name]:
        return None
    tensors = 0
    for a in args:
        if isinstance(a, ValueNode) and _const_arg(a):
            continue
        if _tensor_dtype(a) is not dtype:
            return None
        tensors += 1
    return name if tensors else None


def _grow(root, graph, cand, assigned, users, outputs, epoch):
    members = {root.id: root}
    work = list(root.inputs[1:])
    while work:
        p = work.pop()
        if (not isinstance(p, CNode) or p.graph is not graph or p.id in members
                or p.id in assigned or p.id not in cand or p.id in outputs
                or epoch[p.id] != epoch[root.id]):
            continue
        us = users.get(p, ())
        if not us or any(u.id not in members for u, _ in us):
            continue
        members[p.id] = p
        work.extend(p.inputs[1:])
    return members


def _build(members, graph, cand):
    """(FusedElemwise, input nodes) for a group, or None when its inference disagrees."""
    steps = [n for n in graph.order if n.id in members]
    index = {n.id: j for j, n in enumerate(steps)}
    inputs, input_index, program = [], {}, []
    for n in steps:
        name = cand[n.id]
        args = n.inputs[1:2] if name == "Cast" else n.inputs[1:]
        refs = []
        for a in args:
            if a.id in index:
                refs.append(("t", index[a.id]))
            elif isinstance(a, ValueNode) and _const_arg(a):
                refs.append(("c", a.value))
            elif isinstance(a, ValueNode) and (c := _const_tensor(a, n.abstract.dtype)) is not None:
                refs.append(("c", c))
            else:
                if a.id not in input_index:
                    input_index[a.id] = len(inputs)
                    inputs.append(a)
                refs.append(input_index[a.id])
        extra = n.abstract.dtype.np.name if name == "Cast" else None
        program.append((name, tuple(refs), extra))
    if len(inputs) > MAX_INPUTS:
        return None
    try:
        prim = FusedElemwise(tuple(program), len(inputs))
        out = prim.infer(*[a.value._abs if isinstance(a, ValueNode) else a.abstract
                           for a in inputs])
    except (TypeError, ValueError):
        return None
    root = steps[-1]
    if out.dtype is not root.abstract.dtype or tuple(out.shape) != tuple(root.abstract.shape):
        return None
    return prim, inputs


def _groups(g, ctx):
    """{root id: (fused node, other members' ids, root)} for the groups of `g`."""
    cand = {n.id: name for n in g.order for name in (_fusable(n),) if name is not None}
    if len(cand) < MIN_NODES:
        return {}
    assigned, fused = set(), {}
    for root in reversed(g.order):
        if root.id not in cand or root.id in assigned:
            continue
        members = _grow(root, g, cand, assigned, ctx.users, ctx.outputs, ctx.epoch)
        assigned.update(members)
        small = int(np.prod(root.abstract.shape)) < MIN_ELEMENTS
        if len(members) < (MIN_SMALL_NODES if small else MIN_NODES):
            continue
        built = _build(members, g, cand)
        if built is None:
            continue
        prim, inputs = built
        node = CNode(g, [ValueNode(prim, prim)] + inputs, root.abstract, root.debug,
                     root.name)
        fused[root.id] = (node, set(members) - {root.id}, root)
    return fused


def run(graph, manager):
    """Fuse the elementwise groups of every graph reachable from `graph`."""
    return run_fusion(graph, manager, _groups)
