"""Image transforms (MindSpore's mindspore.dataset.vision) on numpy HWC arrays, with Pillow
for decoding and resampling: Decode, Resize, CenterCrop, RandomCrop, RandomResizedCrop,
RandomHorizontalFlip, Normalize, HWC2CHW, ToTensor, Rescale, and the Inter enum. Use them as
`dataset.map(operations=[vision.Decode(), vision.Resize(32), ...])`.

Random transforms draw from mindlite.random_state.generator() (set_seed reproduces them).
Resampling (dataset/resample.py) is OpenCV's bilinear and nearest, as MindSpore's, so
resized images equal MindSpore's; bicubic and area go through Pillow.
"""
import io
import numbers

import numpy as np


__all__ = ["Inter", "Decode", "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop",
           "RandomHorizontalFlip", "Normalize", "HWC2CHW", "ToTensor", "Rescale"]


from .vision_image import Inter, _image, _resize, _rng, _size  # noqa: F401


class Decode:
    """Encoded image bytes (a 1-D uint8 array) -> HWC uint8 RGB."""

    def __init__(self, to_pil=False):
        self.to_pil = to_pil

    def __call__(self, data):
        from PIL import Image
        raw = np.asarray(data)
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise TypeError(f"For 'Decode', the input must be 1-D uint8 encoded bytes, but got "
                            f"{raw.dtype} {raw.shape}")
        try:
            img = Image.open(io.BytesIO(raw.tobytes())).convert("RGB")
        except Exception as e:
            raise RuntimeError(f"For 'Decode', the data is not a decodable image: {e}") from None
        return img if self.to_pil else np.asarray(img)


class Resize:
    """size int: the shorter edge becomes size (aspect kept); (h, w): that size."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        self.size, self.interpolation = _size("Resize", size), Inter(interpolation)

    def __call__(self, img):
        img = _image("Resize", img)
        h, w = img.shape[:2]
        if isinstance(self.size, int):
            if h <= w:
                nh, nw = self.size, int(self.size * w / h)
            else:
                nh, nw = int(self.size * h / w), self.size
        else:
            nh, nw = self.size
        return _resize(img, nh, nw, self.interpolation)


def _crop(img, top, left, h, w):
    return img[top:top + h, left:left + w]


class CenterCrop:
    def __init__(self, size):
        self.size = _size("CenterCrop", size)

    def __call__(self, img):
        img = _image("CenterCrop", img)
        ch, cw = (self.size, self.size) if isinstance(self.size, int) else self.size
        h, w = img.shape[:2]
        if ch > h or cw > w:                 # pad with zeros first, as MindSpore
            ph, pw = max(ch - h, 0), max(cw - w, 0)
            pads = ((ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2)) + ((0, 0),) * (img.ndim - 2)
            img = np.pad(img, pads)
            h, w = img.shape[:2]
        return _crop(img, int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0)), ch, cw)


class RandomCrop:
    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0):
        self.size = _size("RandomCrop", size)
        self.padding, self.pad_if_needed, self.fill_value = padding, pad_if_needed, fill_value

    def __call__(self, img):
        img = _image("RandomCrop", img)
        ch, cw = (self.size, self.size) if isinstance(self.size, int) else self.size
        if self.padding is not None:
            p = self.padding if isinstance(self.padding, (tuple, list)) else (self.padding,) * 4
            p = tuple(p) * 2 if len(p) == 2 else tuple(p)          # left, top, right, bottom
            pads = ((p[1], p[3]), (p[0], p[2])) + ((0, 0),) * (img.ndim - 2)
            img = np.pad(img, pads, constant_values=self.fill_value)
        h, w = img.shape[:2]
        if self.pad_if_needed and (h < ch or w < cw):
            pads = ((0, max(ch - h, 0)), (0, max(cw - w, 0))) + ((0, 0),) * (img.ndim - 2)
            img = np.pad(img, pads, constant_values=self.fill_value)
            h, w = img.shape[:2]
        if h < ch or w < cw:
            raise ValueError(f"For 'RandomCrop', the crop {ch}x{cw} is larger than the image "
                             f"{h}x{w}")
        rng = _rng()
        return _crop(img, int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1)),
                     ch, cw)


class RandomResizedCrop:
    """A crop of random area share in `scale` and aspect ratio in `ratio`, resized to size."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        self.size = _size("RandomResizedCrop", size)
        self.scale, self.ratio = scale, ratio
        self.interpolation, self.max_attempts = Inter(interpolation), max_attempts

    def __call__(self, img):
        img = _image("RandomResizedCrop", img)
        h, w = img.shape[:2]
        rng = _rng()
        area = h * w
        for _ in range(self.max_attempts):
            target = area * rng.uniform(*self.scale)
            aspect = np.exp(rng.uniform(np.log(self.ratio[0]), np.log(self.ratio[1])))
            cw, ch = int(round(np.sqrt(target * aspect))), int(round(np.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                top, left = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
                break
        else:                                   # fall back to a center crop of the whole
            ch, cw, top, left = h, w, 0, 0
        out_h, out_w = (self.size, self.size) if isinstance(self.size, int) else self.size
        return _resize(np.ascontiguousarray(_crop(img, top, left, ch, cw)), out_h, out_w,
                       self.interpolation)


class RandomHorizontalFlip:
    def __init__(self, prob=0.5):
        if not isinstance(prob, numbers.Real) or not 0.0 <= prob <= 1.0:
            raise ValueError(f"For 'RandomHorizontalFlip', 'prob' must be in [0, 1], but got "
                             f"{prob!r}")
        self.prob = float(prob)

    def __call__(self, img):
        img = _image("RandomHorizontalFlip", img)
        return np.ascontiguousarray(img[:, ::-1]) if _rng().random() < self.prob else img


class Normalize:
    """(img - mean) / std per channel, float32 out; is_hwc says where the channels are."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean = np.asarray(mean, np.float32)
        self.std = np.asarray(std, np.float32)
        if self.mean.shape != self.std.shape or (self.std <= 0).any():
            raise ValueError(f"For 'Normalize', 'mean' and 'std' must have one value per "
                             f"channel and std > 0, but got {mean!r} and {std!r}")
        self.is_hwc = is_hwc

    def __call__(self, img):
        img = np.asarray(img, np.float32)
        shape = (1, 1, -1) if self.is_hwc else (-1, 1, 1)
        if img.ndim == 2:
            shape = (1, 1)
        return (img - self.mean.reshape(shape)) / self.std.reshape(shape)


class HWC2CHW:
    def __call__(self, img):
        img = _image("HWC2CHW", img)
        return np.ascontiguousarray(img.transpose(2, 0, 1) if img.ndim == 3 else img[None])


class ToTensor:
    """HWC uint8 (or a Pillow image) -> CHW `output_type` scaled to [0, 1]."""

    def __init__(self, output_type=np.float32):
        self.output_type = output_type

    def __call__(self, img):
        img = np.asarray(img)
        scale = 255.0 if img.dtype == np.uint8 else 1.0
        out = img.astype(self.output_type) / np.asarray(scale, self.output_type)
        return HWC2CHW()(out)


class Rescale:
    """img * rescale + shift, float32 out."""

    def __init__(self, rescale, shift):
        self.rescale, self.shift = float(rescale), float(shift)

    def __call__(self, img):
        return np.asarray(img, np.float32) * np.float32(self.rescale) + np.float32(self.shift)


# The other transform families, in files of their own (they use the helpers above).
from .vision_affine import (Affine, GaussianBlur, RandomAffine,  # noqa: E402
                            RandomCropDecodeResize)
from .vision_augment import (AutoAugment, AutoAugmentPolicy, RandAugment,  # noqa: E402
                             TrivialAugmentWide)
from .vision_batch import CutMixBatch, ImageBatchFormat, MixUpBatch  # noqa: E402
from .vision_color import (AdjustBrightness, AdjustContrast, AdjustGamma,  # noqa: E402
                           AdjustHue, AdjustSaturation, AdjustSharpness, AutoContrast, Equalize,
                           Invert, Posterize, RandomAdjustSharpness, RandomAutoContrast,
                           RandomColor, RandomColorAdjust, RandomEqualize, RandomInvert,
                           RandomPosterize, RandomSharpness, RandomSolarize, Solarize)
from .vision_geometry import (Border, Crop, Erase, HorizontalFlip, Pad,  # noqa: E402
                              RandomErasing, RandomRotation, RandomVerticalFlip, Rotate,
                              VerticalFlip)

__all__ += ["Affine", "GaussianBlur", "RandomAffine", "RandomCropDecodeResize",
            "AutoAugment", "AutoAugmentPolicy", "RandAugment", "TrivialAugmentWide",
            "CutMixBatch", "ImageBatchFormat", "MixUpBatch", "AdjustBrightness",
            "AdjustContrast", "AdjustGamma", "AdjustHue", "AdjustSaturation", "AdjustSharpness",
            "AutoContrast", "Equalize", "Invert", "Posterize", "RandomAdjustSharpness",
            "RandomAutoContrast", "RandomColor", "RandomColorAdjust", "RandomEqualize",
            "RandomInvert", "RandomPosterize", "RandomSharpness", "RandomSolarize", "Solarize",
            "Border", "Crop", "Erase", "HorizontalFlip", "Pad", "RandomErasing",
            "RandomRotation", "RandomVerticalFlip", "Rotate", "VerticalFlip"]
