"""MatMul + BiasAdd (+ ReLU) fusion: `BiasAdd(MatMul(x1, x2), bias)` and `ReLU` of that,
as nn.Dense builds them, become one CNode calling FusedMatMulBiasAdd (fused_ops.py), whose
kernel runs the MatMul kernel eager would select and then adds the bias (and applies ReLU) in
place on its output: no intermediate tensors and one call instead of two or three.

    run(graph, manager) -> bool      (the pass interface; True when the graph changed)

Fused when: the MatMul's value (and the BiasAdd's, when a ReLU joins) has that one user and
no graph returns it, all are the framework's own primitives with only built-in kernels
registered, the dtype is float32/float64 and the bias is a 1-D tensor of that dtype (the
MatMul output is 2-D, so BiasAdd's channel axis is the last one for every data_format), and
no side-effect node lies between the MatMul and the last fused node.
Run it before fuse_elementwise, which would otherwise take the ReLU into an elementwise group.
"""
from ...ir.anf import CNode, ValueNode
from ...ops.operations.fused_ops import FLOAT_DTYPES, FusedMatMulBiasAdd
from .fuse_elementwise import epochs, output_ids, prim_of

_DATA_FORMATS = ("NCHW", "NHWC")


def _only_user(node, users, outputs, name):
    """The single user of `node` when it calls primitive `name` (in the same graph)."""
    us = users.get(node, ())
    if len(us) != 1 or node.id in outputs:
        return None
    user, index = us[0]
    if index != 1 or user.graph is not node.graph:
        return None
    return user if _is(user, name) else None


def value_abstract(node):
    """A node's abstract; a constant tensor's own abstract for a ValueNode holding one."""
    if isinstance(node, ValueNode) and hasattr(node.value, "_abs"):
        return node.value._abs
    return node.abstract


def replace_chains(g, manager, fused):
    """Put each fused node in place of its chain in `g`: `fused` maps the chain's last node
    id to (fused node, ids of the chain's other nodes, last node). True when it changed g."""
    if not fused:
        return False
    drop = set().union(*(d for _, d, _ in fused.values()))
    g.order = [fused[n.id][0] if n.id in fused else n for n in g.order if n.id not in drop]
    manager.rebuild()
    for node, _, last in fused.values():
        manager.replace(last, node)
    return True


def _is(node, name):
    if name != "BiasAdd":
        return prim_of(node, {name: 0}) == name
    from ...kernels import registry
    from ...ops.operations.nn_ops import BiasAdd
    callee = node.inputs[0]
    prim = callee.value if isinstance(callee, ValueNode) else None
    if type(prim) is not BiasAdd or node.side_effect:
        return False
    fmt = prim.attrs.get("data_format")
    return (fmt in _DATA_FORMATS and prim == BiasAdd(fmt)
            and all(k.builtin for k in registry.kernels_for("BiasAdd")))


def _matmul(node):
    """(transpose_a, transpose_b) when `node` is a plain float MatMul call, else None."""
    if not isinstance(node, CNode) or node.side_effect or len(node.inputs) != 3:
        return None
    prim = node.inputs[0].value if isinstance(node.inputs[0], ValueNode) else None
    if type(prim).__name__ != "MatMul":
        return None
    from ...kernels import registry
    from ...ops.operations.math_ops import MatMul
    ta, tb = prim.attrs.get("transpose_a"), prim.attrs.get("transpose_b")
    if type(prim) is not MatMul or prim != MatMul(ta, tb) or any(
            not k.builtin for k in registry.kernels_for("MatMul")):
        return None
    if getattr(node.abstract, "dtype", None) not in FLOAT_DTYPES:
        return None
    return ta, tb


def run(graph, manager):
    """Fuse every MatMul -> BiasAdd (-> ReLU) chain of the graphs reachable from `graph`."""
    changed = False
    outputs = output_ids(manager)
    users = manager.users
    for g in manager.graphs():
        fused = {}                                   # last node id -> (fused node, dropped ids)
        epoch = epochs(g)
        for mm in g.order:
            flags = _matmul(mm)
            if flags is None:
                continue
            bias_add = _only_user(mm, users, outputs, "BiasAdd")
            if bias_add is None or len(bias_add.inputs) != 3:
                continue
            bias = bias_add.inputs[2]
            ab = value_abstract(bias)
            if getattr(ab, "dtype", None) is not mm.abstract.dtype or len(
                    getattr(ab, "shape", ())) != 1:
                continue
            relu = _only_user(bias_add, users, outputs, "ReLU")
            if relu is not None and epoch[relu.id] != epoch[mm.id]:
                relu = None
            last = relu or bias_add
            if epoch[last.id] != epoch[mm.id]:     # never moved past an in-place write
                continue
            prim = FusedMatMulBiasAdd(flags[0], flags[1], "relu" if relu else "none")
            node = CNode(g, [ValueNode(prim, prim), mm.inputs[1], mm.inputs[2], bias],
                         last.abstract, last.debug, last.name)
            fused[last.id] = (node, {mm.id, bias_add.id} - {last.id}, last)
        changed = replace_chains(g, manager, fused) or changed
    if changed:
        manager.rebuild()
    return changed
