"""Slicing and indexing: Slice, StridedSlice (TensorFlow mask semantics), Gather, OneHot,
Unique and MaskedSelect (dynamic shapes), and Tensor indexing t[...] / t[...] = v against
numpy indexing for generated index tuples. Runs under "ms" and "vm" policies."""
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

sys.path.insert(0, str(Path(__file__).parent))
from helpers import ALL_DTYPES, arrays, noncontig, shapes, tensor  # noqa: E402

import mindlite as ms  # noqa: E402
from mindlite import Tensor, ops  # noqa: E402
from mindlite.abstract import abstract_tensor  # noqa: E402
from mindlite.kernels.cpu import array_numpy  # noqa: E402

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture])




def same(got, want):
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    want = np.asarray(want, dtype=got.dtype if isinstance(want, list) else None)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    np.testing.assert_array_equal(got, want)


@st.composite
def source(draw, min_dims=0, max_dims=4, min_side=0):
    dtype = draw(st.sampled_from(ALL_DTYPES))
    a = draw(arrays(dtype, shapes(min_dims, max_dims, min_side)))
    return noncontig(a) if draw(st.booleans()) else a


# ---- Tensor indexing -----------------------------------------------------------------------
@with_fixture
@given(a=source(), data=st.data())
def test_getitem_basic(policy, a, data):
    index = data.draw(hnp.basic_indices(a.shape, allow_newaxis=True))
    got = Tensor.from_numpy(a)[index]
    same(got, a[index])
    if got.size:
        assert not np.shares_memory(got.asnumpy(), a)


@st.composite
def advanced_index(draw, shape):
    """A tuple of ints / slices / None / Ellipsis with one int index array (list, ndarray or
    Tensor) somewhere; values may be out of range (numpy then raises IndexError)."""
    n = len(shape)
    k = draw(st.integers(1, n))
    items = []
    for axis in range(k):
        d = shape[axis]
        items.append(draw(st.one_of(st.integers(-d - 1, d), st.slices(max(d, 1)))))
    pos = draw(st.integers(0, k - 1))
    d = shape[pos]
    arr = draw(hnp.arrays(np.int64, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0,
                                                     max_side=3),
                          elements=st.integers(-d - 1, d)))
    if arr.ndim == 0:
        arr = arr.reshape(1)
    kind = draw(st.sampled_from(["list", "ndarray", "tensor32", "tensor64"]))
    items[pos] = {"list": arr.tolist(), "ndarray": arr, "tensor32": Tensor(arr.astype(np.int32)),
                  "tensor64": Tensor(arr)}[kind]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), draw(st.sampled_from([None, Ellipsis])))
    return tuple(items)


def _numpy_index(index):
    return tuple(i.asnumpy() if isinstance(i, Tensor) else
                 (np.asarray(i, np.int64) if isinstance(i, list) else i) for i in index)


@with_fixture
@given(a=source(min_dims=1), data=st.data())
def test_getitem_advanced(policy, a, data):
    index = data.draw(advanced_index(a.shape))
    try:
        want = a[_numpy_index(index)]
    except IndexError:
        with pytest.raises(IndexError):
            Tensor.from_numpy(a)[index]
        return
    same(Tensor.from_numpy(a)[index], want)


def test_getitem_examples(policy):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = Tensor(a)
    same(x[0], a[0])
    same(x[1, 1], a[1, 1])
    same(x[:, -1], a[:, -1])
    same(x[..., 0], a[..., 0])
    same(x[::-1, ::-2, 1:3], a[::-1, ::-2, 1:3])
    same(x[None, 1, ..., None], a[None, 1, ..., None])
    same(x[Tensor(1)], a[1])
    same(x[[1, 0, 1]], a[[1, 0, 1]])
    same(x[:, [2, -1]], a[:, [2, -1]])
    same(x[0, :, [1, 2]], a[0, :, [1, 2]])                 # numpy puts the index dims first
    same(x[a > 10], a[a > 10])                             # one MaskedSelect
    same(x[Tensor(np.array([True, False]))], a[np.array([True, False])])
    same(x[[[True, False, True], [False, False, True]]], a[np.array([[1, 0, 1], [0, 0, 1]], bool)])
    assert [t.shape for t in x] == [(3, 4), (3, 4)]
    for _ in range(2):                        # second time: the cached plan and runner
        y = x[1, ::2]
        same(y, a[1, ::2])
        y.asnumpy()[...] = -1                 # results are copies
    same(x, a)


@pytest.mark.parametrize("index, exc", [
    (2, IndexError), (-3, IndexError), ((0, 3), IndexError), ((0, 0, 0, 0), IndexError),
    ((..., ...), IndexError), ([0, 2], IndexError), (slice(None, None, 0), ValueError),
    (np.array([True]), IndexError), (([0], [0]), IndexError), ("a", IndexError),
    (Tensor(np.array([0.5])), IndexError),
])
def test_getitem_errors(index, exc):
    with pytest.raises(exc):
        Tensor(np.zeros((2, 3, 4), np.float32))[index]


@with_fixture
@given(a=source(), data=st.data())
def test_setitem_basic(policy, a, data):
    index = data.draw(hnp.basic_indices(a.shape, allow_newaxis=True))
    a = np.array(a)
    target = a[index].shape
    vshape = data.draw(st.sampled_from([(), target, target[1:], (1,) + target if target
                                                                   else ()]))
    if data.draw(st.booleans()):
        value = data.draw(arrays(a.dtype, vshape))
        v = Tensor(value)
    else:
        value = v = data.draw(st.sampled_from([0, 1, True]))
    x = Tensor(a)
    want = a.copy()
    want[index] = value
    x[index] = v
    same(x, want)


@with_fixture
@given(a=source(min_dims=1), data=st.data())
def test_setitem_advanced(policy, a, data):
    a = np.array(a)
    index = data.draw(advanced_index(a.shape))
    try:
        target = a[_numpy_index(index)].shape
    except IndexError:
        x = Tensor(a)
        with pytest.raises(IndexError):
            x[index] = 0
        same(x, a)
        return
    value = data.draw(arrays(a.dtype, data.draw(st.sampled_from([target, target[-1:], ()]))))
    want = a.copy()
    want[_numpy_index(index)] = value
    x = Tensor(a)
    x[index] = Tensor(value)
    same(x, want)                     # duplicates: the last write wins, as in numpy


def test_setitem_mask_and_examples(policy):
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    x = Tensor(a)
    x[x > 5] = 0
    same(x, np.where(a > 5, 0, a))
    x[Tensor(np.array([True, False, True]))] = Tensor(np.array([9, 8, 7, 6], np.int32))
    assert x.asnumpy()[0].tolist() == [9, 8, 7, 6] and x.asnumpy()[2].tolist() == [9, 8, 7, 6]
    x[1] = 2.7                                             # Python value -> tensor dtype
    assert x.asnumpy()[1].tolist() == [2, 2, 2, 2]
    x[:, [0, -1]] = Tensor(np.array([[1, 2]], np.int8))   # safe cast int8 -> int32
    assert x.asnumpy()[:, 0].tolist() == [1, 1, 1] and x.asnumpy()[:, -1].tolist() == [2, 2, 2]


# MindSpore 2.10's x[0] = Tensor(np.array([3.7, -1.2, 2.0]).astype(value dtype)) on zeros
# (2, 3) of x's dtype: the value is cast to x's dtype whatever the two are (recorded there)
@pytest.mark.parametrize("xd, vd, want", [
    ("float32", "float64", [3.7, -1.2, 2.0]), ("float32", "int32", [3.0, -1.0, 2.0]),
    ("float32", "bool", [1.0, 0.0, 1.0]), ("float32", "uint8", [3.0, 255.0, 2.0]),
    ("float16", "float32", [3.69921875, -1.2001953125, 2.0]), ("int32", "float32", [3, -1, 2]),
    ("int64", "float64", [3, -1, 2]), ("uint8", "int64", [3, 255, 2]),
    ("bool", "float32", [True, True, True]), ("int32", "bool", [1, 0, 1]),
])
def test_setitem_casts_a_tensor_value_to_the_target_dtype(xd, vd, want):
    x = Tensor(np.zeros((2, 3), xd))
    v = np.array([True, False, True]) if vd == "bool" else np.array([3.7, -1.2, 2.0]).astype(vd)
    x[0] = Tensor(v)
    assert x.dtype == Tensor(np.zeros(1, xd)).dtype
    np.testing.assert_allclose(x.asnumpy()[0].astype(np.float64), np.array(want, np.float64),
                               rtol=1e-7)
    assert not x.asnumpy()[1].any()


@pytest.mark.parametrize("index, value, exc, pattern", [
    (0, np.ones(3, np.float32), ValueError, "For 'tensor_setitem'.*broadcast"),
    (slice(None), np.ones((3, 2), np.float32), ValueError, "For 'tensor_setitem'"),
    ([0, 1], np.ones((3, 4), np.float32), ValueError, "For 'tensor_setitem'"),
    (5, np.ones(4, np.float32), IndexError, "out of bounds"),
    ([0, 7], np.ones(4, np.float32), IndexError, "out of bounds"),
    ((0, 0, 0), 1.0, IndexError, "too many indices"),
])
def test_setitem_errors_leave_tensor_unchanged(index, value, exc, pattern):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = Tensor(a)
    v = Tensor(value) if isinstance(value, np.ndarray) else value
    with pytest.raises(exc, match=pattern):
        x[index] = v
    same(x, a)


# ---- StridedSlice ----------------------------------------------------------------------------
def test_strided_slice_tensorflow_examples(policy):
    t = Tensor(np.array([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]],
                         [[5, 5, 5], [6, 6, 6]]], np.int32))
    ss = ops.StridedSlice()
    same(ss(t, (1, 0, 0), (2, 1, 3), (1, 1, 1)), [[[3, 3, 3]]])
    same(ss(t, (1, 0, 0), (2, 2, 3), (1, 1, 1)), [[[3, 3, 3], [4, 4, 4]]])
    same(ss(t, (1, -1, 0), (2, -3, 3), (1, -1, 1)), [[[4, 4, 4], [3, 3, 3]]])
    same(ops.StridedSlice(shrink_axis_mask=3)(t, (1, 1, 0), (2, 2, 3), (1, 1, 1)), [4, 4, 4])
    same(ops.StridedSlice(begin_mask=1, end_mask=1, new_axis_mask=2)(
        t, (0, 0, 1), (0, 0, 2), (-1, 1, 1)), t.asnumpy()[::-1, None, 1:2])
    same(ops.StridedSlice(ellipsis_mask=1, shrink_axis_mask=2)(t, (0, 1), (0, 2), (1, 1)),
         t.asnumpy()[..., 1])
    same(ops.strided_slice(t, (2,), (0,), (-1,)), t.asnumpy()[2:0:-1])


@st.composite
def strided_case(draw):
    shape = draw(shapes(0, 4, 0, 4))
    n = draw(st.integers(0, len(shape) + 2))
    begin = tuple(draw(st.integers(-6, 6)) for _ in range(n))
    end = tuple(draw(st.integers(-6, 6)) for _ in range(n))
    strides = tuple(draw(st.sampled_from([-3, -2, -1, 1, 2, 3])) for _ in range(n))
    masks = tuple(draw(st.integers(0, (1 << n) - 1)) for _ in range(5))
    return shape, begin, end, strides, masks


def _tf_to_numpy(begin, end, strides, masks):
    """TensorFlow's StridedSlice as a numpy index (None if several ellipses)."""
    bm, em, ellipsis, new, shrink = masks
    if ellipsis.bit_count() > 1:
        return None
    index = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        if ellipsis >> i & 1:
            index.append(Ellipsis)
        elif new >> i & 1:
            index.append(None)
        elif shrink >> i & 1:
            index.append(b)
        else:
            index.append(slice(None if bm >> i & 1 else b, None if em >> i & 1 else e, s))
    return tuple(index)


@with_fixture
@given(case=strided_case())
def test_strided_slice_against_numpy(policy, case):
    shape, begin, end, strides, masks = case
    a = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape)
    prim = ops.StridedSlice(*masks)
    index = _tf_to_numpy(begin, end, strides, masks)
    try:
        want = None if index is None else a[index]
    except IndexError:
        want = None
    if want is None:
        with pytest.raises(ValueError, match="For 'StridedSlice'"):
            prim(Tensor(a), begin, end, strides)
    else:
        same(prim(Tensor(a), begin, end, strides), want)


# ---- Slice, Gather, OneHot, Unique, MaskedSelect -----------------------------------------------
@with_fixture
@given(a=source(), data=st.data())
def test_slice(policy, a, data):
    begin = tuple(data.draw(st.integers(0, d)) for d in a.shape)
    size = tuple(data.draw(st.sampled_from([-1, data.draw(st.integers(0, d - b))]))
                 for b, d in zip(begin, a.shape))
    want = a[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))]
    same(ops.Slice()(tensor(a), begin, size), want)
    same(ops.slice(tensor(a), list(begin), list(size)), want)


@with_fixture
@given(a=source(min_dims=1, min_side=1), data=st.data())
def test_gather(policy, a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    d = a.shape[axis]
    idx = data.draw(hnp.arrays(data.draw(st.sampled_from([np.int32, np.int64])),
                               shapes(0, 2), elements=st.integers(0, d - 1)))
    same(ops.Gather()(tensor(a), Tensor(idx), axis), np.take(a, idx, axis=axis))
    same(ops.gather(tensor(a), tensor(noncontig(idx)), axis), np.take(a, idx, axis=axis))
    b = data.draw(st.integers(0, min(a.ndim - 1, 1)))
    if b:
        bidx = data.draw(hnp.arrays(np.int64, a.shape[:1] + (2,), elements=st.integers(0, d - 1)))
        bax = data.draw(st.integers(1, a.ndim - 1))
        bidx = np.minimum(bidx, a.shape[bax] - 1)
        want = np.stack([np.take(a[i], bidx[i], axis=bax - 1) for i in range(a.shape[0])])
        same(ops.gather(tensor(a), Tensor(bidx), bax, batch_dims=1), want)


def test_gather_out_of_range_leaves_everything_unchanged(policy):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x, idx = Tensor(a), Tensor(np.array([0, 3], np.int32))
    with pytest.raises(ValueError, match=r"For 'Gather', the 'input_indices' should be in the "
                                         r"range \[0, 3\), but got 3"):
        ops.Gather()(x, idx, 1)
    with pytest.raises(RuntimeError, match="For 'Gather'"):          # as MindSpore raises it
        ops.gather(x, Tensor(np.array([-3], np.int64)), 0)
    same(x, a)
    same(idx, np.array([0, 3], np.int32))
    out = np.full((2, 2), 7, np.float32)                  # the kernel checks before writing
    with pytest.raises(ValueError, match="For 'Gather'"):
        array_numpy.gather_numpy(a, np.array([0, 3]), out, axis=1, batch_dims=0)
    assert (out == 7).all()


@with_fixture
@given(data=st.data())
def test_one_hot(policy, data):
    depth = data.draw(st.integers(0, 5))
    idx = data.draw(hnp.arrays(st.sampled_from([np.int32, np.int64]), shapes(0, 3),
                               elements=st.integers(-2, 6)))
    axis = data.draw(st.integers(-1, idx.ndim))
    on, off = data.draw(st.sampled_from([(1.0, 0.0), (5, -1), (2.5, 0.5)]))
    hot = np.arange(depth) == idx[..., None]
    want = np.moveaxis(np.where(hot, on, off), -1, axis if axis != -1 else -1)
    got = ops.OneHot(axis)(Tensor(idx), depth, on, off)
    assert got.dtype is (ms.int64 if isinstance(on, int) else ms.float32)
    same(got, want.astype(got.dtype.np))
    same(ops.one_hot(Tensor(idx), depth, Tensor(np.float64(on)), Tensor(np.float64(off)), axis),
         want.astype(np.float64))


@with_fixture
@given(a=source(), data=st.data())
def test_unique_and_masked_select(policy, a, data):
    y, idx = ops.Unique()(tensor(a))
    flat, want_y, want_inv = a.reshape(-1), [], []        # MindSpore's: first-appearance order
    for v in flat:
        hit = [j for j, u in enumerate(want_y) if u == v]   # NaN != NaN: each NaN its own
        want_inv.append(hit[0] if hit else len(want_y))
        if not hit:
            want_y.append(v)
    want_y = np.array(want_y, a.dtype)
    same(y, want_y)
    assert y.shape == want_y.shape and idx.shape == a.shape
    assert idx.dtype is (ms.int64 if a.dtype == np.int64 else ms.int32)
    same(idx, np.array(want_inv, idx.dtype.np).reshape(a.shape))
    mshape = data.draw(st.sampled_from([a.shape, a.shape[1:], (1,) * a.ndim]))
    mask = data.draw(arrays(np.bool_, mshape))
    xb, mb = np.broadcast_arrays(a, mask)
    got = ops.MaskedSelect()(tensor(a), tensor(mask))
    same(got, xb[mb])
    same(ops.masked_select(tensor(a), Tensor(mask)), xb[mb])


def test_dynamic_shape_inference():
    a = abstract_tensor(ms.float32, (2, 3))
    y, idx = ops.Unique().infer(a)
    assert y.shape == (-1,) and y.is_dynamic and idx.shape == (2, 3) and idx.dtype is ms.int32
    out = ops.MaskedSelect().infer(a, abstract_tensor(ms.bool_, (3,)))
    assert out.shape == (-1,) and out.dtype is ms.float32
    y1, _ = ops.unique(Tensor(np.array([2, 2, 1], np.int64)))
    y2, _ = ops.unique(Tensor(np.array([5, 6, 7, 5], np.int64)))      # same runner, new shape
    assert y1.shape == (2,) and y2.shape == (3,)


def test_slice_ops_infer_and_errors():
    a = abstract_tensor(ms.int8, (4, 5))
    assert ops.StridedSlice(shrink_axis_mask=1).infer(a, (1, 0), (2, 5), (1, 2)).shape == (3,)
    assert ops.Gather(1).infer(a, abstract_tensor(ms.int64, (4, 2, 2)), 1).shape == (4, 2, 2)
    assert ops.Slice().infer(a, (1, 1), (-1, 2)).shape == (3, 2)
    assert ops.OneHot(0).infer(abstract_tensor(ms.int32, (3,)), 4,
                               abstract_tensor(ms.float16, ()),
                               abstract_tensor(ms.float16, ())).shape == (4, 3)
    x = Tensor(np.zeros((4, 5), np.float32))
    cases = [
        (lambda: ops.Slice()(x, (0, 0), (5, 1)), ValueError, "For 'Slice'"),
        (lambda: ops.Slice()(x, (0,), (1,)), ValueError, "For 'Slice'.*one value per axis"),
        (lambda: ops.StridedSlice()(x, (0,), (1,), (0,)), ValueError, "For 'StridedSlice'.*0"),
        (lambda: ops.StridedSlice()(x, (0, 0), (1,), (1,)), ValueError, "same length"),
        (lambda: ops.StridedSlice(shrink_axis_mask=1)(x, (4,), (5,), (1,)), ValueError,
         "For 'StridedSlice', the index 4 of axis 0 is out of range"),
        (lambda: ops.Gather()(x, Tensor(np.zeros(2, np.float32)), 0), TypeError,
         "For 'Gather', the type of 'input_indices'"),
        (lambda: ops.Gather()(x, Tensor(np.zeros(2, np.int32)), 2), ValueError,
         "For 'Gather', 'axis' must be in range"),
        (lambda: ops.Gather(2)(x, Tensor(np.zeros(2, np.int32)), 0), ValueError, "batch_dims"),
        (lambda: ops.OneHot()(Tensor(np.zeros(2, np.float32)), 2, 1.0, 0.0), TypeError,
         "For 'OneHot', the type of 'indices'"),
        (lambda: ops.OneHot()(Tensor(np.zeros(2, np.int32)), -1, 1.0, 0.0), ValueError,
         "For 'OneHot', 'depth'"),
        (lambda: ops.MaskedSelect()(x, Tensor(np.zeros(3, bool))), ValueError,
         "For 'MaskedSelect', x.shape and mask.shape need to broadcast"),
        (lambda: ops.MaskedSelect()(x, x), TypeError, "For 'MaskedSelect', the type of 'mask'"),
    ]
    for call, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            call()
