"""The converter's layout passes: the graph as MindSpore Lite's CPU kernels take it.

MindSpore Lite's kernels for convolution, pooling, batch norm and resize read 4-D activations
NHWC and convolution weights KHWC (nnacl's infer refuses other formats), and Lite's converter
writes its models so: an NHWC graph input (`--inputDataFormat`, NHWC by default), those ops
NHWC with their weights transposed, and a Transpose wherever an NHWC value meets an op that
needs the original NCHW layout (a Flatten, a Reshape, a graph output). mindlite's graphs are
NCHW (MindSpore's layout); these passes rewrite them the same way, on the FuncGraph:

    lower_tuple_ops     BatchNorm / LayerNorm / MaxPoolWithArgmaxV2 whose only used output
                        is 0 -> Lite's single-output FusedBatchNorm / LayerNormFusion /
                        MaxPoolFusion (explicit_pool: AvgPool2D too)
    to_nhwc             every NHWC op of Lite (NHWC_OPS, as a LiteOp) between a Transpose to
                        NHWC and one back, its constant weights transposed once
    input_format        the root graph's 4-D inputs NHWC, a Transpose back after each
    sink_transposes     Transposes moved down through layout-free ops (elementwise ops with
                        constant or equally transposed operands, Concat) and cancelled where
                        two meet: what is left are Lite's boundary Transposes

    convert_layout(graph, manager, input_format) runs them in that order.
"""
import numpy as np

from ..abstract import AbstractTensor, abstract_tensor
from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, TUPLE_GETITEM, CNode, ParameterNode, ValueNode
from ..ops import operations as P
from . import schema as S
from .ops_map import EXPORT, LiteOp

TO_NHWC, TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)
FORMATS = ("NHWC", "NCHW")
# Lite ops that run NHWC, and which of their inputs are weights transposed with the data
NHWC_OPS = {"Conv2DFusion": {2: TO_NHWC}, "Conv2dTransposeFusion": {2: TO_NHWC},
            "MaxPoolFusion": {}, "AvgPoolFusion": {}, "FusedBatchNorm": {}, "Resize": {},
            "BiasAdd": {}}
_LOWERED = {"Conv2D", "Conv2DBackpropInput", "Conv2DTranspose", "MaxPool", "AvgPool",
            "AvgPool2D", "ResizeNearestNeighborV2", "ResizeBilinearV2", "BiasAdd"}
# layout-free ops a Transpose moves through: same-shaped elementwise math
_ELEMENTWISE = {"Add", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Pow", "ReLU",
                "ReLU6", "Sigmoid", "Tanh", "HSwish", "HSigmoid", "GeLU", "Elu", "LeakyReLU",
                "Softplus", "SiLU", "Abs", "Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Erf",
                "Floor", "Ceil", "Round", "Sin", "Cos", "Reciprocal", "Sign"}
_ELEMENTWISE_LITE = {"AddFusion", "SubFusion", "MulFusion", "DivFusion", "Activation"}


def _callee(node):
    if isinstance(node, CNode) and isinstance(node.inputs[0], ValueNode):
        return node.inputs[0].value
    return None


def _name(node):
    return getattr(_callee(node), "name", None)


def _lite(node):
    return getattr(_callee(node), "lite_type", None)


def _permuted(abstract, perm):
    shape = tuple(abstract.shape)
    return abstract_tensor(abstract.dtype, tuple(shape[p] for p in perm))


def _is4d(node):
    a = node.abstract
    return isinstance(a, AbstractTensor) and a.shape is not None and len(a.shape) == 4


def _new(manager, anchor, callee, inputs, abstract):
    node = CNode(anchor.graph, [ValueNode(callee)] + list(inputs), abstract, anchor.debug,
                 anchor.name)
    return manager.insert_before(anchor, node)


def _transpose(manager, anchor, x, perm):
    return _new(manager, anchor, P.Transpose(), [x, ValueNode(tuple(perm))],
                _permuted(x.abstract, perm))


def _constant(node):
    if isinstance(node, ParameterNode) and node.default is not None:
        return node.default.asnumpy()
    if isinstance(node, ValueNode) and isinstance(node.value, Tensor):
        return node.value.asnumpy()
    return None


def _const_node(array):
    t = Tensor(np.ascontiguousarray(array))
    return ValueNode(t, t._abs)


def _as_node(v):
    if isinstance(v, np.ndarray):
        return _const_node(v)
    return v if hasattr(v, "abstract") else ValueNode(v)


# ---- single-output forms ----------------------------------------------------------------------
def lower_tuple_ops(graph, manager):
    """BatchNorm (inference, NCHW) and LayerNorm whose users all take output 0 become one
    LiteOp node (FusedBatchNorm, LayerNormFusion) giving that output."""
    changed = False
    for g in list(manager.graphs()):
        for node in list(g.order):
            name = _name(node)
            if name not in ("BatchNorm", "LayerNorm", "MaxPoolWithArgmaxV2"):
                continue
            users = manager.users.get(node, [])
            if not users or any(_callee(u) is not TUPLE_GETITEM or i != 1 or
                                u.inputs[2].value != 0 for u, i in users):
                continue
            a = node.inputs[0].value.attrs
            first = users[0][0]
            if name == "MaxPoolWithArgmaxV2":
                y = explicit_pool(manager, node, node.inputs[1], True, first.abstract)
                for u, _ in list(users):
                    manager.replace(u, y)
                    manager.erase(u)
                manager.erase(node)
                changed = True
                continue
            if name == "BatchNorm":
                if a["is_training"] or a["data_format"] != "NCHW":
                    continue
                prim = LiteOp("FusedBatchNorm", {"epsilon": float(a["epsilon"]),
                                                 "momentum": float(a["momentum"])})
            else:
                rank = len(node.inputs[1].abstract.shape)
                prim = LiteOp("LayerNormFusion", {
                    "begin_norm_axis": a["begin_norm_axis"] % rank, "epsilon": float(a["epsilon"]),
                    "elementwise_affine": True, "begin_params_axis": a["begin_params_axis"] % rank})
            y = _new(manager, node, prim, node.inputs[1:], first.abstract)
            for u, _ in list(users):
                manager.replace(u, y)
                manager.erase(u)
            manager.erase(node)
            changed = True
    return changed


# ---- NHWC ops ---------------------------------------------------------------------------------
def explicit_pool(manager, node, x, is_max, abstract):
    """MaxPoolWithArgmaxV2 / AvgPool2D (explicit pads, ceil_mode, count_include_pad) as
    MaxPoolFusion / AvgPoolFusion with pad_mode PAD. Lite's padded average leaves the padding
    out of the count: an average that counts it pads with zeros first (PadV3)."""
    prim = node.inputs[0].value
    kernel, stride, pads, dil, ceil = prim._geo
    where = f"converter: node {node.name or prim.name} ({prim.name})"
    if tuple(dil) != (1, 1):
        raise NotImplementedError(f"{where}: dilated pooling has no MindSpore Lite form")
    if not is_max and prim.attrs.get("divisor_override"):
        raise NotImplementedError(f"{where}: divisor_override has no MindSpore Lite form")
    h, w = x.abstract.shape[2:]
    if ceil:                       # nnacl's CEIL rounding, which may keep one more window
        lite = [-(-(n + lo + hi - k) // s) + 1 for n, k, s, lo, hi in
                ((h, kernel[0], stride[0], pads[0], pads[1]),
                 (w, kernel[1], stride[1], pads[2], pads[3]))]
        if lite != list(abstract.shape[2:]):
            raise NotImplementedError(f"{where}: ceil_mode gives {list(abstract.shape[2:])}, "
                                      f"MindSpore Lite's CEIL rounding {lite}")
    pad = list(pads)
    if not is_max and prim.attrs["count_include_pad"] and any(pad):
        shape = tuple(x.abstract.shape[:2]) + (h + pad[0] + pad[1], w + pad[2] + pad[3])
        x = _new(manager, node, P.PadV3(), [x, ValueNode((pad[2], pad[3], pad[0], pad[1])),
                                            ValueNode(0.0)],
                 abstract_tensor(x.abstract.dtype, shape))
        pad = [0, 0, 0, 0]
    attrs = {"kernel_size": list(kernel), "strides": list(stride), "pad": pad,
             "pad_mode": S.PAD_MODE["PAD"], "round_mode": S.ROUND_CEIL if ceil else S.ROUND_FLOOR,
             "format": S.FORMAT_NCHW}
    return _new(manager, node, LiteOp("MaxPoolFusion" if is_max else "AvgPoolFusion", attrs),
                [x], abstract)


def _lower(manager, node):
    """A mindlite primitive Lite runs NHWC, as its LiteOp (attrs and inputs from EXPORT)."""
    prim = node.inputs[0].value
    if prim.name == "AvgPool2D":
        y = explicit_pool(manager, node, node.inputs[1], False, node.abstract)
    else:
        args = [i.value if isinstance(i, ValueNode) and not isinstance(i.value, Tensor) else i
                for i in node.inputs[1:]]
        op_type, attrs, inputs = EXPORT[prim.name](prim, args)
        y = _new(manager, node, LiteOp(op_type, attrs), [_as_node(i) for i in inputs],
                 node.abstract)
    manager.replace(node, y)
    manager.erase(node)
    return y


def to_nhwc(graph, manager):
    """Every NHWC op of Lite on a 4-D NCHW value: Transpose(x, to NHWC) -> the op with
    format NHWC and its weights KHWC -> Transpose(back to NCHW)."""
    changed = False
    for g in list(manager.graphs()):
        for node in list(g.order):
            if _name(node) in _LOWERED and _is4d(node) and _is4d(node.inputs[1]):
                node = _lower(manager, node)
                changed = True
            op = _lite(node)
            if op not in NHWC_OPS or not _is4d(node) or not _is4d(node.inputs[1]) or \
                    node.inputs[0].value.lite_attrs.get("format", S.FORMAT_NCHW) != \
                    S.FORMAT_NCHW:
                continue
            ins = [_transpose(manager, node, node.inputs[1], TO_NHWC)]
            for i, x in enumerate(node.inputs[2:], 2):
                perm = NHWC_OPS[op].get(i)
                if perm is not None:
                    w = _constant(x)
                    if w is None:
                        raise NotImplementedError(
                            f"converter: node {node.name or op} ({op}): its weights are not "
                            "constant, and MindSpore Lite runs it NHWC with constant KHWC "
                            "weights")
                    x = _const_node(np.transpose(w, perm))
                ins.append(x)
            attrs = dict(node.inputs[0].value.lite_attrs, format=S.FORMAT_NHWC)
            y = _new(manager, node, LiteOp(op, attrs), ins, _permuted(node.abstract, TO_NHWC))
            back = _transpose(manager, node, y, TO_NCHW)
            manager.replace(node, back)
            manager.erase(node)
            changed = True
    return changed


def input_format(graph, manager, fmt):
    """The root graph's 4-D inputs in layout `fmt` ("NHWC": a Transpose back to NCHW after
    each, which the NHWC ops' Transposes cancel)."""
    if fmt not in FORMATS:
        raise ValueError(f"converter: input_format must be one of {FORMATS}, but got {fmt!r}")
    if fmt == "NCHW":
        return False
    changed = False
    for p in graph.parameters:
        if p.default is not None or not _is4d(p):
            continue
        users = list(manager.users.get(p, []))
        nchw = p.abstract
        p.abstract = _permuted(nchw, TO_NHWC)
        t = CNode(graph, [ValueNode(P.Transpose()), p, ValueNode(TO_NCHW)], nchw)
        graph.order.insert(0, t)
        for u, i in users:
            u.inputs[i] = t
        if graph.output is p:
            graph.output = t
        manager.rebuild()
        changed = True
    return changed


# ---- moving Transposes --------------------------------------------------------------------------
def _perm_of(node):
    if _name(node) == "Transpose" and len(node.inputs) == 3 and \
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
    y = src if both == tuple(range(len(both))) else _transpose(manager, node, src, both)
    manager.replace(node, y)
    manager.erase(node)
    return True


def _sink_pad(manager, node):
    """PadV3(Transpose(a, p), paddings, v) -> Transpose(PadV3(a, paddings'), p), constant
    or reflect mode: each axis keeps its padding."""
    t = node.inputs[1]
    perm = _perm_of(t)
    mode = node.inputs[0].value.attrs["mode"]
    if perm is None or not _is4d(node) or mode not in ("constant", "reflect") or \
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
    y = _new(manager, node, node.inputs[0].value, [t.inputs[1], ValueNode(paddings)] +
             node.inputs[3:], _permuted(node.abstract, _inverse(perm)))
    back = _transpose(manager, node, y, perm)
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
    y = _new(manager, node, node.inputs[0].value, [t.inputs[1], ValueNode(new_axes)],
             _reduced(t.inputs[1].abstract, new_axes, keep))
    out = y if tuple(rest) == tuple(range(len(rest))) else \
        _transpose(manager, node, y, tuple(rest))
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
    name, lite = _name(node), _lite(node)
    if name == "PadV3":
        return _sink_pad(manager, node)
    if name in _REDUCES and _is4d(node.inputs[1]):
        return _sink_reduce(manager, node)
    concat = name == "Concat"
    if not (name in _ELEMENTWISE or lite in _ELEMENTWISE_LITE or concat) or not _is4d(node):
        return False
    if concat:
        seq = node.inputs[1]
        if _callee(seq) is not MAKE_TUPLE:
            return False
        args = list(seq.inputs[1:])
    else:
        args = list(node.inputs[1:])
    perms = {_perm_of(a) for a in args if _perm_of(a) is not None and _is4d(a.inputs[1])}
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
            c = _constant(a)
            if c is None or c.ndim > 4 or not isinstance(a.abstract, AbstractTensor):
                return False
            c4 = c.reshape((1,) * (4 - c.ndim) + c.shape)
            new.append(_const_node(np.transpose(c4, inv)))
    shape = _permuted(node.abstract, inv)
    if concat:
        axis = node.inputs[0].value.attrs["axis"] % 4
        tup = _new(manager, node, seq.inputs[0].value, new, tuple(x.abstract for x in new))
        y = _new(manager, node, P.Concat(perm[axis]), [tup], shape)
    else:
        y = _new(manager, node, node.inputs[0].value, new, shape)
    back = _transpose(manager, node, y, perm)
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
            y = _new(manager, node, P.Reshape(), [node.inputs[1],
                                                  ValueNode(tuple(node.abstract.shape))],
                     node.abstract)
            manager.replace(node, y)
            manager.erase(node)
            changed = True
    return changed


def convert_layout(graph, manager, input_fmt="NHWC"):
    """The passes above, in order; returns whether anything changed."""
    changed = lower_tuple_ops(graph, manager)
    changed |= to_nhwc(graph, manager)
    changed |= input_format(graph, manager, input_fmt)
    changed |= sink_transposes(graph, manager)
    return changed
