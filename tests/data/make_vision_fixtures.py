"""Cases of tests/test_dataset_vision_ms210.py and the writer of their MindSpore 2.10 values.

    cd /tmp && /opt/msvenv/bin/python /work/main/tests/data/make_vision_fixtures.py \
        /work/main/tests/data/vision_mindspore.npz

CASES (importable without MindSpore): name -> (transform class name, args, kwargs). The
input image is IMAGE (deterministic), the same for the writer and the test.
"""
import sys

import numpy as np

IMAGE = ((np.arange(6 * 7 * 3).reshape(6, 7, 3) * 37 + 11) % 256).astype(np.uint8)

CASES = {
    "bright": ("AdjustBrightness", (1.5,), {}),
    "contrast": ("AdjustContrast", (0.6,), {}),
    "saturation": ("AdjustSaturation", (1.7,), {}),
    "sharpness": ("AdjustSharpness", (2.0,), {}),
    "gamma": ("AdjustGamma", (0.5, 1.0), {}),
    "hue": ("AdjustHue", (0.2,), {}),
    "invert": ("Invert", (), {}),
    "posterize": ("Posterize", (3,), {}),
    "solarize": ("Solarize", (128.0,), {}),
    "equalize": ("Equalize", (), {}),
    "autocontrast": ("AutoContrast", (), {}),
    "vflip": ("VerticalFlip", (), {}),
    "hflip": ("HorizontalFlip", (), {}),
    "rotate30": ("Rotate", (30.0,), {}),
    "rotate90": ("Rotate", (90.0,), {}),
    "rotate_m45_expand": ("Rotate", (-45.0,), {"expand": True}),
    "rotate30_expand": ("Rotate", (30.0,), {"expand": True}),
    "rotate30_bilinear": ("Rotate", (30.0,), {"resample": "BILINEAR"}),
    "pad_constant": ("Pad", ((1, 2, 3, 4),), {"fill_value": (9, 8, 7)}),
    "pad_edge": ("Pad", (2,), {"padding_mode": "EDGE"}),
    "pad_reflect": ("Pad", (2,), {"padding_mode": "REFLECT"}),
    "pad_symmetric": ("Pad", ((1, 2),), {"padding_mode": "SYMMETRIC"}),
    "crop": ("Crop", ((1, 2), (3, 4)), {}),
    "affine_rotate": ("Affine", (30.0, [0.0, 0.0], 1.0, [0.0, 0.0]), {}),
    "affine_translate": ("Affine", (0.0, [0.1, -0.2], 1.0, [0.0, 0.0]), {}),
    "affine_scale": ("Affine", (0.0, [0.0, 0.0], 1.3, [0.0, 0.0]), {}),
    "affine_shear": ("Affine", (0.0, [0.0, 0.0], 1.0, [20.0, 15.0]), {}),
    "affine_all": ("Affine", (-45.0, [0.05, 0.1], 0.8, [10.0, -5.0]), {"fill_value": 7}),
    "affine_all_bilinear": ("Affine", (-45.0, [0.05, 0.1], 0.8, [10.0, -5.0]),
                            {"resample": "BILINEAR"}),
    "blur3": ("GaussianBlur", (3,), {}),
    "blur5": ("GaussianBlur", (5, 1.5), {}),
    "blur_3x5": ("GaussianBlur", ((3, 5), (0.8, 2.0)), {}),
}


def build(module, name):
    """The transform of case `name` from `module` (MindSpore's or mindlite's vision)."""
    cls, args, kwargs = CASES[name]
    kwargs = dict(kwargs)
    if "resample" in kwargs:
        kwargs["resample"] = getattr(module.Inter, kwargs["resample"])
    if "padding_mode" in kwargs:
        kwargs["padding_mode"] = getattr(module.Border, kwargs["padding_mode"])
    return getattr(module, cls)(*args, **kwargs)


def main(out_path):
    import mindspore.dataset.vision as vision
    np.savez(out_path, **{name: np.asarray(build(vision, name)(IMAGE)) for name in CASES})


if __name__ == "__main__":
    main(sys.argv[1])
