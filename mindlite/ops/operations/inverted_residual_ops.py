"""FusedInvertedResidual: MobileNetV2's inverted-residual block (expand 1x1 -> depthwise ->
project 1x1) as one node, made by the Lite runtime's inverted_residual_fusion pass
(mindlite/jit/passes/fuse_inverted_residual.py) out of three FusedConvAct nodes
(conv_fused_ops.py), and usable directly like any primitive.

FusedInvertedResidual(expanded, out_channel, kernel_size, pad_mode, pad, stride, dilation,
                      has_biases, has_residual, activations)
    FusedConvAct(out_channel, 1, has_bias=has_biases[2], has_residual, activations[2]) of
    FusedConvAct(expanded, kernel_size, pad_mode, pad, stride, dilation, group=expanded,
                 has_biases[1], activation=activations[1]) of
    FusedConvAct(expanded, 1, has_bias=has_biases[0], activation=activations[0]) of x:
    the three convolutions in that order, each with its optional bias and activation ('none',
    'relu', 'relu6'), the residual (the output's shape) added by the last. Inputs (x, w1[, b1],
    w2[, b2], w3[, b3][, residual]). The kernel (kernels/cpu/inverted_residual_cpp.py) runs
    the block over bands of output rows with the 6C-channel intermediates in per-thread
    buffers, bit for bit what the three FusedConvAct kernels give one by one.

No gradient: an inference node (the Lite runtime's); differentiating it is an error naming it.
"""
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_bool, tensor
from .conv_fused_ops import FusedConvAct

__all__ = ["FusedInvertedResidual", "BLOCK_ACTIVATIONS"]

BLOCK_ACTIVATIONS = ("none", "relu", "relu6")


class FusedInvertedResidual(Primitive):
    """expand 1x1 -> depthwise -> project 1x1 (see the module docstring)."""

    @prim_attr_register
    def __init__(self, expanded, out_channel, kernel_size, pad_mode="same", pad=0, stride=1,
                 dilation=1, has_biases=(True, True, True), has_residual=False,
                 activations=("relu6", "relu6", "none")):
        check_bool(self, "has_residual", has_residual)
        has_biases, activations = tuple(has_biases), tuple(activations)
        if len(has_biases) != 3 or len(activations) != 3:
            raise ValueError(f"For 'FusedInvertedResidual', 'has_biases' and 'activations' must "
                             f"hold three values (expand, depthwise, project), but got "
                             f"{has_biases} and {activations}")
        for act in activations:
            if act not in BLOCK_ACTIVATIONS:
                raise ValueError(f"For 'FusedInvertedResidual', 'activations' must be in "
                                 f"{BLOCK_ACTIVATIONS}, but got {act!r}")
        self.stages = (
            FusedConvAct(expanded, 1, "valid", 0, 1, 1, 1, bool(has_biases[0]), False,
                         activations[0]),
            FusedConvAct(expanded, kernel_size, pad_mode, pad, stride, dilation, expanded,
                         bool(has_biases[1]), False, activations[1]),
            FusedConvAct(out_channel, 1, "valid", 0, 1, 1, 1, bool(has_biases[2]),
                         has_residual, activations[2]))
        names = ("x", "w1") + (("b1",) if has_biases[0] else ()) + ("w2",) + (
            ("b2",) if has_biases[1] else ()) + ("w3",) + (("b3",) if has_biases[2] else ()) + (
            ("residual",) if has_residual else ())
        self.input_names = names

    def split(self, args):
        """The inputs of each stage: ([w1(, b1)], [w2(, b2)], [w3(, b3)(, residual)])."""
        args, out = list(args), []
        for st in self.stages:
            k = len(st.input_names) - 1
            out.append(args[:k])
            args = args[k:]
        return out

    def infer(self, x, *rest):
        if len(rest) != len(self.input_names) - 1:
            raise TypeError(f"For 'FusedInvertedResidual', expected {len(self.input_names)} "
                            f"inputs {self.input_names}, but got {1 + len(rest)}")
        v = x
        for st, args in zip(self.stages, self.split(rest)):
            v = st.infer(v, *args)
        return tensor(v.dtype, v.shape)

    def kernel_params(self, x, *rest):
        e1, e2, e3 = self.split(rest)
        mid = self.stages[0].infer(x, *e1)
        p = self.stages[1].conv.kernel_params(mid, e2[0])
        codes = {"none": 0, "relu": 1, "relu6": 2}
        return {"stride": p["stride"], "dilation": p["dilation"], "pads": p["pads"],
                "acts": tuple(codes[a] for a in self.attrs["activations"]),
                "has_biases": tuple(bool(b) for b in self.attrs["has_biases"]),
                "has_residual": self.attrs["has_residual"]}
