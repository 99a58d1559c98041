"""Conv3DTranspose (MindSpore's P.Conv3DTranspose): the transposed 3-D convolution, with its
inference, bprop and batch rule. Kernel: kernels/cpu/conv3d_transpose_numpy.py.

x (N, C_in, D, H, W), weight (C_in, C_out / group, kd, kh, kw) -> (N, C_out, D', H', W'):
every input element x[n, i, p] adds x * weight[i, o, k] at p * stride + k * dilation of a
buffer of (D - 1) s + e per axis (e = dilation (k - 1) + 1, the effective kernel); the output
is the buffer from `head` on (zeros past its end), with MindSpore 2.10's sizes (checked
against MindSpore for every pad mode):
  'pad'    D' = (D - 1) s - head - tail + e + output_padding, (head, tail) from pad_list
  'same'   D' = D s, head = max(0, e - s) // 2
  'valid'  D' = (D - 1) s + max(e, s), head = 0
Attributes as MindSpore stores them: kernel_size (3), strides / dilations / output_padding
(five, (1, 1, d, h, w)), pad_list (six: head and tail of D, H, W), groups, pad_mode lower
case; MindSpore's argument checks (dilation depth 1, output_padding < max(stride, dilation),
the 343 / 256 kernel and stride products). The output's channel count is weight.shape[1] *
group (the out_channel attribute is not checked against it, as MindSpore).

Gradient: dx is the 3-D convolution of dout (padded by head, cut to (D - 1) s + e) with the
same weight, stride and dilation; dweight the convolution of that padded dout with x, batch
and channels swapped (stride = dilation, dilation = stride), per group. Both are written
with ops.conv3d, so they are differentiable again.
"""
import numbers

from ...common import dtype as mstype
from ...common.limits import MAX_INT_ATTR
from ...ir.primitive import Primitive, prim_attr_register
from ...ir.rules import bprop_for
from ..validator import check_dtype, check_output_size, check_same_dtype, tensor
from ._base import cached_prim, needs_grad

__all__ = ["Conv3DTranspose"]


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _three(prim, arg, value, minimum):
    """An int or 3 ints (MindSpore also takes 5 with a leading (1, 1)) -> (d, h, w)."""
    v = (value,) * 3 if _is_int(value) else tuple(value) if isinstance(value, (tuple, list)) \
        else None
    if v is not None and len(v) == 5 and v[:2] == (1, 1):
        v = v[2:]
    if v is None or len(v) != 3 or not all(_is_int(e) and minimum <= e <= MAX_INT_ATTR
                                           for e in v):
        raise ValueError(f"For '{prim.name}', '{arg}' must be an int >= {minimum} or a tuple of "
                         f"three, but got {value!r}")
    return tuple(int(e) for e in v)


class Conv3DTranspose(Primitive):
    """See the module docstring."""
    input_names = ("x", "filter")
    same_type_inputs = (0, 1)

    @prim_attr_register
    def __init__(self, in_channel, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0,
                 stride=1, dilation=1, group=1, output_padding=0, data_format="NCDHW"):
        for arg, v in (("in_channel", in_channel), ("out_channel", out_channel)):
            if not _is_int(v) or v <= 0:
                raise ValueError(f"For '{self.name}', '{arg}' must be a positive int, but got "
                                 f"{v!r}")
        k = _three(self, "kernel_size", kernel_size, 1)
        s = _three(self, "stride", stride, 1)
        d = _three(self, "dilation", dilation, 1)
        if d[0] != 1:
            raise ValueError(f"For '{self.name}', the depth of parameter 'dilation' must be 1, "
                             f"but got {d[0]}.")
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
            raise ValueError(f"For '{self.name}', 'pad_mode' must be one of ['valid', 'same', "
                             f"'pad'], but got {pad_mode!r}")
        pad_mode = pad_mode.lower()
        pads = (pad,) * 6 if _is_int(pad) else tuple(pad) if isinstance(pad, tuple) else None
        if pads is None or len(pads) != 6 or not all(_is_int(p) and p >= 0 for p in pads):
            raise ValueError(f"For '{self.name}', attr 'pad' must be an int >= 0 or a tuple of "
                             f"six, but got {pad!r}")
        if pad_mode != "pad" and any(pads):
            raise ValueError(f"For '{self.name}', the 'pad' must be zero or (0, 0, 0, 0, 0, 0) "
                             f"when 'pad_mode' is not \"pad\", but got {pad!r}")
        op = _three(self, "output_padding", output_padding, 0)
        if pad_mode != "pad" and any(op):
            raise ValueError(f"For '{self.name}', the 'output_padding' must be zero when "
                             f"'pad_mode' is not \"pad\", but got {output_padding!r}")
        for i, axis in enumerate("dhw"):
            if op[i] >= max(s[i], d[i]):
                raise ValueError(f"For '{self.name}', output_padding_{axis} must be in [0, "
                                 f"max(stride_{axis}, dilation_{axis})), but got {op[i]}")
        if mode != 1:
            raise ValueError(f"For '{self.name}', 'mode' must be 1, but got {mode!r}")
        if not _is_int(group) or not 1 <= group <= out_channel or out_channel % group:
            raise ValueError(f"For '{self.name}', 'group' must be in [1, out_channel] and "
                             f"divide out_channel {out_channel}, but got {group!r}")
        if data_format != "NCDHW":
            raise ValueError(f"For '{self.name}', 'data_format' must be 'NCDHW', but got "
                             f"{data_format!r}")
        if k[0] * k[1] * k[2] > 343 or s[0] * s[1] * s[2] > 343 or s[1] * s[2] > 256:
            raise ValueError(f"For '{self.name}', the products of kernel_size and of stride "
                             f"must be at most 343 (stride h * w at most 256), but got "
                             f"{k} and {s}")
        self.attrs.update(kernel_size=k, strides=(1, 1) + s, dilations=(1, 1) + d,
                          pad_list=pads, pad_mode=pad_mode, output_padding=(1, 1) + op,
                          groups=group, mode=1, data_format="NCDHW")

    def geometry(self, spatial):
        """(effective kernel, heads, output sizes) per axis for input sizes `spatial`."""
        a = self.attrs
        k, s, d = a["kernel_size"], a["strides"][2:], a["dilations"][2:]
        eff = tuple(d[i] * (k[i] - 1) + 1 for i in range(3))
        if a["pad_mode"] == "pad":
            p, op = a["pad_list"], a["output_padding"][2:]
            heads = p[0::2]
            outs = tuple((spatial[i] - 1) * s[i] - p[2 * i] - p[2 * i + 1] + eff[i] + op[i]
                         for i in range(3))
        elif a["pad_mode"] == "same":
            heads = tuple(max(0, eff[i] - s[i]) // 2 for i in range(3))
            outs = tuple(spatial[i] * s[i] for i in range(3))
        else:
            heads = (0, 0, 0)
            outs = tuple((spatial[i] - 1) * s[i] + max(eff[i], s[i]) for i in range(3))
        return eff, heads, outs

    def infer(self, x, w):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("x", x), ("filter", w)])
        if len(x.shape) != 5 or len(w.shape) != 5:
            raise ValueError(f"For '{self.name}', 'x' and 'filter' must be 5-D, but got shapes "
                             f"{list(x.shape)} and {list(w.shape)}")
        g = self.attrs["groups"]
        if x.shape[1] != w.shape[0] or w.shape[0] % g:
            raise ValueError(f"For '{self.name}', 'x' channels {x.shape[1]} must equal "
                             f"filter.shape[0] {w.shape[0]}, a multiple of group {g}")
        if tuple(w.shape[2:]) != self.attrs["kernel_size"]:
            raise ValueError(f"For '{self.name}', 'filter' spatial shape {list(w.shape[2:])} "
                             f"must equal kernel_size {list(self.attrs['kernel_size'])}")
        _, _, outs = self.geometry(x.shape[2:])
        if min(outs) <= 0:
            raise ValueError(f"For '{self.name}', the output shape {list(outs)} must be "
                             f"positive (input {list(x.shape)})")
        shape = (x.shape[0], w.shape[1] * g) + outs
        check_output_size(self, "the output shape", shape)
        return tensor(x.dtype, shape)

    def kernel_params(self, x, w):
        a = self.attrs
        _, heads, outs = self.geometry(x.shape[2:])
        return {"strides": a["strides"][2:], "dilations": a["dilations"][2:], "heads": heads,
                "outs": outs, "groups": a["groups"]}

    def vmap_rule(self, args):
        """Batched x and/or filter: the batch goes into the channels, B * group groups."""
        from .. import functional as F
        (x, bx), (w, bw) = args
        size = x.shape[bx] if bx is not None else w.shape[bw]
        x = F.moveaxis(x, bx, 0) if bx is not None else F.broadcast_to(x, (size,) + x.shape)
        w = F.moveaxis(w, bw, 0) if bw is not None else F.broadcast_to(w, (size,) + w.shape)
        n, ci = x.shape[1], x.shape[2]
        x = F.reshape(F.transpose(x, (1, 0, 2, 3, 4, 5)), (n, size * ci) + x.shape[3:])
        w = F.reshape(w, (size * ci,) + w.shape[2:])
        a, g = self.attrs, self.attrs["groups"]
        co = w.shape[1] * g
        prim = cached_prim(Conv3DTranspose, size * ci, size * co, a["kernel_size"], 1,
                           a["pad_mode"], a["pad_list"], a["strides"], a["dilations"], size * g,
                           a["output_padding"])
        y = prim(x, w)
        y = F.reshape(y, (n, size, co) + y.shape[2:])
        return F.transpose(y, (1, 0, 2, 3, 4, 5)), 0          # the batch axis first


def _cut_dout(prim, dout, spatial):
    """dout with `head` zeros before it and cut (or zero-padded) to (D - 1) s + e per axis:
    the positions the forward's buffer covers."""
    from .. import functional as F
    eff, heads, outs = prim.geometry(spatial)
    s = prim.attrs["strides"][2:]
    widths = []
    for i in (2, 1, 0):                                    # ops.pad: last axis first
        length = (spatial[i] - 1) * s[i] + eff[i]
        widths += [heads[i], length - heads[i] - outs[i]]
    if any(v < 0 for v in widths):
        keep = tuple(slice(0, outs[i] + min(0, widths[2 * (2 - i) + 1])) for i in range(3))
        dout = dout[(slice(None), slice(None)) + keep]
        widths = [max(v, 0) for v in widths]
    return F.pad(dout, tuple(widths)) if any(widths) else dout


@bprop_for(Conv3DTranspose)
def conv3d_transpose_bprop(prim, x, w, out, dout):
    from .. import functional as F
    a = prim.attrs
    s, d, g = a["strides"][2:], a["dilations"][2:], a["groups"]
    dp = _cut_dout(prim, dout, x.shape[2:])
    dx = F.conv3d(dp, w, None, s, "valid", 0, d, g) if needs_grad(x) else None
    dw = None
    if needs_grad(w):
        ci, cog = w.shape[0] // g, w.shape[1]
        parts = []
        for j in range(g):                                  # per group: batch <-> channels
            dj = F.transpose(dp[:, j * cog:(j + 1) * cog], (1, 0, 2, 3, 4))
            xj = F.transpose(x[:, j * ci:(j + 1) * ci], (1, 0, 2, 3, 4))
            parts.append(F.transpose(F.conv3d(dj, xj, None, d, "valid", 0, s), (1, 0, 2, 3, 4)))
        dw = parts[0] if g == 1 else F.concat(tuple(parts), 0)
    return dx, dw
