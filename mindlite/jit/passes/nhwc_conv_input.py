"""The Lite runtime's NHWC convolution input (lite/graph_build.py runs this pass after
fuse_inverted_residual): a convolution whose input is the NCHW transpose of an NHWC value
(MobileNetV2's stem reading the graph's NHWC input) reads that value in place:

    FusedConvAct(Transpose(x, (0, 3, 1, 2)), w, ...)  ->  FusedConvActNHWC(x, w, ...)

(ops/operations/conv_fused_ops.py), bit for bit the same output (its kernel packs the engine's
B panels straight from x's NHWC rows, in the NCHW kernel's K order); the Transpose goes when
the convolution was its one user.

    run(graph, manager) -> bool      (the pass interface; True when the graph changed)

Only for one group and at most MAX_CHANNELS input channels: there each output position's
inputs lie in a few short runs of x's rows (3 runs of 9 floats for a 3 x 3 stride-2 stem on
RGB), and one Transpose pass over x costs about what the packing saves; wider inputs keep the
Transpose, whose NCHW rows the packer copies as whole vectors.
"""
from ...ir.anf import CNode, ValueNode
from ...ops.operations.conv_fused_ops import FusedConvActNHWC
from .fuse_inverted_residual import _fused_conv
from .fusion import run_fusion, single_user

MAX_CHANNELS = 4
TO_NCHW = (0, 3, 1, 2)
_ATTRS = ("out_channel", "kernel_size", "pad_mode", "pad", "stride", "dilation", "group",
          "has_bias", "has_residual", "activation")


def _nhwc_source(node):
    """x when `node` is Transpose(x, (0, 3, 1, 2)) of a 4-D x with static shape, else None."""
    if not isinstance(node, CNode) or node.side_effect or len(node.inputs) != 3:
        return None
    callee, perm = node.inputs[0], node.inputs[2]
    prim = callee.value if isinstance(callee, ValueNode) else None
    if getattr(prim, "name", None) != "Transpose" or not isinstance(perm, ValueNode) or \
            not isinstance(perm.value, tuple) or tuple(perm.value) != TO_NCHW:
        return None
    x = node.inputs[1]
    shape = tuple(getattr(x.abstract, "shape", ()) or ())
    if len(shape) != 4 or any(not isinstance(d, int) or d < 0 for d in shape):
        return None
    return x


def _find(g, ctx):
    fused = {}
    for node in g.order:
        prim = _fused_conv(node)
        if prim is None or prim.attrs["group"] != 1:
            continue
        t = node.inputs[1]
        x = _nhwc_source(t)
        if x is None or x.abstract.shape[3] > MAX_CHANNELS:
            continue
        new = FusedConvActNHWC(*[prim.attrs[k] for k in _ATTRS])
        fused_node = CNode(g, [ValueNode(new, new), x] + list(node.inputs[2:]), node.abstract,
                           node.debug, node.name)
        drop = {t.id} if single_user(t, ctx) is node else set()
        fused[node.id] = (fused_node, drop, node)
    return fused


def run(graph, manager):
    """Give every FusedConvAct of a transposed NHWC input of at most MAX_CHANNELS channels
    that input (fusion.py's walk)."""
    return run_fusion(graph, manager, _find)
