"""Moving Transposes through a FuncGraph, for MindSpore Lite's NHWC layout: the converter's
layout passes (layout.py) and the Lite runtime's graphs (graph_build.py) use them.

    sink_transposes(graph, manager)       Transposes moved down through layout-free ops
                                          (elementwise math with constant or equally
                                          transposed operands, Concat, PadV3, reductions) and
                                          cancelled where two meet, to a fixpoint
    reshape_trivial_transposes(graph, m)  a Transpose moving only size-1 axes -> Reshape

and the node helpers both use (a node's callee, a new node placed before another, a
Transpose node, constants).
"""
import numpy as np

from ..abstract import AbstractTensor, abstract_tensor
from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, CNode, ParameterNode, ValueNode
from ..ops import operations as P

TO_NHWC, TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)
# layout-free ops a Transpose moves through: same-shaped elementwise math
_ELEMENTWISE = {"Add", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Pow", "ReLU",
                "ReLU6", "Sigmoid", "Tanh", "HSwish", "HSigmoid", "GeLU", "Elu", "LeakyReLU",
                "Softplus", "SiLU", "Abs", "Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Erf",
                "Floor", "Ceil", "Round", "Sin", "Cos", "Reciprocal", "Sign"}
_ELEMENTWISE_LITE = {"AddFusion", "SubFusion", "MulFusion", "DivFusion", "Activation"}


def callee_of(node):
    if isinstance(node, CNode) and isinstance(node.inputs[0], ValueNode):
        return node.inputs[0].value
    return None


def prim_name(node):
    return getattr(callee_of(node), "name", None)


def lite_type_of(node):
    return getattr(callee_of(node), "lite_type", None)


def permuted(abstract, perm):
    shape = tuple(abstract.shape)
    return abstract_tensor(abstract.dtype, tuple(shape[p] for p in perm))


def is_4d(node):
    a = node.abstract
    return isinstance(a, AbstractTensor) and a.shape is not None and len(a.shape) == 4


def new_node(manager, anchor, callee, inputs, abstract):
    node = CNode(anchor.graph, [ValueNode(callee)] + list(inputs), abstract, anchor.debug,
                 anchor.name)
    return manager.insert_before(anchor, node)


def transpose_node(manager, anchor, x, perm):
    return new_node(manager, anchor, P.Transpose(), [x, ValueNode(tuple(perm))],
                permuted(x.abstract, perm))


def constant_value(node):
    if isinstance(node, ParameterNode) and node.default is not None:
        return node.default.asnumpy()
    if isinstance(node, ValueNode) and isinstance(node.value, Tensor):
        return node.value.asnumpy()
    return None


def const_node(array):
    t = Tensor(np.ascontiguousarray(array))
    return ValueNode(t, t._abs)


def as_node(v):
    if isinstance(v, np.ndarray):
        return const_node(v)
    return v if hasattr(v, "abstract") else ValueNode(v)


# ---- moving Transposes --------------------------------------------------------------------------
def _perm_of(node):
    if prim_name(node) == "Transpose" and len(node.inputs) == 3 and \
            isinstance(node.inputs[2], ValueNode) and \
            isinstance(node.inputs[2].value, tuple):
        return tuple(node.inputs[2].value)
    return None


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def _cancel(manager, node):
    """Transpose(Transpose(x, p1), p2): x when p1 then p2 is the identity, else one Transpose."""
    p2 = _perm_of(node)
    if p2 is None:
        return False
    inner = node.inputs[1]
    p1 = _perm_of(inner)
    if p1 is None or len(p1) != len(p2):
        return False
    both = tuple(p1[i] for i in p2)
    src = inner.inputs[1]
    y = src if both == tuple(range(len(both))) else transpose_node(manager, node, src, both)
    manager.replace(node, y)
    manager.erase(node)
    return True


def _sink_pad(manager, node):
    """PadV3(Transpose(a, p), paddings, v) -> Transpose(PadV3(a, paddings'), p), constant
    or reflect mode: each axis keeps its padding."""
    t = node.inputs[1]
    perm = _perm_of(t)
    mode = node.inputs[0].value.attrs["mode"]
    if perm is None or not is_4d(node) or mode not in ("constant", "reflect") or \
            not isinstance(node.inputs[2], ValueNode):
        return False
    flat = tuple(node.inputs[2].value)
    pairs = [(0, 0)] * 4
    for i in range(len(flat) // 2):
        pairs[3 - i] = flat[2 * i:2 * i + 2]
    src = [(0, 0)] * 4
    for i in range(4):
        src[perm[i]] = pairs[i]
    while len(src) > (1 if mode == "constant" else 2) and tuple(src[0]) == (0, 0):
        src.pop(0)                             # reflect: 2 or 3 trailing axes of a 4-D value
    if mode == "reflect" and len(src) > 3:       # PadV3 reflects 1 to 3 trailing axes
        return False
    paddings = tuple(v for pair in reversed(src) for v in pair)
    y = new_node(manager, node, node.inputs[0].value, [t.inputs[1], ValueNode(paddings)] +
             node.inputs[3:], permuted(node.abstract, _inverse(perm)))
    back = transpose_node(manager, node, y, perm)
    manager.replace(node, back)
    manager.erase(node)
    return True


_REDUCES = ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd")


def _sink_reduce(manager, node):
    """Reduce(Transpose(a, p), axes) -> Reduce(a, p[axes]), then the Transpose of what is left
    when the kept axes change order (none for a global pool's mean over H and W)."""
    t = node.inputs[1]
    perm = _perm_of(t)
    if perm is None or len(node.inputs) != 3 or not isinstance(node.inputs[2], ValueNode):
        return False
    axes = node.inputs[2].value
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    axes = tuple(range(4)) if not axes else tuple(a % 4 for a in axes)
    keep = node.inputs[0].value.attrs["keep_dims"]
    new_axes = tuple(sorted(perm[a] for a in axes))
    if keep:
        rest, order = perm, perm
    else:
        order = [perm[i] for i in range(4) if i not in axes]
        rest = tuple(sorted(range(len(order)), key=lambda i: order[i]))
        rest = _inverse(rest)
    y = new_node(manager, node, node.inputs[0].value, [t.inputs[1], ValueNode(new_axes)],
             _reduced(t.inputs[1].abstract, new_axes, keep))
    out = y if tuple(rest) == tuple(range(len(rest))) else \
        transpose_node(manager, node, y, tuple(rest))
    manager.replace(node, out)
    manager.erase(node)
    return True


def _reduced(abstract, axes, keep):
    shape = tuple(1 if i in axes else d for i, d in enumerate(abstract.shape) if keep or
                  i not in axes)
    return abstract_tensor(abstract.dtype, shape)


def _sink(manager, node):
    """op(Transpose(a, p), Transpose(b, p) or a constant) -> Transpose(op(a, b'), p) for a
    layout-free op; Concat of equally transposed values on the permuted axis."""
    name, lite = prim_name(node), lite_type_of(node)
    if name == "PadV3":
        return _sink_pad(manager, node)
    if name in _REDUCES and is_4d(node.inputs[1]):
        return _sink_reduce(manager, node)
    concat = name == "Concat"
    if not (name in _ELEMENTWISE or lite in _ELEMENTWISE_LITE or concat) or not is_4d(node):
        return False
    if concat:
        seq = node.inputs[1]
        if callee_of(seq) is not MAKE_TUPLE:
            return False
        args = list(seq.inputs[1:])
    else:
        args = list(node.inputs[1:])
    perms = {_perm_of(a) for a in args if _perm_of(a) is not None and is_4d(a.inputs[1])}
    if len(perms) != 1:
        return False
    perm = perms.pop()
    inv = _inverse(perm)
    new = []
    for a in args:
        if _perm_of(a) == perm:
            new.append(a.inputs[1])
        elif concat:
            return False
        elif isinstance(a, ValueNode) and isinstance(a.value, (int, float)):
            new.append(a)
        else:
            c = constant_value(a)
            if c is None or c.ndim > 4 or not isinstance(a.abstract, AbstractTensor):
                return False
            c4 = c.reshape((1,) * (4 - c.ndim) + c.shape)
            new.append(const_node(np.transpose(c4, inv)))
    shape = permuted(node.abstract, inv)
    if concat:
        axis = node.inputs[0].value.attrs["axis"] % 4
        tup = new_node(manager, node, seq.inputs[0].value, new, tuple(x.abstract for x in new))
        y = new_node(manager, node, P.Concat(perm[axis]), [tup], shape)
    else:
        y = new_node(manager, node, node.inputs[0].value, new, shape)
    back = transpose_node(manager, node, y, perm)
    manager.replace(node, back)
    manager.erase(node)
    return True


def sink_transposes(graph, manager):
    """Move Transposes down through layout-free ops and cancel them, to a fixpoint."""
    changed = True
    rounds = 0
    while changed and rounds < 1000:
        changed = False
        rounds += 1
        for g in list(manager.graphs()):
            for node in list(g.order):
                if not any(n is node for n in g.order):
                    continue
                if _cancel(manager, node) or _sink(manager, node):
                    changed = True
        manager.dce()
    return rounds > 1


def reshape_trivial_transposes(graph, manager):
    """Transpose(x, perm) that moves only axes of size 1 (an NHWC <-> NCHW of one channel, or
    of a 1x1 image) -> Reshape: the same elements in the same order, no copy (the runtime's
    graphs; the converter keeps the Transposes, whose perms say the tensors' formats)."""
    changed = False
    for g in list(manager.graphs()):
        for node in list(g.order):
            perm = _perm_of(node)
            if perm is None or not isinstance(node.abstract, AbstractTensor):
                continue
            shape = tuple(node.inputs[1].abstract.shape)
            moved = [p for p in perm if shape[p] != 1]
            if moved != sorted(moved) or any(d is None or d < 0 for d in shape):
                continue
            y = new_node(manager, node, P.Reshape(), [node.inputs[1],
                                                  ValueNode(tuple(node.abstract.shape))],
                     node.abstract)
            manager.replace(node, y)
            manager.erase(node)
            changed = True
    return changed
