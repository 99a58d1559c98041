"""The fast conv and pool kernels (kernels/cpu/conv_cpp.py, pool_cpp.py) against the numpy
reference kernels (conv_numpy.py, pool_numpy.py), called directly as the runtime calls them
(preallocated C-contiguous outputs): strides, dilations, explicit / 'same' / overhanging
padding, groups, odd and empty sizes, NaN/inf, ties, non-contiguous inputs, both dtypes.
Also: the single-threaded GEMM splitting, kernel selection, and that importing the kernel
modules does not import numba.
"""
import contextlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from helpers import arrays, noncontig  # noqa: E402

import mindlite as ms  # noqa: E402
from mindlite.kernels import registry  # noqa: E402
from mindlite.kernels.cpu import conv_cpp, conv_numpy, pool_cpp, pool_numpy  # noqa: E402

FLOATS = [np.float32, np.float64]
EPS = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-14}
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def garbage(shape, dtype):
    """An output buffer full of values the kernel must overwrite."""
    return np.full(shape, 7.5, dtype)


def assert_matches(got, want, terms):
    """Equal up to summation-order rounding: `terms` products of |values| <= 4 per element;
    NaN exactly where the reference has NaN, infinities equal."""
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = EPS[got.dtype] * 16 * max(terms, 1)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


# ---- convolution ----------------------------------------------------------------------------
@contextlib.contextmanager
def column_order(order):
    """Force conv_cpp's column order: "inner" (batch innermost), "major" (sample-major, one
    GEMM), "per_sample" (sample-major, a GEMM per sample); None: its own choice."""
    chosen = conv_cpp._batch_inner, conv_cpp._per_sample
    if order is not None:
        conv_cpp._batch_inner = lambda n, p: order == "inner"
        conv_cpp._per_sample = lambda m, k, p: order == "per_sample"
    try:
        yield
    finally:
        conv_cpp._batch_inner, conv_cpp._per_sample = chosen


@st.composite
def conv_cases(draw):
    group = draw(st.sampled_from([1, 1, 2, 3]))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pads = tuple(draw(st.integers(0, 2)) for _ in range(4))
    n = draw(st.sampled_from([0, 1, 2, 3]))
    cg, og = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    eff = (dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1)
    h = draw(st.integers(max(1, eff[0] - pads[0] - pads[1]), 7))
    w = draw(st.integers(max(1, eff[1] - pads[2] - pads[3]), 7))
    oh = (h + pads[0] + pads[1] - eff[0]) // stride[0] + 1
    ow = (w + pads[2] + pads[3] - eff[1]) // stride[1] + 1
    dtype = draw(st.sampled_from(FLOATS))
    x = draw(arrays(dtype, (n, cg * group, h, w), min_value=-2, max_value=2))
    wt = draw(arrays(dtype, (og * group, cg, kh, kw), min_value=-2, max_value=2))
    dout = draw(arrays(dtype, (n, og * group, oh, ow), min_value=-2, max_value=2))
    layouts = draw(st.tuples(st.booleans(), st.booleans(), st.booleans()))
    x, wt, dout = (noncontig(a) if nc else a for a, nc in zip((x, wt, dout), layouts))
    return dict(x=x, w=wt, dout=dout, geo=(stride, dilation, pads, group),
                terms=cg * kh * kw, filter_terms=n * oh * ow, input_terms=og * kh * kw,
                order=draw(st.sampled_from([None, "inner", "major", "per_sample"])))


def run_both(ref, fast, args, shape, geo, order=None):
    want, got = garbage(shape, args[0].dtype), garbage(shape, args[0].dtype)
    ref(*args, want, *geo)
    with column_order(order):
        fast(*args, got, *geo)
    return got, want


@given(conv_cases())
def test_conv2d_matches_reference(c):
    got, want = run_both(conv_numpy.conv2d_numpy, conv_cpp.conv2d_cpp, (c["x"], c["w"]),
                         c["dout"].shape, c["geo"], c["order"])
    assert_matches(got, want, c["terms"])


@given(conv_cases())
def test_conv2d_backprop_filter_matches_reference(c):
    got, want = run_both(conv_numpy.conv2d_backprop_filter_numpy,
                         conv_cpp.conv2d_backprop_filter_cpp, (c["dout"], c["x"]),
                         c["w"].shape, c["geo"], c["order"])
    assert_matches(got, want, c["filter_terms"])


@given(conv_cases())
def test_conv2d_backprop_input_and_transpose_match_reference(c):
    for ref, fast in ((conv_numpy.conv2d_backprop_input_numpy,
                       conv_cpp.conv2d_backprop_input_cpp),
                      (conv_numpy.conv2d_transpose_numpy, conv_cpp.conv2d_transpose_cpp)):
        got, want = run_both(ref, fast, (c["dout"], c["w"]), c["x"].shape, c["geo"],
                             c["order"])
        assert_matches(got, want, c["input_terms"])


@pytest.mark.parametrize("order", [None, "inner", "major", "per_sample"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_conv2d_lenet_layers_match_reference(dtype, order):
    """The digits CNN's two layers at batch 64 ('same', 3 x 3): the shapes the benchmark runs,
    large enough that every GEMM is split into single-threaded pieces; every column order."""
    rng = np.random.default_rng(1)
    geo = ((1, 1), (1, 1), (1, 1, 1, 1), 1)
    for c, o, hw in ((1, 16, 8), (16, 32, 4), (16, 64, 4)):
        x = rng.standard_normal((64, c, hw, hw)).astype(dtype)
        w = rng.standard_normal((o, c, 3, 3)).astype(dtype)
        d = rng.standard_normal((64, o, hw, hw)).astype(dtype)
        assert_matches(*run_both(conv_numpy.conv2d_numpy, conv_cpp.conv2d_cpp, (x, w),
                                 d.shape, geo, order), 9 * c * 4)
        assert_matches(*run_both(conv_numpy.conv2d_backprop_filter_numpy,
                                 conv_cpp.conv2d_backprop_filter_cpp, (d, x), w.shape, geo,
                                 order), 64 * hw * hw * 4)
        assert_matches(*run_both(conv_numpy.conv2d_backprop_input_numpy,
                                 conv_cpp.conv2d_backprop_input_cpp, (d, w), x.shape, geo,
                                 order), 9 * o * 4)


@pytest.mark.parametrize("attached", [True, False])
@pytest.mark.parametrize("m, k, n", [(3, 5, 4), (32, 144, 1024), (1024, 144, 32),
                                     (4000, 200, 1), (1, 200, 4000)])
def test_gemm_pieces_match_one_matmul(m, k, n, attached, monkeypatch):
    """With numpy's OpenBLAS attached (kernels/cpu/_blas.py) a conv GEMM is one matmul on one
    BLAS thread; without it, pieces below 2**19 multiply-adds (OpenBLAS's threading bound)."""
    from mindlite import _C
    from mindlite.kernels.cpu import _blas
    attached = attached and _blas.ATTACHED
    monkeypatch.setattr(_blas, "ATTACHED", attached)
    rng = np.random.default_rng(2)
    a = rng.standard_normal((m, k))
    b = rng.standard_normal((n, k)).T                # a transposed (F-order) operand
    out = np.full((m, n), np.nan)
    pieces, threads = [], []

    class Recorder:                         # numpy, with matmul and its BLAS threads recorded
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def matmul(x, y, out):
            pieces.append(x.shape[0] * x.shape[1] * y.shape[1])
            now = _C.blas_threads_local(1)
            _C.blas_threads_local(max(now, 0))
            threads.append(now)
            return np.matmul(x, y, out=out)

    monkeypatch.setattr(conv_cpp, "np", Recorder())
    monkeypatch.setattr(_blas, "np", Recorder())
    conv_cpp._gemm(a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-12, atol=1e-12)
    if attached:
        assert pieces == [m * n * k] and threads == [1]
    else:
        # every piece small enough for OpenBLAS to run it on one thread (M N K < 2**19)
        assert max(pieces) < conv_cpp._ST_MNK and sum(pieces) == m * n * k


# ---- pooling --------------------------------------------------------------------------------
@st.composite
def pool_cases(draw):
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pads = tuple(draw(st.integers(0, (kernel[i // 2] - 1) * dilation[i // 2])) for i in range(4))
    n, c = draw(st.sampled_from([0, 1, 2])), draw(st.sampled_from([0, 1, 3]))
    eff = [dilation[i] * (kernel[i] - 1) + 1 for i in range(2)]
    h = draw(st.integers(max(1, eff[0] - pads[0] - pads[1]), 7))
    w = draw(st.integers(max(1, eff[1] - pads[2] - pads[3]), 7))
    out_hw = []
    for size, before, after, e, s in ((h, pads[0], pads[1], eff[0], stride[0]),
                                      (w, pads[2], pads[3], eff[1], stride[1])):
        floor = (size + before + after - e) // s + 1
        # ceil_mode: one more window, overhanging the padded input, if it starts inside it
        ceil = floor + 1 if floor * s < size + before else floor
        out_hw.append(draw(st.sampled_from([floor, ceil])))
    dtype = draw(st.sampled_from(FLOATS))
    # few distinct values: ties (the first maximum wins) are common
    values = st.sampled_from([-1.0, 0.0, 0.5, 2.0, 2.0, np.nan, np.inf, -np.inf]) \
        if draw(st.booleans()) else None
    shape = (n, c, h, w)
    if values is None:
        x = draw(arrays(dtype, shape))
    else:
        x = np.array(draw(st.lists(values, min_size=int(np.prod(shape)),
                                   max_size=int(np.prod(shape)))), dtype=dtype).reshape(shape)
    grad = draw(arrays(dtype, (n, c) + tuple(out_hw), min_value=-4, max_value=4))
    geo = dict(kernel=kernel, stride=stride, pads=pads, dilation=dilation)
    return x, grad, geo, draw(st.booleans())


@settings(max_examples=60)
@given(pool_cases())
def test_max_pool_and_grad_match_reference(case):
    x, grad, geo, nc = case
    out_shape = grad.shape
    want = garbage(out_shape, x.dtype)
    pool_numpy.max_pool_numpy(x, want, **geo)
    got = garbage(out_shape, x.dtype)
    pool_cpp.max_pool_cpp(noncontig(x) if nc else x, got, **geo)
    np.testing.assert_array_equal(got, want)          # a max is exact, NaN included
    dx_want, dx_got = garbage(x.shape, x.dtype), garbage(x.shape, x.dtype)
    pool_numpy.max_pool_grad_numpy(x, want, grad, dx_want, **geo)
    args = (noncontig(x), noncontig(want), noncontig(grad)) if nc else (x, want, grad)
    pool_cpp.max_pool_grad_cpp(*args, dx_got, **geo)
    terms = int(np.prod(geo["kernel"]))               # windows overlapping one element
    assert_matches(dx_got, dx_want, terms)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, stride", [((64, 16, 8, 8), 2), ((3, 2, 7, 5), 2),
                                           ((2, 3, 5, 6), 1)])
def test_max_pool_2x2_paths(dtype, shape, stride):
    """The unrolled 2 x 2 loops: tiled (stride 2, even sides), odd sides, overlapping."""
    rng = np.random.default_rng(3)
    x = rng.integers(-2, 3, shape).astype(dtype)      # many ties
    x.flat[::7] = np.nan
    geo = dict(kernel=(2, 2), stride=(stride, stride), pads=(0, 0, 0, 0), dilation=(1, 1))
    oh, ow = (shape[2] - 2) // stride + 1, (shape[3] - 2) // stride + 1
    want, got = garbage(shape[:2] + (oh, ow), dtype), garbage(shape[:2] + (oh, ow), dtype)
    pool_numpy.max_pool_numpy(x, want, **geo)
    pool_cpp.max_pool_cpp(x, got, **geo)
    np.testing.assert_array_equal(got, want)
    grad = rng.standard_normal(want.shape).astype(dtype)
    dx_want, dx_got = garbage(shape, dtype), garbage(shape, dtype)
    pool_numpy.max_pool_grad_numpy(x, want, grad, dx_want, **geo)
    pool_cpp.max_pool_grad_cpp(x, want, grad, dx_got, **geo)
    assert_matches(dx_got, dx_want, 4)


def test_max_pool_grad_uses_the_given_output():
    """The gradient goes where x equals the `out` given (as the reference), not a recomputed
    maximum: an `out` matching no element of a window sends nothing."""
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    out = np.array([[[[1.0, 7.0], [99.0, 10.0]]]], dtype=np.float32)
    grad = np.ones((1, 1, 2, 2), np.float32)
    geo = dict(kernel=(2, 2), stride=(2, 2), pads=(0, 0, 0, 0), dilation=(1, 1))
    want, got = garbage(x.shape, x.dtype), garbage(x.shape, x.dtype)
    pool_numpy.max_pool_grad_numpy(x, out, grad, want, **geo)
    pool_cpp.max_pool_grad_cpp(x, out, grad, got, **geo)
    np.testing.assert_array_equal(got, want)
    assert got.sum() == 3


# ---- selection and imports ------------------------------------------------------------------
def test_selection_prefers_fast_kernels_for_float32_64_only():
    for op, fast in (("MaxPool", "cpp"), ("MaxPoolGrad", "cpp"), ("Conv2D", "cpp"),
                     ("Conv2DBackpropFilter", "cpp"), ("Conv2DBackpropInput", "cpp"),
                     ("Conv2DTranspose", "cpp")):
        for dtype in (ms.float32, ms.float64):
            assert registry.select_kernel(op, "CPU", dtype).provider == fast
        assert registry.select_kernel(op, "CPU", ms.float16).provider == "numpy"


def test_max_pool_op_through_the_api_float16_and_float32():
    x = np.random.default_rng(4).standard_normal((2, 3, 6, 6))
    pool = ms.ops.MaxPool(kernel_size=2, strides=2)
    for dtype in (np.float16, np.float32):
        got = pool(ms.Tensor(x.astype(dtype))).asnumpy()
        want = x.astype(dtype).reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5))
        np.testing.assert_array_equal(got, want)


def test_kernel_modules_do_not_import_numba():
    code = ("import sys, mindlite; "
            "import mindlite.kernels.cpu.pool_cpp, mindlite.kernels.cpu.conv_cpp; "
            "assert 'numba' not in sys.modules, 'numba imported'")
    root = Path(__file__).parent.parent
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
