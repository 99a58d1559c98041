"""MindSpore 2.10's remaining nn functions, composed of existing primitives so that they
differentiate and run in graph mode: bidense (bilinear layer), add_layer_norm / add_rms_norm
(the residual add fused before the norm), col2im (fold of (N, C, kh kw, L) columns),
adaptive_max_pool3d (one max per adaptive region), conv3d_transpose (the stride-dilated input
convolved with the flipped kernel), crop_and_resize (bilinear / nearest sampling of boxes), and
ctc_greedy_decoder (best-path CTC decoding, not differentiable: integer outputs).
"""
import math

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor

__all__ = ["bidense", "add_layer_norm", "add_rms_norm", "col2im", "adaptive_max_pool3d",
           "conv3d_transpose", "crop_and_resize", "ctc_greedy_decoder"]


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def bidense(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] (+ bias[o])."""
    F = _F()
    for name, t in (("input1", input1), ("input2", input2), ("weight", weight)):
        _tensor("bidense", name, t)
    lead = tuple(input1.shape[:-1])
    a = F.reshape(input1, (-1, input1.shape[-1]))
    b = F.reshape(input2, (-1, input2.shape[-1]))
    out, i1, i2 = weight.shape
    t = F.matmul(a, F.reshape(F.transpose(weight, (1, 0, 2)), (i1, out * i2)))
    y = F.sum(F.mul(F.reshape(t, (-1, out, i2)), F.expand_dims(b, 1)), -1)
    if bias is not None:
        y = F.add(y, bias)
    return F.reshape(y, lead + (out,))


def _norm_axes(x, gamma):
    return tuple(range(len(x.shape) - len(gamma.shape), len(x.shape)))


def add_layer_norm(x1, x2, gamma, beta, epsilon=1e-5, additional_output=False):
    """(layer_norm(x1 + x2) * gamma + beta, mean, rstd, x1 + x2) over gamma's trailing
    dims (mean and rstd keep them as 1)."""
    F = _F()
    x = F.add(x1, x2)
    axes = _norm_axes(x, gamma)
    mean = F.mean(x, axes, True)
    centered = F.sub(x, mean)
    rstd = F.rsqrt(F.add(F.mean(F.mul(centered, centered), axes, True), epsilon))
    y = F.add(F.mul(F.mul(centered, rstd), gamma), beta)
    return y, mean, rstd, x


def add_rms_norm(x1, x2, gamma, epsilon=1e-6):
    """(rms_norm(x1 + x2) * gamma, rstd, x1 + x2) over gamma's trailing dims."""
    F = _F()
    x = F.add(x1, x2)
    rstd = F.rsqrt(F.add(F.mean(F.mul(x, x), _norm_axes(x, gamma), True), epsilon))
    return F.mul(F.mul(x, rstd), gamma), rstd, x


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """(N, C, kh kw, L) columns summed back into (N, C, H, W) images (ops.fold)."""
    F = _F()
    _tensor("col2im", "input_x", input_x)
    if len(input_x.shape) != 4:
        raise ValueError(f"For 'col2im', 'input_x' must be 4-D (N, C, kh kw, L), but got "
                         f"shape {list(input_x.shape)}")
    n, c, kk, length = input_x.shape
    return F.fold(F.reshape(input_x, (n, c * kk, length)), output_size, kernel_size, dilation,
                  padding_value, stride)


def _regions(size, out):
    return [(math.floor(i * size / out), math.ceil((i + 1) * size / out)) for i in range(out)]


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The max of each adaptive (D, H, W) region of (N, C, D, H, W) or (C, D, H, W) input;
    with return_indices, its flat int32 position in the input's (D, H, W)."""
    F = _F()
    _tensor("adaptive_max_pool3d", "input", input)
    x = input if len(input.shape) == 5 else F.expand_dims(input, 0)
    if len(x.shape) != 5:
        raise ValueError(f"For 'adaptive_max_pool3d', 'input' must be 4-D or 5-D, but got "
                         f"shape {list(input.shape)}")
    sizes = x.shape[2:]
    outs = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    outs = tuple(s if o is None else int(o) for o, s in zip(outs, sizes))
    n, c = x.shape[:2]
    values, indices = [], []
    for d0, d1 in _regions(sizes[0], outs[0]):
        for h0, h1 in _regions(sizes[1], outs[1]):
            for w0, w1 in _regions(sizes[2], outs[2]):
                block = F.narrow(F.narrow(F.narrow(x, 2, d0, d1 - d0), 3, h0, h1 - h0), 4, w0,
                                 w1 - w0)
                flat = F.reshape(block, (n, c, -1))
                values.append(F.amax(flat, -1))
                if return_indices:
                    local = F.argmax(flat, -1).asnumpy()
                    dd, hh, ww = np.unravel_index(local, (d1 - d0, h1 - h0, w1 - w0))
                    indices.append(((dd + d0) * sizes[1] + hh + h0) * sizes[2] + ww + w0)
    shape = (n, c) + outs
    out = F.reshape(F.stack(values, -1), shape)
    if len(input.shape) == 4:
        out = F.squeeze(out, 0)
    if not return_indices:
        return out
    idx = np.stack(indices, -1).reshape(shape).astype(np.int32)
    return out, Tensor(idx if len(input.shape) == 5 else idx[0])


def _triple(op, name, v):
    v = (v,) * 3 if isinstance(v, (int, np.integer)) else tuple(v)
    if len(v) != 3:
        raise ValueError(f"For '{op}', '{name}' must be an int or 3 ints, but got {v!r}")
    return tuple(int(e) for e in v)


def conv3d_transpose(inputs, weight, pad_mode='valid', padding=0, stride=1, dilation=1,
                     group=1, output_padding=0):
    """The transposed 3-D convolution (the gradient of conv3d with respect to its input):
    weight (C_in, C_out / group, kd, kh, kw)."""
    F = _F()
    _tensor("conv3d_transpose", "inputs", inputs)
    _tensor("conv3d_transpose", "weight", weight)
    s = _triple("conv3d_transpose", "stride", stride)
    d = _triple("conv3d_transpose", "dilation", dilation)
    op_ = _triple("conv3d_transpose", "output_padding", output_padding)
    k = tuple(weight.shape[2:])
    if pad_mode == "pad":
        pads = padding if isinstance(padding, (tuple, list)) and len(padding) == 6 else \
            [p for p in _triple("conv3d_transpose", "padding", padding) for _ in (0, 1)]
    elif pad_mode == "valid":
        pads = [0] * 6
    elif pad_mode == "same":
        pads = []
        for i in range(3):
            total = max(d[i] * (k[i] - 1) + 1 - s[i], 0)
            pads += [total // 2, total - total // 2]
    else:
        raise ValueError(f"For 'conv3d_transpose', 'pad_mode' must be 'valid', 'same' or "
                         f"'pad', but got {pad_mode!r}")
    x = inputs
    n, cin, dd, hh, ww = x.shape
    if any(v > 1 for v in s):                      # zeros between the input's elements
        full = (n, cin, (dd - 1) * s[0] + 1, (hh - 1) * s[1] + 1, (ww - 1) * s[2] + 1)
        z = np.zeros(full[2:], bool)
        z[::s[0], ::s[1], ::s[2]] = True
        idx = np.flatnonzero(z).astype(np.int64)
        flat = F.zeros((n, cin, int(np.prod(full[2:]))), x.dtype)
        flat = F.scatter_add_ext(flat, 2, Tensor(np.broadcast_to(idx, (n, cin, idx.size))
                                                 .copy()), F.reshape(x, (n, cin, -1)))
        x = F.reshape(flat, full)
    edge = []
    for i in range(3):
        lo = d[i] * (k[i] - 1) - pads[2 * i]
        hi = d[i] * (k[i] - 1) - pads[2 * i + 1] + op_[i]
        edge.append((lo, hi))
    if any(lo < 0 or hi < 0 for lo, hi in edge):
        raise ValueError("For 'conv3d_transpose', 'padding' larger than the kernel's extent is "
                         "not supported")
    flat_pad = []
    for lo, hi in reversed(edge):
        flat_pad += [lo, hi]
    x = F.pad(x, tuple(flat_pad))
    cout_g = weight.shape[1]
    w = F.flip(weight, (2, 3, 4))                   # (C_in, C_out/g, k...) -> (C_out, C_in/g, k)
    w = F.reshape(w, (group, cin // group, cout_g) + k)
    w = F.reshape(F.transpose(w, (0, 2, 1, 3, 4, 5)), (group * cout_g, cin // group) + k)
    return F.conv3d(x, w, None, 1, "valid", 0, d, group)


def crop_and_resize(image, boxes, box_indices, crop_size, method='bilinear',
                    extrapolation_value=0.0):
    """(num_boxes, crop_h, crop_w, C) crops of the NHWC image: box i = (y1, x1, y2, x2) of
    image box_indices[i], in coordinates normalized to [0, 1], sampled on a crop_h x crop_w grid
    (bilinear or nearest); samples outside the image take extrapolation_value."""
    F = _F()
    _tensor("crop_and_resize", "image", image)
    if method not in ("bilinear", "nearest", "bilinear_v2"):
        raise ValueError(f"For 'crop_and_resize', 'method' must be 'bilinear', 'nearest' or "
                         f"'bilinear_v2', but got {method!r}")
    b = _tensor("crop_and_resize", "boxes", boxes).asnumpy().astype(np.float32)
    ids = _tensor("crop_and_resize", "box_indices", box_indices).asnumpy().astype(np.int64)
    ch, cw = (int(v) for v in crop_size)
    _, h, w, c = image.shape
    img = image if image.dtype.kind == "f" else F.cast(image, mstype.float32)
    flat = F.reshape(img, (-1, c))                              # rows of every (b, y, x)

    def grid(lo, hi, n, size):           # in float32, as MindSpore's (TensorFlow's) kernel
        if n > 1:
            scale = (hi - lo) * np.float32(size - 1) / np.float32(n - 1)
            return lo[:, None] * np.float32(size - 1) + \
                np.arange(n, dtype=np.float32)[None, :] * scale[:, None]
        return (np.float32(0.5) * (lo + hi) * np.float32(size - 1))[:, None]
    ys = grid(b[:, 0], b[:, 2], ch, h)[:, :, None] * np.ones((1, 1, cw))
    xs = grid(b[:, 1], b[:, 3], cw, w)[:, None, :] * np.ones((1, ch, 1))
    inside = (ys >= 0) & (ys <= h - 1) & (xs >= 0) & (xs <= w - 1)
    base = ids[:, None, None] * h * w

    def rows(yi, xi):
        yi, xi = np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)
        idx = (base + yi * w + xi).reshape(-1).astype(np.int64)
        return F.reshape(F.gather(flat, Tensor(idx), 0), ys.shape + (c,))
    if method == "nearest":
        out = rows(np.floor(ys + np.float32(0.5)).astype(np.int64),   # half away from 0
                   np.floor(xs + np.float32(0.5)).astype(np.int64))
    else:
        y0, x0 = np.floor(ys).astype(np.int64), np.floor(xs).astype(np.int64)
        dy = Tensor((ys - y0)[..., None].astype(img.dtype.np))
        dx = Tensor((xs - x0)[..., None].astype(img.dtype.np))
        top = F.add(rows(y0, x0), F.mul(F.sub(rows(y0, x0 + 1), rows(y0, x0)), dx))
        bottom = F.add(rows(y0 + 1, x0), F.mul(F.sub(rows(y0 + 1, x0 + 1), rows(y0 + 1, x0)),
                                               dx))
        out = F.add(top, F.mul(F.sub(bottom, top), dy))
    mask = Tensor(np.broadcast_to(inside[..., None], out.shape).copy())
    out = F.select(mask, out, F.full_like(out, float(extrapolation_value)))
    return out if out.dtype is mstype.float32 else F.cast(out, mstype.float32)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """Best-path decoding of (T, B, classes) logits (blank = the last class): (indices
    (total, 2) [batch, position], values (total,), dense shape (2,) [B, longest], log
    probability (B, 1) = -sum over time of the best logit)."""
    x = _tensor("ctc_greedy_decoder", "inputs", inputs).asnumpy()
    lens = _tensor("ctc_greedy_decoder", "sequence_length", sequence_length).asnumpy()
    if x.ndim != 3 or lens.shape != (x.shape[1],):
        raise ValueError(f"For 'ctc_greedy_decoder', 'inputs' must be (T, B, classes) and "
                         f"'sequence_length' (B,), but got {list(x.shape)} and "
                         f"{list(lens.shape)}")
    if (lens > x.shape[0]).any() or (lens < 0).any():
        raise ValueError("For 'ctc_greedy_decoder', 'sequence_length' must be in [0, T]")
    blank = x.shape[2] - 1
    indices, values, logp = [], [], []
    longest = 0
    for bi in range(x.shape[1]):
        steps = x[:int(lens[bi]), bi]
        best = steps.argmax(-1)
        logp.append(-steps.max(-1).sum() if len(steps) else 0.0)
        decoded, prev = [], None
        for k in best:
            if k != blank and not (merge_repeated and k == prev):
                decoded.append(int(k))
            prev = k
        longest = max(longest, len(decoded))
        for pos, v in enumerate(decoded):
            indices.append((bi, pos))
            values.append(v)
    return (Tensor(np.array(indices, np.int64).reshape(-1, 2)),
            Tensor(np.array(values, np.int64)),
            Tensor(np.array([x.shape[1], longest], np.int64)),
            Tensor(np.array(logp, x.dtype).reshape(-1, 1)))
