"""MobileNetV2's inverted-residual block as one node, for the Lite runtime (lite/graph_build.py
runs this pass after the pipeline's conv_act_fusion made one FusedConvAct per convolution):

    FusedConvAct 1x1 (expand) -> FusedConvAct depthwise -> FusedConvAct 1x1 (project,
    optional residual)  ->  FusedInvertedResidual (ops/operations/inverted_residual_ops.py)

and, where the depthwise input is not such an expansion (MobileNetV2's block 0), the
depthwise -> project pair into FusedInvertedResidual(..., expand=False)

whose kernel runs the block over bands of output rows with the 6C-channel intermediates in L2
(kernels/cpu/inverted_residual_cpp.py), bit for bit what the three nodes give.

    run(graph, manager) -> bool      (the pass interface; True when the graph changed)

Fused when: the expansion and the projection are 1 x 1, stride 1, unpadded, one group; the
depthwise one has one output channel per input channel; none but the projection has a
residual; every activation is none / ReLU / ReLU6; the expanded and the depthwise values each
have that one user and no graph returns them; no side-effect node lies between; the dtype is
float32 / float64 with static shapes; and the planes are ones the kernel mirrors the unfused
kernels on: the depthwise output wider than 8, or (AVX-512: masked loads) of 32 positions or
more and as wide as a stride phase of its input (the channels-first small-plane path; other
narrow planes run channels-last, which the kernel does not mirror), each plane
at least 16 positions or batch 1 (the pointwise kernel's path), and the expanded activations
at least MIN_EXPANDED_BYTES (0: every block; MobileNetV2's 14 x 14 blocks, whose expansion fits
L2 unfused, gain nothing on one thread but take one launch instead of three on two threads,
which is what a loaded machine's preempted worker costs; docs/conv_engine_rounds.md).

Not in the `@jit` pipeline: there a training graph's intermediates have other users (the
backward), and where they do not, the node's gradient recomputes both intermediates.
"""
from ...ir.anf import CNode, ValueNode
from ...ops.operations.conv_fused_ops import FLOAT_DTYPES, FusedConvAct
from ...ops.operations.inverted_residual_ops import BLOCK_ACTIVATIONS, FusedInvertedResidual
from .fusion import run_fusion, single_user
from ... import _C

MIN_EXPANDED_BYTES = 0
DW_SMALL_WIDTH = 8            # kDwSmallWidth (csrc/kernels/conv_depthwise.h)
DW_PLANE_MIN = 32             # kDwPlaneMin
MIN_PLANE = 16                # positions: a vector of the widest pointwise tile (float32)


def _fused_conv(node):
    """The FusedConvAct primitive `node` calls, else None."""
    if not isinstance(node, CNode) or node.side_effect:
        return None
    callee = node.inputs[0]
    prim = callee.value if isinstance(callee, ValueNode) else None
    return prim if type(prim) is FusedConvAct else None


def _pointwise(prim):
    a = prim.conv.attrs
    return (tuple(a["kernel_size"]) == (1, 1) and tuple(a["stride"][2:]) == (1, 1)
            and a["group"] == 1 and (a["pad_mode"] in ("valid", "same") or not any(a["pad"]))
            and prim.attrs["activation"] in BLOCK_ACTIVATIONS)


def _shape(node):
    return tuple(getattr(node.abstract, "shape", ()) or ())


def _block(proj, ctx):
    """(expand node or None, depthwise node) when `proj` ends a fusable block (None: one
    without expansion), else None."""
    pp = _fused_conv(proj)
    if pp is None or not _pointwise(pp):
        return None
    dw = proj.inputs[1]
    dp = _fused_conv(dw)
    if dp is None or single_user(dw, ctx) is not proj or dp.attrs["has_residual"] or \
            dp.attrs["activation"] not in BLOCK_ACTIVATIONS:
        return None
    ex = dw.inputs[1]
    ep = _fused_conv(ex)
    if ep is None or not _pointwise(ep) or ep.attrs["has_residual"] or \
            single_user(ex, ctx) is not dw:
        ex = None                         # the block without expansion: dw reads its input
    mid, out = _shape(dw.inputs[1]), _shape(dw)
    if len({ctx.epoch[n.id] for n in (ex, dw, proj) if n is not None}) != 1:
        return None
    if len(mid) != 4 or len(out) != 4 or getattr(proj.abstract, "dtype", None) not in \
            FLOAT_DTYPES or any(not isinstance(d, int) or d < 0 for d in mid + out):
        return None
    e = mid[1]
    if dp.conv.attrs["group"] != e or dp.conv.attrs["out_channel"] != e:
        return None
    stride_w = dp.conv.attrs["stride"][3]
    if out[3] <= DW_SMALL_WIDTH and (_C.kernel_isa() != "avx512" or out[2] * out[3] <
                                     DW_PLANE_MIN or out[3] != -(-mid[3] // stride_w)):
        return None
    if mid[0] != 1 and min(mid[2] * mid[3], out[2] * out[3]) < MIN_PLANE:
        return None
    if mid[0] * e * mid[2] * mid[3] * proj.abstract.dtype.itemsize < MIN_EXPANDED_BYTES:
        return None
    return ex, dw


def _find(g, ctx):
    fused = {}
    for proj in g.order:
        found = _block(proj, ctx)
        if found is None:
            continue
        ex, dw = found
        nodes = [n for n in (ex, dw, proj) if n is not None]
        prims = [_fused_conv(n) if n is not None else None for n in (ex, dw, proj)]
        a = prims[1].conv.attrs
        prim = FusedInvertedResidual(
            a["out_channel"], prims[2].conv.attrs["out_channel"], a["kernel_size"],
            a["pad_mode"], a["pad"], a["stride"][2:], a["dilation"][2:],
            tuple(bool(p and p.attrs["has_bias"]) for p in prims),
            prims[2].attrs["has_residual"],
            tuple(p.attrs["activation"] if p else "none" for p in prims), ex is not None)
        inputs = [ValueNode(prim, prim), nodes[0].inputs[1]]
        for node in nodes:
            inputs += node.inputs[2:]
        node = CNode(g, inputs, proj.abstract, proj.debug, proj.name)
        fused[proj.id] = (node, {n.id for n in nodes[:-1]}, proj)
    return fused


def run(graph, manager):
    """Fuse every expand -> depthwise -> project chain (or depthwise -> project pair) of
    FusedConvAct nodes reachable from `graph` (fusion.py's walk)."""
    return run_fusion(graph, manager, _find)
