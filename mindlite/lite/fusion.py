"""The converter's built-in Lite fusions (converter_lite's "general" optimisation), run on the
FuncGraph between the user passes scheduled at before_fusion and at after_fusion:

    Conv2D -> BiasAdd -> act     Conv2DFusion(x, w, b) with activation_type
    MatMul -> BiasAdd -> act     MatMulFusion(x, w, b) with activation_type
    Add/Sub/Mul/Div -> act       AddFusion/SubFusion/MulFusion/DivFusion with activation_type
    MatMul -> Add(1-D constant)  the bias of MatMulFusion (ONNX's Gemm, MatMul + Add)
    Transpose(constant)          folded into a transposed constant

(BiasAdd and the activation each optional; act: ReLU, Sigmoid, Tanh, GeLU). A fused node
calls a LiteOp (ops_map.py) holding the Lite table's fields and keeps the abstract of the
last node it replaced. Only a value with exactly one user, that no graph returns, is fused
into its user.

    run(graph, manager) -> bool     (the pass interface of mindlite.jit.passes)
"""
import numpy as np

from ..common.tensor import Tensor
from ..ir.anf import CNode, ParameterNode, ValueNode
from . import schema as S
from .ops_map import ACTIVATIONS, LiteOp

_HEADS = {"Conv2D": "Conv2DFusion", "MatMul": "MatMulFusion", "Add": "AddFusion",
          "Sub": "SubFusion", "Mul": "MulFusion", "Div": "DivFusion"}
_BIASED = ("Conv2D", "MatMul")


def _prim_name(node):
    if not isinstance(node, CNode) or node.side_effect:
        return None
    callee = node.inputs[0]
    prim = callee.value if isinstance(callee, ValueNode) else None
    return None if isinstance(prim, LiteOp) else getattr(prim, "name", None)


def _single_user(node, manager, outputs, name_ok):
    us = manager.users.get(node, ())
    if len(us) != 1 or node.id in outputs:
        return None
    user, index = us[0]
    if index != 1 or user.graph is not node.graph or not name_ok(_prim_name(user)):
        return None
    return user


def _constant(node):
    """The value of a weight (ParameterNode with a default) or a Tensor constant, or None."""
    if isinstance(node, ParameterNode) and node.default is not None:
        return node.default
    if isinstance(node, ValueNode) and isinstance(node.value, Tensor):
        return node.value
    return None


def _is_bias(node, head):
    """BiasAdd(head, b), or Add(head, b) of a 1-D constant b over the last axis of a MatMul
    (ONNX's Gemm / MatMul + Add): the bias input of a fused node."""
    b = node.inputs[2].abstract
    if _prim_name(node) == "BiasAdd":
        return len(b.shape) == 1
    return (_prim_name(head) == "MatMul" and _constant(node.inputs[2]) is not None
            and len(b.shape) == 1 and tuple(b.shape) == tuple(head.abstract.shape[-1:])
            and b.dtype is head.abstract.dtype)


def fold_constant_transposes(graph, manager):
    """Transpose(weight, perm) -> the transposed weight, as a constant (what Lite's
    converter's constant folding does to ONNX's transposed Gemm weights)."""
    changed = False
    for g in list(manager.graphs()):
        for node in list(g.order):
            if _prim_name(node) != "Transpose" or not isinstance(node.inputs[2], ValueNode):
                continue
            value = _constant(node.inputs[1])
            if value is None:
                continue
            folded = Tensor(np.ascontiguousarray(np.transpose(value.asnumpy(),
                                                              node.inputs[2].value)))
            manager.replace(node, ValueNode(folded, folded._abs))
            manager.erase(node)
            changed = True
    return changed


def _fuse(head, manager, outputs):
    from .ops_map import EXPORT
    name = _prim_name(head)
    if name not in _HEADS or any(isinstance(i, ValueNode) and isinstance(i.value, (int, float))
                                 for i in head.inputs[1:]):
        return False
    _, attrs, _ = EXPORT[name](head.inputs[0].value, head.inputs[1:])
    inputs, last = list(head.inputs[1:]), head
    if name in _BIASED:
        bias = _single_user(head, manager, outputs, lambda n: n in ("BiasAdd", "Add"))
        if bias is not None and _is_bias(bias, head):
            inputs.append(bias.inputs[2])
            last = bias
    act = _single_user(last, manager, outputs, lambda n: n in ACTIVATIONS)
    if act is not None:
        attrs["activation_type"] = S.ACT[ACTIVATIONS[_prim_name(act)]]
        last = act
    if last is head:
        return False
    fused = CNode(head.graph, [ValueNode(LiteOp(_HEADS[name], attrs))] + inputs, last.abstract,
                  last.debug, last.name)
    manager.insert_before(last, fused)
    manager.replace(last, fused)
    node = last
    while node is not head:                 # erase the chain, last first
        prev = node.inputs[1]
        manager.erase(node)
        node = prev
    manager.erase(head)
    return True


def run(graph, manager):
    changed = fold_constant_transposes(graph, manager)
    outputs = {g.output.id for g in manager.graphs() if g.output is not None}
    for g in list(manager.graphs()):
        for node in list(g.order):
            if node in g.order and _fuse(node, manager, outputs):
                changed = True
    return changed
