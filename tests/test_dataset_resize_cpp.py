"""vision.Resize's uint8 bilinear path in C++ (_C.resize_linear_u8) gives the bytes of the
numpy version of the same OpenCV fixed-point arithmetic (dataset/resample.py, which
test_dataset_vision.py checks against MindSpore 2.10's pixels), for any size, channel count
and layout; the binding refuses taps outside the image instead of reading past it."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import _C
from mindlite.dataset import resample
from mindlite.dataset import vision as V

pytestmark = pytest.mark.skipif(not hasattr(_C, "resize_linear_u8"),
                                reason="mindlite._C built before resize_linear_u8")


@settings(max_examples=60, deadline=None)
@given(sh=st.integers(1, 40), sw=st.integers(1, 40), h=st.integers(1, 48), w=st.integers(1, 48),
       c=st.sampled_from([None, 1, 3, 4]), flip=st.booleans(), seed=st.integers(0, 2**16))
def test_cpp_equals_numpy(sh, sw, h, w, c, flip, seed):
    shape = (sh, sw) if c is None else (sh, sw, c)
    img = np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)
    if flip:                                     # a non-contiguous view
        img = img[:, ::-1]
    want = resample._linear_u8_numpy(img, h, w)
    got = resample.resize(img, h, w, "linear")
    assert got.dtype == np.uint8 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_mnist_pipeline_image():
    img = np.random.default_rng(0).integers(0, 256, (28, 28, 1), dtype=np.uint8)
    np.testing.assert_array_equal(V.Resize((32, 32))(img), resample._linear_u8_numpy(img, 32, 32))
    assert V.Resize((32, 32))(np.zeros((28, 28, 0), np.uint8)).shape == (32, 32, 0)


def test_binding_checks_before_writing():
    src = np.zeros((4, 4, 1), np.uint8)
    out = np.full((2, 2, 1), 7, np.uint8)
    xs, ys = resample._linear_taps_u8(4, 4, 2, 2)
    bad = xs.copy()
    bad[1, 0] = 4                                # a column past the image
    with pytest.raises(ValueError, match="For 'Resize'"):
        _C.resize_linear_u8(src, out, bad, ys)
    bad = ys.copy()
    bad[2, 0] = 4096                             # a weight above 1
    with pytest.raises(ValueError, match="For 'Resize'"):
        _C.resize_linear_u8(src, out, xs, bad)
    with pytest.raises(TypeError, match="For 'Resize'"):
        _C.resize_linear_u8(src.astype(np.int16), out, xs, ys)
    with pytest.raises(TypeError, match="For 'Resize'"):
        _C.resize_linear_u8(src, out[:, ::-1], xs, ys)
    assert (out == 7).all()
    assert not xs.flags.writeable and not ys.flags.writeable


def test_four_threads_share_the_cached_taps():
    """The taps are cached per size (lru_cache, 64 entries) and read without the GIL: 4
    threads resizing to overlapping sizes get the single-threaded bytes."""
    from concurrent.futures import ThreadPoolExecutor
    rng = np.random.default_rng(1)
    jobs = [(rng.integers(0, 256, (28, 28, 1), dtype=np.uint8), 24 + i % 12, 30 + i % 7)
            for i in range(200)]
    want = [resample._linear_u8_numpy(img, h, w) for img, h, w in jobs]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda job: resample.resize(job[0], job[1], job[2], "linear"), jobs))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert resample._linear_taps_u8.cache_info().currsize <= 64
