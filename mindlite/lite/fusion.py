"""The converter's built-in Lite fusions (converter_lite's "general" optimisation), run on the
FuncGraph between the user passes scheduled at before_fusion and at after_fusion:

    BatchNorm(inference)[0]          FusedBatchNorm (layout.lower_tuple_ops, also without
                                     fusions: Lite's single-output form)
    Conv2D (-> BiasAdd) -> FusedBatchNorm    folded: the convolution's weights and bias scaled
    Maximum(x, 0) [-> Minimum(., 6)] ReLU / ReLU6 (ONNX's Clip, as imported)
    PadV3(-inf, H and W) -> MaxPool  MaxPoolFusion with pad_mode PAD and its pad list
    0.5 x (1 + erf(x / sqrt 2))      Activation GELU (the exact form; GeLU is the tanh one)
    Conv2D -> BiasAdd -> act         Conv2DFusion(x, w, b) with activation_type
    Conv2DBackpropInput -> BiasAdd   Conv2dTransposeFusion(x, w, b) (ONNX's ConvTranspose)
    MatMul -> BiasAdd -> act         MatMulFusion(x, w, b) with activation_type
    Add/Sub/Mul/Div -> act           AddFusion/SubFusion/MulFusion/DivFusion with activation_type
    MatMul -> Add(1-D constant)      the bias of MatMulFusion (ONNX's Gemm, MatMul + Add; a
                                     BatchMatMul too, as Lite's for a 3-D x @ 2-D w)
    Transpose(constant)              folded into a transposed constant

(BiasAdd and the activation each optional; act: ReLU or ReLU6, the activations Lite's
kernels apply inside an op). A fused node calls a LiteOp (ops_map.py) holding the Lite
table's fields and keeps the abstract of the last node it replaced. Only a value with exactly
one user, that no graph returns, is fused into its user.

    run(graph, manager) -> bool     (the pass interface of mindlite.jit.passes)
"""
import numpy as np

from ..common.tensor import Tensor
from ..ir.anf import CNode, ParameterNode, ValueNode
from ..ops import operations as P
from . import schema as S
from .layout import lower_tuple_ops
from .ops_map import ACTIVATIONS, FUSED_ACTIVATIONS, LiteOp

_HEADS = {"Conv2D": "Conv2DFusion", "MatMul": "MatMulFusion", "BatchMatMul": "MatMulFusion",
          "Add": "AddFusion",
          "Sub": "SubFusion", "Mul": "MulFusion", "Div": "DivFusion",
          "Conv2DBackpropInput": "Conv2dTransposeFusion",
          "Conv2DTranspose": "Conv2dTransposeFusion"}
_BIASED = ("Conv2D", "MatMul", "BatchMatMul", "Conv2DBackpropInput", "Conv2DTranspose")
_TRANSPOSED = ("Conv2DBackpropInput", "Conv2DTranspose")


def _prim_name(node):
    if not isinstance(node, CNode) or node.side_effect:
        return None
    callee = node.inputs[0]
    prim = callee.value if isinstance(callee, ValueNode) else None
    return None if isinstance(prim, LiteOp) else getattr(prim, "name", None)


def _lite_type(node):
    if not isinstance(node, CNode) or not isinstance(node.inputs[0], ValueNode):
        return None
    return getattr(node.inputs[0].value, "lite_type", None)


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


def _scalar(node):
    """A Python number, or a one-element constant's value, or None."""
    if isinstance(node, ValueNode) and isinstance(node.value, (int, float)) and \
            not isinstance(node.value, bool):
        return float(node.value)
    c = _constant(node)
    if c is not None and c.asnumpy().size == 1:
        return float(c.asnumpy().reshape(-1)[0])
    return None


def _is_bias(node, head):
    """BiasAdd(head, b), or Add(head, b) of a 1-D constant b over the last axis of a MatMul
    (ONNX's Gemm / MatMul + Add): the bias input of a fused node."""
    b = node.inputs[2].abstract
    if _prim_name(node) == "BiasAdd":
        return len(b.shape) == 1
    return (_prim_name(head) in ("MatMul", "BatchMatMul") and _constant(node.inputs[2]) is not None
            and len(b.shape) == 1 and tuple(b.shape) == tuple(head.abstract.shape[-1:])
            and b.dtype is head.abstract.dtype)


def _new(manager, anchor, prim, inputs, abstract):
    node = CNode(anchor.graph, [ValueNode(prim)] + list(inputs), abstract, anchor.debug,
                 anchor.name)
    return manager.insert_before(anchor, node)


def _const_node(array):
    t = Tensor(np.ascontiguousarray(array))
    return ValueNode(t, t._abs)


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
            manager.replace(node, _const_node(np.transpose(value.asnumpy(),
                                                           node.inputs[2].value)))
            manager.erase(node)
            changed = True
    return changed


def fold_batch_norms(graph, manager, outputs):
    """Conv2D(x, w) [-> BiasAdd(., b)] -> FusedBatchNorm(scale, bias, mean, var), all
    constant and each value used once: the convolution with w * s and bias (b - mean) * s +
    bias, s = scale / sqrt(var + epsilon) per output channel (computed in float64)."""
    changed = False
    for g in list(manager.graphs()):
        for bn in list(g.order):
            if _lite_type(bn) != "FusedBatchNorm" or len(bn.abstract.shape) != 4:
                continue
            params = [_constant(i) for i in bn.inputs[2:6]]
            src = bn.inputs[1]
            bias_node = src if _prim_name(src) == "BiasAdd" else None
            conv = src.inputs[1] if bias_node is not None else src
            if any(p is None for p in params) or _prim_name(conv) != "Conv2D" or \
                    _constant(conv.inputs[2]) is None or \
                    (bias_node is not None and _constant(bias_node.inputs[2]) is None):
                continue
            chain = [conv] + ([bias_node] if bias_node is not None else [])
            if any(len(manager.users.get(n, ())) != 1 or n.id in outputs for n in chain):
                continue
            scale, beta, mean, var = (p.asnumpy().astype(np.float64) for p in params)
            eps = bn.inputs[0].value.lite_attrs["epsilon"]
            s = scale / np.sqrt(var + eps)
            w = _constant(conv.inputs[2]).asnumpy()
            b0 = _constant(bias_node.inputs[2]).asnumpy() if bias_node is not None else 0.0
            dtype = w.dtype
            new_w = _const_node((w * s[:, None, None, None]).astype(dtype))
            new_b = _const_node(((b0 - mean) * s + beta).astype(dtype))
            y = _new(manager, bn, conv.inputs[0].value, [conv.inputs[1], new_w], conv.abstract)
            y = _new(manager, bn, P.BiasAdd(), [y, new_b], bn.abstract)
            manager.replace(bn, y)
            for n in [bn] + chain[::-1]:
                manager.erase(n)
            changed = True
    return changed


def clip_to_relu(graph, manager, outputs):
    """Maximum(x, 0) -> ReLU(x); Minimum(ReLU(x), 6) -> ReLU6(x) (ONNX's Clip(0, 6), as the
    importer writes it, is Lite's RELU6)."""
    changed = False
    for g in list(manager.graphs()):
        for node in list(g.order):
            name = _prim_name(node)
            if name not in ("Maximum", "Minimum") or node.abstract.np.kind != "f" or \
                    tuple(node.inputs[1].abstract.shape) != tuple(node.abstract.shape):
                continue
            relu = None
            if name == "Maximum" and _scalar(node.inputs[2]) == 0.0:
                y = _new(manager, node, P.ReLU(), [node.inputs[1]], node.abstract)
            elif name == "Minimum" and _scalar(node.inputs[2]) == 6.0 and \
                    _prim_name(node.inputs[1]) == "ReLU" and \
                    len(manager.users.get(node.inputs[1], ())) == 1 and \
                    node.inputs[1].id not in outputs:
                relu = node.inputs[1]
                y = _new(manager, node, P.ReLU6(), [relu.inputs[1]], node.abstract)
            else:
                continue
            manager.replace(node, y)
            manager.erase(node)
            if relu is not None:
                manager.erase(relu)
            changed = True
    return changed


def _users(manager, node, outputs):
    us = manager.users.get(node, ())
    return [] if node.id in outputs else [u for u, _ in us]


def _other(node, known):
    """The input of binary `node` that is not `known` (None if neither is)."""
    a, b = node.inputs[1], node.inputs[2]
    return b if a is known else a if b is known else None


def fuse_erf_gelu(graph, manager, outputs):
    """0.5 x (1 + erf(x / sqrt(2))), as ops.gelu(approximate='none') and PyTorch's ONNX
    export write it (Mul or Div by sqrt(2), Erf, Add 1, the two Muls in either order) ->
    Activation GELU (Lite's exact form; mindlite's GeLU primitive is the tanh one)."""
    changed = False
    for g in list(manager.graphs()):
        for erf in list(g.order):
            if _prim_name(erf) != "Erf" or not any(n is erf for n in g.order):
                continue
            scaled = erf.inputs[1]
            op, c = _prim_name(scaled), _scalar(scaled.inputs[2]) if \
                isinstance(scaled, CNode) and len(scaled.inputs) == 3 else None
            if c is None or not ((op == "Mul" and abs(c - 0.5 ** 0.5) < 1e-6) or
                                 (op in ("Div", "RealDiv") and abs(c - 2 ** 0.5) < 1e-6)):
                continue
            x = scaled.inputs[1]
            chain, node = [scaled, erf], erf
            us = _users(manager, erf, outputs)
            if len(us) != 1 or _prim_name(us[0]) != "Add" or _scalar(_other(us[0], erf)) != 1.0:
                continue
            node = us[0]
            chain.append(node)
            steps = []
            for _ in range(2):
                us = _users(manager, node, outputs)
                if len(us) != 1 or _prim_name(us[0]) != "Mul":
                    break
                node = us[0]
                steps.append(_other(node, chain[-1]))
                chain.append(node)
            if len(steps) != 2 or sorted([s is x for s in steps]) != [False, True] or \
                    _scalar([s for s in steps if s is not x][0]) != 0.5 or \
                    any(len(manager.users.get(n, ())) != 1 for n in chain[:-1]) or \
                    node.abstract != x.abstract:
                continue
            y = _new(manager, node, LiteOp("Activation", {"activation_type": S.ACT["GELU"]}),
                     [x], node.abstract)
            manager.replace(node, y)
            for n in reversed(chain):
                manager.erase(n)
            changed = True
    return changed


def fuse_padded_max_pools(graph, manager, outputs):
    """PadV3(x, (l, r, u, d), -inf) -> MaxPool(valid): MaxPoolFusion with pad [u, d, l, r]
    (the ONNX importer's padded MaxPool; Lite's MaxPoolFusion never picks a padded cell)."""
    changed = False
    for g in list(manager.graphs()):
        for pool in list(g.order):
            pad = pool.inputs[1] if _prim_name(pool) == "MaxPool" else None
            if pad is None or _prim_name(pad) != "PadV3" or \
                    str(pool.inputs[0].value.attrs["pad_mode"]).lower() != "valid":
                continue
            a = pad.inputs[0].value.attrs
            p = pad.inputs[2].value if isinstance(pad.inputs[2], ValueNode) else None
            fill = _scalar(pad.inputs[3]) if len(pad.inputs) > 3 else None
            if a["mode"] != "constant" or fill != float("-inf") or not isinstance(p, tuple) \
                    or len(p) != 4 or min(p) < 0 or len(manager.users.get(pad, ())) != 1 \
                    or pad.id in outputs:
                continue
            pa = pool.inputs[0].value.attrs
            attrs = {"kernel_size": list(pa["kernel_size"][-2:]),
                     "strides": list(pa["strides"][-2:]), "pad": [p[2], p[3], p[0], p[1]],
                     "pad_mode": S.PAD_MODE["PAD"], "round_mode": S.ROUND_FLOOR,
                     "format": S.FORMAT_NCHW}
            y = _new(manager, pool, LiteOp("MaxPoolFusion", attrs), [pad.inputs[1]],
                     pool.abstract)
            manager.replace(pool, y)
            manager.erase(pool)
            manager.erase(pad)
            changed = True
    return changed


def _fuse(head, manager, outputs):
    from .ops_map import EXPORT
    name = _prim_name(head)
    if name not in _HEADS or any(isinstance(i, ValueNode) and isinstance(i.value, (int, float))
                                 for i in head.inputs[1:]):
        return False
    args = head.inputs[1:]
    if name in _TRANSPOSED:               # (dout, w, input_size): the size is an attribute
        if not isinstance(args[2], ValueNode):
            return False
        args = args[:2] + [args[2].value]
    _, attrs, _ = EXPORT[name](head.inputs[0].value, args)
    inputs, last = list(head.inputs[1:3] if name in _TRANSPOSED else head.inputs[1:]), head
    if name in _BIASED:
        bias = _single_user(head, manager, outputs, lambda n: n in ("BiasAdd", "Add"))
        if bias is not None and _is_bias(bias, head):
            inputs.append(bias.inputs[2])
            last = bias
    act = _single_user(last, manager, outputs, lambda n: n in FUSED_ACTIVATIONS)
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
    changed |= lower_tuple_ops(graph, manager)
    outputs = {g.output.id for g in manager.graphs() if g.output is not None}
    changed |= fold_batch_norms(graph, manager, outputs)
    changed |= clip_to_relu(graph, manager, outputs)
    changed |= fuse_padded_max_pools(graph, manager, outputs)
    changed |= fuse_erf_gelu(graph, manager, outputs)
    for g in list(manager.graphs()):
        for node in list(g.order):
            if node in g.order and _fuse(node, manager, outputs):
                changed = True
    return changed
