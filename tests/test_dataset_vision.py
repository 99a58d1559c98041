"""dataset.vision and dataset.transforms: the deterministic transforms give MindSpore 2.10's
values (printed by it for the same image), resizing equals MindSpore's (OpenCV's), random
crops and flips are reproducible under set_seed and keep shapes, a pipeline of them runs
through Dataset.map with parallel workers, errors."""
import io

import numpy as np
import pytest

import mindlite as ms
from mindlite import dataset as ds
from mindlite.dataset import transforms as T
from mindlite.dataset import vision as V

IMG = (np.arange(6 * 8 * 3) % 251).astype(np.uint8).reshape(6, 8, 3)


def test_deterministic_transforms_as_mindspore():
    assert V.CenterCrop(4)(IMG)[..., 0].tolist() == [[30, 33, 36, 39], [54, 57, 60, 63],
                                                    [78, 81, 84, 87], [102, 105, 108, 111]]
    chw = V.ToTensor()(IMG)
    assert chw.shape == (3, 6, 8) and chw.dtype == np.float32
    np.testing.assert_allclose(chw[1, 2, 3], IMG[2, 3, 1] / 255.0, rtol=1e-7)
    assert V.HWC2CHW()(IMG).shape == (3, 6, 8) and V.Rescale(1 / 255, 0.5)(IMG).dtype == np.float32
    norm = V.Normalize([1, 2, 3], [2, 2, 2])(IMG)
    assert norm[0, 0].tolist() == [-0.5, -0.5, -0.5] and norm.dtype == np.float32
    assert T.OneHot(4)(np.array(2)).tolist() == [0, 0, 1, 0]
    np.testing.assert_allclose(T.OneHot(4, 0.2)(np.array(2)), [0.05, 0.05, 0.85, 0.05])
    assert T.TypeCast(np.float16)(np.array([1, 2])).dtype == np.float16
    assert T.TypeCast(ms.int32)(np.array([1.5])).dtype == np.int32
    assert V.Resize(3)(IMG).shape == (3, 4, 3) and V.Resize((4, 5))(IMG).shape == (4, 5, 3)


def test_resize_equals_mindspore_and_decode_equals_pillow():
    """Resize gives MindSpore 2.10's pixels (OpenCV's resampling; values printed by it for
    these images): uint8 HWC, an MNIST-like (H, W, 1) image upsampled (its edge rows
    included), float32 HW, nearest."""
    from PIL import Image
    r = V.Resize((4, 5))(IMG)
    assert r[..., 0].tolist() == [[7, 12, 16, 21, 26], [43, 48, 52, 57, 62],
                                  [79, 84, 88, 93, 98], [115, 120, 124, 129, 134]]
    assert int(r[..., 2].sum()) == 1448
    mnist = ((np.arange(5 * 6) * 37) % 256).astype(np.uint8).reshape(5, 6, 1)
    up = V.Resize((7, 9))(mnist)
    assert up.shape == (7, 9, 1) and up.dtype == np.uint8
    assert up[..., 0].tolist() == [
        [0, 18, 43, 68, 92, 117, 142, 166, 185], [127, 72, 24, 48, 73, 98, 122, 147, 166],
        [212, 139, 60, 36, 49, 73, 98, 123, 141], [188, 207, 189, 42, 25, 49, 74, 99, 117],
        [164, 182, 195, 170, 91, 25, 49, 74, 93], [139, 158, 182, 207, 159, 92, 44, 50, 68],
        [120, 138, 163, 188, 212, 194, 48, 30, 49]]
    near = V.Resize((7, 9), V.Inter.NEAREST)(mnist)[..., 0]
    assert near[2].tolist() == [222, 222, 3, 40, 40, 77, 114, 114, 151]
    assert near[6].tolist() == [120, 120, 157, 194, 194, 231, 12, 12, 49]
    flt = V.Resize((5, 6))(np.arange(12, dtype=np.float32).reshape(3, 4) / 7)
    assert flt.dtype == np.float32 and flt.shape == (5, 6)
    np.testing.assert_array_equal(flt[1], np.array(
        [0.22857144474983215, 0.30000001192092896, 0.39523810148239136, 0.49047622084617615,
         0.5857143402099609, 0.6571428775787354], np.float32))
    np.testing.assert_array_equal(flt[4, [0, 4, 5]], np.array(
        [1.1428571939468384, 1.5, 1.5714285373687744], np.float32))
    buf = io.BytesIO()
    Image.fromarray(IMG).save(buf, format="PNG")
    decoded = V.Decode()(np.frombuffer(buf.getvalue(), np.uint8))
    np.testing.assert_array_equal(decoded, IMG)
    with pytest.raises(RuntimeError, match="not a decodable image"):
        V.Decode()(np.frombuffer(b"not an image", np.uint8))


def test_random_transforms_reproducible():
    def run():
        ms.set_seed(7)
        return (V.RandomCrop(4, padding=1)(IMG), V.RandomResizedCrop(5)(IMG),
                V.RandomHorizontalFlip(0.5)(IMG))
    a, b = run(), run()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert a[0].shape == (4, 4, 3) and a[1].shape == (5, 5, 3)
    np.testing.assert_array_equal(V.RandomHorizontalFlip(1.0)(IMG), IMG[:, ::-1])
    np.testing.assert_array_equal(V.RandomHorizontalFlip(0.0)(IMG), IMG)


def test_pipeline_through_map_with_workers():
    images = np.stack([np.roll(IMG, i, axis=1) for i in range(6)])
    pipe = T.Compose([V.Resize((4, 4)), V.Normalize([0, 0, 0], [255, 255, 255]), V.HWC2CHW()])
    d = ds.NumpySlicesDataset({"image": images, "label": np.arange(6)}, shuffle=False)
    serial = [r[0] for r in d.map(pipe, ["image"]).create_tuple_iterator(output_numpy=True)]
    par = [r[0] for r in d.map(pipe, ["image"], num_parallel_workers=3)
           .create_tuple_iterator(output_numpy=True)]
    assert serial[0].shape == (3, 4, 4)
    for x, y in zip(serial, par):
        np.testing.assert_array_equal(x, y)


def test_errors():
    with pytest.raises(ValueError, match="'size' must be a positive int"):
        V.Resize(0)
    with pytest.raises(ValueError, match="crop 9x9 is larger than the image"):
        V.RandomCrop(9)(IMG)
    with pytest.raises(ValueError, match="'mean' and 'std' must have one value per channel"):
        V.Normalize([1, 2], [1, 0])
    with pytest.raises(ValueError, match="labels must be ints in \\[0, 3\\)"):
        T.OneHot(3)(np.array([4]))
    with pytest.raises(TypeError, match="'transforms' must be a non-empty list"):
        T.Compose([])
