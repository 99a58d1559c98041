"""Image resampling for dataset/vision.py's Resize (and the transforms that resize): bilinear
and nearest as OpenCV's cv::resize computes them, which is what MindSpore's Resize runs, so a
resized image equals MindSpore's bit for bit (uint8 through OpenCV's fixed-point arithmetic,
float in float32); bicubic and area through Pillow, per channel.

Works on HW or HWC arrays of any channel count (an MNIST image is (28, 28, 1) uint8). A
uint8 bilinear resize runs the same int32 arithmetic in C++ (`_C.resize_linear_u8`, no GIL):
the numpy version took ~60 us on an MNIST image, 2 ms of a LeNet batch of 32, and held the
GIL the training thread needs.
"""
import functools

import numpy as np

from .. import _C

_RESIZE_U8 = getattr(_C, "resize_linear_u8", None)     # None: an extension built before it

_COEF_BITS = 11                     # OpenCV's INTER_RESIZE_COEF_BITS
_COEF_SCALE = 1 << _COEF_BITS


def _linear_taps(src, dst, clamp_weight):
    """Source indices (i0, i1) and the weight of i1 for each output index, as OpenCV's
    INTER_LINEAR: pixel centres at +0.5, indices clipped at the edges. NOTE: OpenCV moves the
    weight to the edge pixel for columns (clamp_weight) but not for rows, whose clipped pair
    then names one row twice: in uint8 its two truncated products differ from one."""
    f = ((np.arange(dst, dtype=np.float64) + 0.5) * (src / dst) - 0.5).astype(np.float32)
    i0 = np.floor(f).astype(np.int64)
    w1 = f - i0
    if clamp_weight:
        low = i0 < 0
        w1[low], i0[low] = 0, 0
        high = i0 >= src - 1
        w1[high], i0[high] = 0, src - 1
    return np.clip(i0, 0, src - 1), np.clip(i0 + 1, 0, src - 1), w1.astype(np.float32)


@functools.lru_cache(maxsize=64)
def _linear_plan(sh, sw, h, w, ndim, u8):
    """The taps of one resize (cached per size: a dataset resizes every image alike;
    lru_cache is thread-safe and bounded)."""
    y0, y1, by = _linear_taps(sh, h, False)
    x0, x1, ax = _linear_taps(sw, w, True)
    extra = (1,) * (ndim - 2)
    if u8:
        a1 = np.rint(ax * _COEF_SCALE).astype(np.int32)
        b1 = np.rint(by * _COEF_SCALE).astype(np.int32)
        wx = ((_COEF_SCALE - a1).reshape(1, -1, *extra), a1.reshape(1, -1, *extra))
        wy = ((_COEF_SCALE - b1).reshape(-1, 1, *extra), b1.reshape(-1, 1, *extra))
    else:
        wx = ((1 - ax).reshape(1, -1, *extra), ax.reshape(1, -1, *extra))
        wy = ((1 - by).reshape(-1, 1, *extra), by.reshape(-1, 1, *extra))
    return y0, y1, x0, x1, wx, wy


@functools.lru_cache(maxsize=64)
def _linear_taps_u8(sh, sw, h, w):
    """_linear_plan's uint8 taps as _C.resize_linear_u8 takes them: int32 (4, w) rows x0, x1,
    a0, a1 and (4, h) rows y0, y1, b0, b1."""
    y0, y1, x0, x1, (a0, a1), (b0, b1) = _linear_plan(sh, sw, h, w, 2, True)
    xs = np.stack([x0, x1, a0.ravel(), a1.ravel()]).astype(np.int32)
    ys = np.stack([y0, y1, b0.ravel(), b1.ravel()]).astype(np.int32)
    xs.flags.writeable = ys.flags.writeable = False      # shared by every call
    return xs, ys


def _linear_u8(img, h, w):
    if _RESIZE_U8 is not None and img.ndim in (2, 3):
        src = np.ascontiguousarray(img)
        src3 = src.reshape(src.shape[:2] + (src.shape[2] if src.ndim == 3 else 1,))
        out = np.empty((h, w) + src3.shape[2:], np.uint8)
        _RESIZE_U8(src3, out, *_linear_taps_u8(src.shape[0], src.shape[1], h, w))
        return out if img.ndim == 3 else out[..., 0]
    return _linear_u8_numpy(img, h, w)


def _linear_u8_numpy(img, h, w):
    """The same arithmetic in numpy (any rank of trailing channel axes)."""
    y0, y1, x0, x1, (a0, a1), (b0, b1) = _linear_plan(*img.shape[:2], h, w, img.ndim, True)
    src = img.astype(np.int32)
    rows = src[:, x0] * a0 + src[:, x1] * a1
    rows >>= 4
    out = (b0 * rows[y0]) >> 16
    out += (b1 * rows[y1]) >> 16
    out += 2
    out >>= 2
    return out.astype(np.uint8)          # a convex combination: 0..255 already


def _linear_float(img, h, w):
    y0, y1, x0, x1, (a0, a1), (b0, b1) = _linear_plan(*img.shape[:2], h, w, img.ndim, False)
    src = img.astype(np.float32)
    rows = src[:, x0] * a0 + src[:, x1] * a1
    return (rows[y0] * b0 + rows[y1] * b1).astype(img.dtype)


def _nearest(img, h, w):
    ys = np.minimum(np.floor(np.arange(h) * (img.shape[0] / h)).astype(np.int64),
                    img.shape[0] - 1)
    xs = np.minimum(np.floor(np.arange(w) * (img.shape[1] / w)).astype(np.int64),
                    img.shape[1] - 1)
    return img[ys][:, xs]


def _pillow(img, h, w, filt):
    from PIL import Image
    chans = img[..., None] if img.ndim == 2 else img
    if img.dtype == np.uint8:
        planes = [np.asarray(Image.fromarray(np.ascontiguousarray(chans[..., c]), "L")
                             .resize((w, h), filt)) for c in range(chans.shape[-1])]
    else:
        planes = [np.asarray(Image.fromarray(chans[..., c].astype(np.float32), "F")
                             .resize((w, h), filt)) for c in range(chans.shape[-1])]
    out = np.stack(planes, -1)
    return out[..., 0].astype(img.dtype) if img.ndim == 2 else out.astype(img.dtype)


def resize(img, h, w, method):
    """img (HW or HWC) resized to (h, w); method: "linear", "nearest", "cubic" or "area"."""
    if img.shape[:2] == (h, w):
        return img.copy()
    if method == "linear":
        return _linear_u8(img, h, w) if img.dtype == np.uint8 else _linear_float(img, h, w)
    if method == "nearest":
        return _nearest(img, h, w)
    from PIL import Image
    return _pillow(img, h, w, {"cubic": Image.BICUBIC, "area": Image.BOX}[method])
