"""FusedConvAct: a convolution with its epilogue, made by graph mode's conv_act_fusion pass
(mindlite/jit/passes/fuse_conv_act.py) out of the nodes eager runs one by one, and usable
directly like any primitive.

FusedConvAct(out_channel, kernel_size, pad_mode, pad, stride, dilation, group, has_bias,
             has_residual, activation)
    act(Conv2D(x, w) + bias + residual): the Conv2D of those attributes (NCHW), then BiasAdd
    (bias 1-D, one value per output channel) when has_bias, then Add of `residual` (the
    output's shape and dtype) when has_residual, then the activation ('none', 'relu',
    'relu6', or 'clip': Maximum(., lo) then Minimum(., hi) of two more inputs lo, hi, as
    ONNX's Clip imports), in that order, as the unfused nodes compute them. Inputs (x, w[, bias]
    [, residual][, lo, hi]). The kernels (kernels/cpu/conv_fused_act_cpp.py) run the convolution
    engine or the depthwise kernel with the bias, the residual and the activation applied in
    its output loop, bit for bit what Conv2D, BiasAdd, Add and ReLU / ReLU6 give one by one.

Gradient: the activation's gradient (ReluGrad from the output; ReLU6, which passes the
gradient at exactly 6, and clip, whose ties at lo and hi the output cannot tell, recompute
the unactivated value and apply ReLU6Grad / Maximum's and Minimum's bprop rules to it), then
Conv2D's two gradients, BiasAddGrad for the bias and the same value for the residual.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_same_dtype, check_tensor, tensor
from ._base import cached_prim, needs_grad
from ._grad_ops import BiasAddGrad, ReLU6Grad, ReluGrad
from .conv_ops import Conv2D, _family
from .math_ops import Maximum, min_max_grads

__all__ = ["FusedConvAct", "CONV_ACTIVATIONS"]

# the kernels' act codes; "clip" is Minimum(Maximum(v, lo), hi) of two more inputs (ONNX's
# Clip as imported), act 5 (its kernel form for lo = 0, hi = 6) when they hold those values
CONV_ACTIVATIONS = {"none": 0, "relu": 1, "relu6": 2, "clip": 5}
FLOAT_DTYPES = (mstype.float32, mstype.float64)


class FusedConvAct(Primitive):
    """act(Conv2D(x, w) + bias + residual) (see the module docstring)."""

    @prim_attr_register
    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, stride=1, dilation=1,
                 group=1, has_bias=True, has_residual=False, activation="none"):
        check_bool(self, "has_bias", has_bias)
        check_bool(self, "has_residual", has_residual)
        if activation not in CONV_ACTIVATIONS:
            raise ValueError(f"For 'FusedConvAct', 'activation' must be one of "
                             f"{sorted(CONV_ACTIVATIONS)}, but got {activation!r}")
        self.conv = Conv2D(out_channel, kernel_size, 1, pad_mode, pad, stride, dilation, group)
        self.input_names = ("x", "weight") + (("bias",) if has_bias else ()) + (
            ("residual",) if has_residual else ()) + (("lo", "hi") if activation == "clip" else ())

    def infer(self, x, w, *rest):
        a = self.attrs
        if len(rest) != len(self.input_names) - 2:
            raise TypeError(f"For 'FusedConvAct', expected {len(self.input_names)} inputs "
                            f"{self.input_names}, but got {2 + len(rest)}")
        out = self.conv.infer(x, w)
        if a["activation"] == "clip":
            for arg, bound in zip(("lo", "hi"), rest[-2:]):
                if not isinstance(bound, (int, float)):
                    check_tensor(self, arg, bound)
                    check_same_dtype(self, [("x", x), (arg, bound)])
                    if tuple(bound.shape) not in ((), (1,)):
                        raise ValueError(f"For 'FusedConvAct', '{arg}' must be a scalar, but "
                                         f"got shape {list(bound.shape)}")
            rest = rest[:-2]
        if a["has_bias"]:
            bias = rest[0]
            check_tensor(self, "bias", bias)
            check_same_dtype(self, [("x", x), ("bias", bias)])
            if tuple(bias.shape) != (out.shape[1],):
                raise ValueError(f"For 'FusedConvAct', 'bias' must have shape [{out.shape[1]}] "
                                 f"(one value per output channel), but got {list(bias.shape)}")
        if a["has_residual"]:
            res = rest[-1]
            check_tensor(self, "residual", res)
            check_same_dtype(self, [("x", x), ("residual", res)])
            if tuple(res.shape) != tuple(out.shape):
                raise ValueError(f"For 'FusedConvAct', 'residual' must have the output's shape "
                                 f"{list(out.shape)}, but got {list(res.shape)}")
        return tensor(out.dtype, out.shape)

    def kernel_params(self, x, w, *rest):
        a = self.attrs
        return {**self.conv.kernel_params(x, w), "act": CONV_ACTIVATIONS[a["activation"]],
                "has_bias": a["has_bias"], "has_residual": a["has_residual"]}


def _unactivated(prim):
    """`prim` without its activation (the value the activation reads)."""
    a = prim.attrs
    return cached_prim(FusedConvAct, a["out_channel"], a["kernel_size"], a["pad_mode"], a["pad"],
                       a["stride"], a["dilation"], a["group"], a["has_bias"], a["has_residual"],
                       "none")


@bprop_for(FusedConvAct)
def fused_conv_act_bprop(prim, x, w, *rest):
    *inputs, out, dout = rest
    act = prim.attrs["activation"]
    if act == "relu":
        dz = cached_prim(ReluGrad)(dout, out)
    elif act == "relu6":                       # ReLU6Grad passes at 6: it needs the input
        dz = cached_prim(ReLU6Grad)(dout, _unactivated(prim)(x, w, *inputs))
    elif act == "clip":
        *inputs, lo, hi = inputs
        z = _unactivated(prim)(x, w, *inputs)
        m = cached_prim(Maximum)(z, lo)
        # Minimum's then Maximum's bprop (math_ops.py): ties split half and half
        dm, dhi = min_max_grads(False, m, hi, dout, True, needs_grad(hi))
        dz, dlo = min_max_grads(True, z, lo, dm, True, needs_grad(lo))
    else:
        dz = dout
    _, bp_input, bp_filter = _family(prim.conv)
    grads = [bp_input(dz, w, x.shape) if needs_grad(x) else None,
             bp_filter(dz, x, w.shape) if needs_grad(w) else None]
    if prim.attrs["has_bias"]:
        grads.append(cached_prim(BiasAddGrad)(dz) if needs_grad(inputs[0]) else None)
    if prim.attrs["has_residual"]:
        grads.append(dz if needs_grad(inputs[-1]) else None)
    if act == "clip":
        grads += [dlo, dhi]
    return tuple(grads)
