"""Conv2D + BiasAdd (+ ReLU) (+ MaxPool) fusion: `BiasAdd(Conv2D(x, w), bias)`, `ReLU` of
that, or `ReLU(Conv2D(x, w))` (nn.Conv2d has no bias by default), as nn.Conv2d then nn.ReLU
build them, and a 2 x 2 'valid' MaxPool (nn.MaxPool2d(2, s)) reading that, become one CNode
calling FusedConv2DBiasAdd (fused_ops.py), whose C++ kernel runs the small-convolution loop
eager's Conv2D runs, adds the bias (and applies ReLU) in place on its still-hot output and
then runs MaxPool's 2 x 2 loop: no intermediate tensors, one call instead of two to four.

    run(graph, manager) -> bool      (the pass interface; True when the graph changed)
    PATTERN                          the fusion as data: Conv2D, then (each if it follows)
                                     BiasAdd, ReLU, MaxPool (fusion.py runs it)

Fused when: the Conv2D's value (and the BiasAdd's and ReLU's, when a later op joins) has
that one user and no graph returns it, the MaxPool (if any) is MaxPool(2, strides, 'valid')
in NCHW, all are the framework's own primitives with only built-in kernels registered
(plugin devices skip this stage: jit/passes/device.py CPU_FUSIONS), the dtype is float32/float64,
the shapes are static and eager would run the Conv2D through the small-convolution kernel
(conv_small_cpp.py; other shapes keep their unfused nodes), BiasAdd's data_format is NCHW
with a 1-D bias of the output's dtype, and no side-effect node lies between the Conv2D and
the last fused node.
Run it before fuse_elementwise, which would otherwise take the ReLU into an elementwise group.
"""
from ...ir.anf import CNode, ValueNode
from ...ops.operations.fused_ops import FLOAT_DTYPES, FusedConv2DBiasAdd
from .fusion import Pattern, Step, bias_add_step, relu_step, run_patterns
from .fusion import value_abstract as _abstract


def _conv_small_selected(x, w):
    from ...kernels import registry
    from ...kernels.cpu._cext import _C
    try:
        kdef = registry.select_kernel("Conv2D", "CPU", x.dtype, input_abstracts=(x, w))
    except (TypeError, NotImplementedError, ValueError):
        return False
    return kdef.fn is _C.conv_small_forward


def _conv(node):
    """The FusedConv2DBiasAdd attributes of `node` when it is a plain float Conv2D call that
    eager runs through the small-convolution kernel, else None."""
    if not isinstance(node, CNode) or node.side_effect or len(node.inputs) != 3:
        return None
    prim = node.inputs[0].value if isinstance(node.inputs[0], ValueNode) else None
    if type(prim).__name__ != "Conv2D":
        return None
    from ...kernels import registry
    from ...ops.operations.conv_ops import Conv2D
    a = prim.attrs
    pad = a["pad"] if a["pad_mode"] == "pad" else 0
    attrs = (a["out_channel"], a["kernel_size"], a["pad_mode"], pad, a["stride"],
             a["dilation"], a["group"])
    if type(prim) is not Conv2D or prim != Conv2D(attrs[0], attrs[1], 1, *attrs[2:]) or any(
            not k.builtin for k in registry.kernels_for("Conv2D")):
        return None
    x, w = _abstract(node.inputs[1]), _abstract(node.inputs[2])
    if getattr(node.abstract, "dtype", None) not in FLOAT_DTYPES or not _conv_small_selected(
            x, w):
        return None
    return attrs


def _max_pool(node, conv, attrs, chain):
    """A 2 x 2 'valid' NCHW MaxPool."""
    if node.side_effect or len(node.inputs) != 2:
        return False
    from ...kernels import registry
    from ...ops.operations.pool_ops import MaxPool
    callee = node.inputs[0]
    prim = callee.value if isinstance(callee, ValueNode) else None
    if type(prim) is not MaxPool or prim.attrs["kernel_size"] != (1, 1, 2, 2) or any(
            not k.builtin for k in registry.kernels_for("MaxPool")):
        return False
    return prim == MaxPool(2, prim.attrs["strides"][2:], "valid")


def _build(g, conv, attrs, chain):
    bias_add, relu, pool = chain.get("bias_add"), chain.get("relu"), chain.get("pool")
    last = pool or relu or bias_add
    bias = bias_add.inputs[2] if bias_add is not None else None
    stride = pool.inputs[0].value.attrs["strides"][2:] if pool is not None else None
    prim = FusedConv2DBiasAdd(*attrs, bias is not None, "relu" if relu else "none", stride)
    inputs = [ValueNode(prim, prim), conv.inputs[1], conv.inputs[2]]
    return CNode(g, inputs + ([bias] if bias is not None else []), last.abstract, last.debug,
                 last.name)


PATTERN = Pattern(_conv, (Step("bias_add", bias_add_step(("NCHW",)), optional=True),
                          Step("relu", relu_step, optional=True),
                          Step("pool", _max_pool, optional=True)), _build)


def run(graph, manager):
    """Fuse every Conv2D -> BiasAdd / ReLU (-> MaxPool) chain reachable from `graph`."""
    return run_patterns(graph, manager, (PATTERN,))
