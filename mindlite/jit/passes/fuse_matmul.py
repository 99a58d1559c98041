"""MatMul + BiasAdd (+ ReLU) fusion: `BiasAdd(MatMul(x1, x2), bias)` and `ReLU` of that,
as nn.Dense builds them, become one CNode calling FusedMatMulBiasAdd (fused_ops.py), whose
kernel runs the MatMul kernel eager would select and then adds the bias (and applies ReLU) in
place on its output: no intermediate tensors and one call instead of two or three.

    run(graph, manager) -> bool      (the pass interface; True when the graph changed)
    PATTERN                          the fusion as data: MatMul, then BiasAdd, then a ReLU
                                     if one follows (fusion.py runs it)

Fused when: the MatMul's value (and the BiasAdd's, when a ReLU joins) has that one user and
no graph returns it, all are the framework's own primitives with only built-in kernels
registered, the dtype is float32/float64 and the bias is a 1-D tensor of that dtype (the
MatMul output is 2-D, so BiasAdd's channel axis is the last one for every data_format), and
no side-effect node lies between the MatMul and the last fused node.
Run it before fuse_elementwise, which would otherwise take the ReLU into an elementwise group.
"""
from ...ir.anf import CNode, ValueNode
from ...ops.operations.fused_ops import FLOAT_DTYPES, FusedMatMulBiasAdd
from .fusion import Pattern, Step, bias_add_step, relu_step, run_patterns


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


def _build(g, mm, flags, chain):
    bias_add, relu = chain["bias_add"], chain.get("relu")
    last = relu or bias_add
    prim = FusedMatMulBiasAdd(flags[0], flags[1], "relu" if relu else "none")
    return CNode(g, [ValueNode(prim, prim), mm.inputs[1], mm.inputs[2], bias_add.inputs[2]],
                 last.abstract, last.debug, last.name)


PATTERN = Pattern(_matmul, (Step("bias_add", bias_add_step()),
                            Step("relu", relu_step, optional=True)), _build)


def run(graph, manager):
    """Fuse every MatMul -> BiasAdd (-> ReLU) chain of the graphs reachable from `graph`."""
    return run_patterns(graph, manager, (PATTERN,))
