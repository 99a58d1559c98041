"""FusedInvertedResidual: MobileNetV2's inverted-residual block (expand 1x1 -> depthwise ->
project 1x1) as one node, made by the Lite runtime's inverted_residual_fusion pass
(mindlite/jit/passes/fuse_inverted_residual.py) out of three FusedConvAct nodes
(conv_fused_ops.py), and usable directly like any primitive.

FusedInvertedResidual(expanded, out_channel, kernel_size, pad_mode, pad, stride, dilation,
                      has_biases, has_residual, activations, expand=True)
    FusedConvAct(out_channel, 1, has_bias=has_biases[2], has_residual, activations[2]) of
    FusedConvAct(expanded, kernel_size, pad_mode, pad, stride, dilation, group=expanded,
                 has_biases[1], activation=activations[1]) of
    FusedConvAct(expanded, 1, has_bias=has_biases[0], activation=activations[0]) of x:
    the three convolutions in that order, each with its optional bias and activation ('none',
    'relu', 'relu6'), the residual (the output's shape) added by the last. Inputs (x, w1[, b1],
    w2[, b2], w3[, b3][, residual]). expand=False: no expansion (MobileNetV2's block 0:
    depthwise -> project; x has `expanded` channels, has_biases[0] False and activations[0]
    'none'), inputs (x, w2[, b2], w3[, b3][, residual]). The kernel
    (kernels/cpu/inverted_residual_cpp.py) runs the block over bands of output rows with the
    6C-channel intermediates in per-thread buffers, bit for bit what the three FusedConvAct
    kernels give one by one.

Gradient: the three stages' FusedConvAct gradients in reverse (conv_fused_ops.py's rules),
the intermediates recomputed by the stages' own kernels.
"""
from ...ir.primitive import Primitive, prim_attr_register
from ...ir.rules import bprop_for
from ..validator import check_bool, tensor
from ._base import cached_prim, needs_grad
from ._grad_ops import BiasAddGrad, ReLU6Grad, ReluGrad
from .conv_fused_ops import FusedConvAct, _unactivated
from .conv_ops import _family

__all__ = ["FusedInvertedResidual", "BLOCK_ACTIVATIONS"]

BLOCK_ACTIVATIONS = ("none", "relu", "relu6")


class FusedInvertedResidual(Primitive):
    """expand 1x1 -> depthwise -> project 1x1 (see the module docstring)."""

    @prim_attr_register
    def __init__(self, expanded, out_channel, kernel_size, pad_mode="same", pad=0, stride=1,
                 dilation=1, has_biases=(True, True, True), has_residual=False,
                 activations=("relu6", "relu6", "none"), expand=True):
        check_bool(self, "has_residual", has_residual)
        check_bool(self, "expand", expand)
        has_biases, activations = tuple(has_biases), tuple(activations)
        if len(has_biases) != 3 or len(activations) != 3:
            raise ValueError(f"For 'FusedInvertedResidual', 'has_biases' and 'activations' must "
                             f"hold three values (expand, depthwise, project), but got "
                             f"{has_biases} and {activations}")
        for act in activations:
            if act not in BLOCK_ACTIVATIONS:
                raise ValueError(f"For 'FusedInvertedResidual', 'activations' must be in "
                                 f"{BLOCK_ACTIVATIONS}, but got {act!r}")
        if not expand and (has_biases[0] or activations[0] != "none"):
            raise ValueError(f"For 'FusedInvertedResidual', a block without expansion takes no "
                             f"expansion bias or activation, but got has_biases {has_biases} "
                             f"and activations {activations}")
        self.stages = (
            FusedConvAct(expanded, 1, "valid", 0, 1, 1, 1, bool(has_biases[0]), False,
                         activations[0]) if expand else None,
            FusedConvAct(expanded, kernel_size, pad_mode, pad, stride, dilation, expanded,
                         bool(has_biases[1]), False, activations[1]),
            FusedConvAct(out_channel, 1, "valid", 0, 1, 1, 1, bool(has_biases[2]),
                         has_residual, activations[2]))
        names = ("x",) + (("w1",) if expand else ()) + (("b1",) if has_biases[0] else ()) + (
            "w2",) + (
            ("b2",) if has_biases[1] else ()) + ("w3",) + (("b3",) if has_biases[2] else ()) + (
            ("residual",) if has_residual else ())
        self.input_names = names

    def split(self, args):
        """The inputs of each stage: ([w1(, b1)], [w2(, b2)], [w3(, b3)(, residual)]); [] for
        an absent expansion."""
        args, out = list(args), []
        for st in self.stages:
            k = len(st.input_names) - 1 if st is not None else 0
            out.append(args[:k])
            args = args[k:]
        return out

    def infer(self, x, *rest):
        if len(rest) != len(self.input_names) - 1:
            raise TypeError(f"For 'FusedInvertedResidual', expected {len(self.input_names)} "
                            f"inputs {self.input_names}, but got {1 + len(rest)}")
        v = x
        for st, args in zip(self.stages, self.split(rest)):
            v = st.infer(v, *args) if st is not None else v
        return tensor(v.dtype, v.shape)

    def kernel_params(self, x, *rest):
        e1, e2, e3 = self.split(rest)
        mid = self.stages[0].infer(x, *e1) if self.stages[0] is not None else x
        p = self.stages[1].conv.kernel_params(mid, e2[0])
        codes = {"none": 0, "relu": 1, "relu6": 2}
        return {"stride": p["stride"], "dilation": p["dilation"], "pads": p["pads"],
                "acts": tuple(codes[a] for a in self.attrs["activations"]),
                "has_biases": tuple(bool(b) for b in self.attrs["has_biases"]),
                "has_residual": self.attrs["has_residual"], "expand": self.stages[0] is not None}


def _stage_grads(stage, x, args, out, dout, want):
    """(dx, d args...) of one FusedConvAct stage (activation none / ReLU / ReLU6) at output
    `out` for gradient `dout`; want[i]: whether input i (x first) needs one."""
    a = stage.attrs
    if a["activation"] == "relu":
        dz = cached_prim(ReluGrad)(dout, out)
    elif a["activation"] == "relu6":               # passes at 6: it needs the input
        dz = cached_prim(ReLU6Grad)(dout, _unactivated(stage)(x, *args))
    else:
        dz = dout
    w = args[0]
    _, bp_input, bp_filter = _family(stage.conv)
    grads = [bp_input(dz, w, x.shape) if want[0] else None,
             bp_filter(dz, x, w.shape) if want[1] else None]
    if a["has_bias"]:
        grads.append(cached_prim(BiasAddGrad)(dz) if want[2] else None)
    if a["has_residual"]:
        grads.append(dz if want[-1] else None)
    return grads


@bprop_for(FusedInvertedResidual)
def fused_inverted_residual_bprop(prim, x, *rest):
    *inputs, out, dout = rest
    (e1, e2, e3), (s1, s2, s3) = prim.split(inputs), prim.stages
    t = s1(x, *e1) if s1 is not None else x
    d = s2(t, *e2)
    g3 = _stage_grads(s3, d, e3, out, dout, [True] + [needs_grad(v) for v in e3])
    g2 = _stage_grads(s2, t, e2, d, g3[0], [s1 is not None or needs_grad(x)] +
                      [needs_grad(v) for v in e2])
    if s1 is None:
        return tuple(g2 + g3[1:])
    g1 = _stage_grads(s1, x, e1, t, g2[0], [needs_grad(x)] + [needs_grad(v) for v in e1])
    return tuple(g1 + g2[1:] + g3[1:])
