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
    lower_int64_argmax  Argmax to int64 -> ArgMaxFusion (int32) and a Cast
    input_format        the root graph's 4-D inputs NHWC, a Transpose back after each
    sink_transposes     Transposes moved down through layout-free ops and cancelled where
                        two meet (transposes.py): what is left are Lite's boundary Transposes

    convert_layout(graph, manager, input_format) runs them (and lower_int64_argmax, Lite's
    ArgMaxFusion giving int32) in that order.
"""
import numpy as np

from ..abstract import abstract_tensor
from ..common.tensor import Tensor
from ..ir.anf import TUPLE_GETITEM, CNode, ValueNode
from ..ops import operations as P
from . import schema as S
from .ops_map import EXPORT, LiteOp
from .transposes import (TO_NCHW, TO_NHWC, as_node, callee_of, const_node, constant_value,
                         is_4d, lite_type_of, new_node, permuted, prim_name, sink_transposes,
                         transpose_node)

FORMATS = ("NHWC", "NCHW")
# Lite ops that run NHWC, and which of their inputs are weights transposed with the data
NHWC_OPS = {"Conv2DFusion": {2: TO_NHWC}, "Conv2dTransposeFusion": {2: TO_NHWC},
            "MaxPoolFusion": {}, "AvgPoolFusion": {}, "FusedBatchNorm": {}, "Resize": {},
            "BiasAdd": {}}
_LOWERED = {"Conv2D", "Conv2DBackpropInput", "Conv2DTranspose", "MaxPool", "AvgPool",
            "AvgPool2D", "ResizeNearestNeighborV2", "ResizeBilinearV2", "BiasAdd"}


def lower_tuple_ops(graph, manager):
    """BatchNorm (inference, NCHW) and LayerNorm whose users all take output 0 become one
    LiteOp node (FusedBatchNorm, LayerNormFusion) giving that output."""
    changed = False
    for g in list(manager.graphs()):
        for node in list(g.order):
            name = prim_name(node)
            if name not in ("BatchNorm", "LayerNorm", "MaxPoolWithArgmaxV2"):
                continue
            users = manager.users.get(node, [])
            if not users or any(callee_of(u) is not TUPLE_GETITEM or i != 1 or
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
            y = new_node(manager, node, prim, node.inputs[1:], first.abstract)
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
        x = new_node(manager, node, P.PadV3(), [x, ValueNode((pad[2], pad[3], pad[0], pad[1])),
                                            ValueNode(0.0)],
                 abstract_tensor(x.abstract.dtype, shape))
        pad = [0, 0, 0, 0]
    attrs = {"kernel_size": list(kernel), "strides": list(stride), "pad": pad,
             "pad_mode": S.PAD_MODE["PAD"], "round_mode": S.ROUND_CEIL if ceil else S.ROUND_FLOOR,
             "format": S.FORMAT_NCHW}
    return new_node(manager, node, LiteOp("MaxPoolFusion" if is_max else "AvgPoolFusion", attrs),
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
        y = new_node(manager, node, LiteOp(op_type, attrs), [as_node(i) for i in inputs],
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
            if prim_name(node) in _LOWERED and is_4d(node) and is_4d(node.inputs[1]):
                node = _lower(manager, node)
                changed = True
            op = lite_type_of(node)
            if op not in NHWC_OPS or not is_4d(node) or not is_4d(node.inputs[1]) or \
                    node.inputs[0].value.lite_attrs.get("format", S.FORMAT_NCHW) != \
                    S.FORMAT_NCHW:
                continue
            ins = [transpose_node(manager, node, node.inputs[1], TO_NHWC)]
            for i, x in enumerate(node.inputs[2:], 2):
                perm = NHWC_OPS[op].get(i)
                if perm is not None:
                    w = constant_value(x)
                    if w is None:
                        raise NotImplementedError(
                            f"converter: node {node.name or op} ({op}): its weights are not "
                            "constant, and MindSpore Lite runs it NHWC with constant KHWC "
                            "weights")
                    x = const_node(np.transpose(w, perm))
                ins.append(x)
            attrs = dict(node.inputs[0].value.lite_attrs, format=S.FORMAT_NHWC)
            y = new_node(manager, node, LiteOp(op, attrs), ins, permuted(node.abstract, TO_NHWC))
            back = transpose_node(manager, node, y, TO_NCHW)
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
        if p.default is not None or not is_4d(p):
            continue
        users = list(manager.users.get(p, []))
        nchw = p.abstract
        p.abstract = permuted(nchw, TO_NHWC)
        t = CNode(graph, [ValueNode(P.Transpose()), p, ValueNode(TO_NCHW)], nchw)
        graph.order.insert(0, t)
        for u, i in users:
            u.inputs[i] = t
        if graph.output is p:
            graph.output = t
        manager.rebuild()
        changed = True
    return changed


def lower_int64_argmax(graph, manager):
    """Argmax to int64 (ops.argmax's) -> Argmax to int32 (Lite's ArgMaxFusion) and a Cast."""
    from ..common import dtype as mstype
    changed = False
    for g in list(manager.graphs()):
        for node in list(g.order):
            prim = callee_of(node)
            if prim_name(node) != "Argmax" or prim.attrs["output_type"] is not mstype.int64:
                continue
            a = node.abstract
            i32 = new_node(manager, node, P.Argmax(prim.attrs["axis"], mstype.int32),
                           node.inputs[1:], abstract_tensor(mstype.int32, tuple(a.shape)))
            y = new_node(manager, node, P.Cast(), [i32, ValueNode(mstype.int64)], a)
            manager.replace(node, y)
            manager.erase(node)
            changed = True
    return changed


def convert_layout(graph, manager, input_fmt="NHWC"):
    """The passes above, in order; returns whether anything changed."""
    changed = lower_tuple_ops(graph, manager)
    changed |= lower_int64_argmax(graph, manager)
    changed |= to_nhwc(graph, manager)
    changed |= input_format(graph, manager, input_fmt)
    changed |= sink_transposes(graph, manager)
    return changed
