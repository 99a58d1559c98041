"""Gradients of the array, creation, slice and scatter primitives (array_ops, creation_ops,
slice_ops, scatter_ops): float64 finite-difference checks of every differentiable primitive
on hypothesis inputs (0-d, empty, negative axes, negative strides, repeated gather indices,
broadcast masks); the scatter primitives' forward against numpy; second-order gradients
(grad of functions that call mindlite.grad or a vjp); every primitive has a bprop or a
non-differentiable mark."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcheck import check_grad

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.kernels.registry import kernels_for
from mindlite.ops.operations import array_ops, creation_ops, scatter_ops, slice_ops
from mindlite.ops.primitive import Primitive
from mindlite.pynative.grad import BPROPS, NON_DIFFERENTIABLE

F64 = np.float64
FEW = settings(max_examples=15)
any_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)
full_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)


def arr(shape):
    return hnp.arrays(F64, shape, elements=st.floats(-2, 2, allow_nan=False, allow_infinity=False))


def grad_check(fn, *arrays, **kw):
    """check_grad; for an empty float input (nothing to difference) the analytic gradient
    must still come back with the input's shape and dtype."""
    arrays = [np.asarray(a) for a in arrays]
    if any(a.dtype.kind == "f" and a.size == 0 for a in arrays):
        grads = ops.GradOperation(get_all=True)(fn)(*[Tensor(a) for a in arrays])
        for a, g in zip(arrays, grads):
            assert g.shape == a.shape and g.dtype == ms.float64
        return
    check_grad(fn, *arrays, **kw)


def vjp(fn):
    """(x, s) -> the gradient of sum(fn(x) * s): differentiating it runs fn's bprop's bprops."""
    g = ops.GradOperation(sens_param=True)(fn)
    return lambda x, s: g(x, s)


# ---- shape ops -------------------------------------------------------------------------------
@given(st.data())
def test_reshape_grad(data):
    shape = data.draw(any_shapes)
    x = data.draw(arr(shape))
    target = data.draw(st.sampled_from([(-1,), tuple(reversed(shape)), (1,) + shape + (1,)]))
    grad_check(lambda x: ops.Reshape()(x, target), x)
    grad_check(lambda x: ops.Reshape()(x, list(target)), x)


@given(st.data())
def test_transpose_grad(data):
    shape = data.draw(any_shapes)
    x = data.draw(arr(shape))
    perm = data.draw(st.permutations(range(len(shape))))
    perm = tuple(p - len(shape) if data.draw(st.booleans()) else p for p in perm)
    grad_check(lambda x: ops.Transpose()(x, perm), x)


@given(st.data())
def test_expand_dims_squeeze_flatten_grad(data):
    shape = data.draw(any_shapes)
    x = data.draw(arr(shape))
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    grad_check(lambda x: ops.ExpandDims()(x, axis), x)
    grad_check(lambda x: ops.Squeeze()(ops.ExpandDims()(x, axis)), x)
    grad_check(lambda x: ops.Squeeze(axis)(ops.ExpandDims()(x, axis)), x)
    if shape:
        grad_check(lambda x: ops.Flatten()(x), x)


@given(st.data())
def test_concat_grad(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    xs = []
    for n in sizes:
        s = list(shape)
        s[axis] = n
        xs.append(data.draw(arr(tuple(s))))
    grad_check(lambda *xs: ops.Concat(axis)(list(xs)), *xs)
    grad_check(lambda *xs: ops.Concat(axis)(tuple(xs)), *xs)


def test_concat_stack_same_tensor_twice_accumulates():
    x = np.arange(6.0).reshape(2, 3)
    g = ms.grad(lambda x: ops.ReduceSum()(ops.Concat(1)([x, x, x])))(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), np.full((2, 3), 3.0))
    g = ms.grad(lambda x: ops.ReduceSum()(ops.Stack(0)([x, x])))(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), np.full((2, 3), 2.0))
    check_grad(lambda x: ops.Concat(0)([x, ops.Reshape()(x, (2, 3)) * x]), x)


@given(st.data())
def test_stack_grad(data):
    shape = data.draw(any_shapes)
    n = data.draw(st.integers(1, 3))
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    xs = [data.draw(arr(shape)) for _ in range(n)]
    grad_check(lambda *xs: ops.Stack(axis)(list(xs)), *xs)


@given(st.data())
def test_split_grad(data):
    shape = list(data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3)))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.integers(1, 3))
    shape[axis] *= n
    x = data.draw(arr(tuple(shape)))
    grad_check(lambda x: ops.Split(axis, n)(x), x)                    # every output used
    used = data.draw(st.integers(0, n - 1))
    grad_check(lambda x: ops.Split(axis, n)(x)[used], x)              # the others get zeros


def test_split_unused_outputs_get_zero_gradient():
    x = np.arange(6.0).reshape(3, 2)
    g = ms.grad(lambda x: ops.ReduceSum()(ops.Split(0, 3)(x)[1]))(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), [[0, 0], [1, 1], [0, 0]])


@given(st.data())
def test_tile_grad(data):
    shape = data.draw(any_shapes)
    x = data.draw(arr(shape))
    k = data.draw(st.integers(0, 1))
    m = data.draw(st.lists(st.integers(0, 2), min_size=len(shape) + k, max_size=len(shape) + k))
    grad_check(lambda x: ops.Tile()(x, tuple(m)), x)


@given(st.data())
def test_broadcast_to_grad(data):
    shape = data.draw(any_shapes)
    x = data.draw(arr(shape))
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = [d if d != 1 else data.draw(st.sampled_from([1, 2, 3, -1])) for d in shape]
    target = [-1 if d != 1 and data.draw(st.booleans()) else d for d in target]
    grad_check(lambda x: ops.BroadcastTo(tuple(lead + target))(x), x)


@given(arr(any_shapes))
def test_cast_grad(x):
    grad_check(lambda x: ops.Cast()(x, ms.float64), x)
    # through float32: central differences with a large step (the function is linear)
    grad_check(lambda x: ops.Cast()(ops.Cast()(x, ms.float32), ms.float64), x, eps=1e-2,
               rtol=1e-4, atol=1e-6)


def test_cast_gradient_dtype_and_int_paths():
    x = Tensor(np.array([1.5, -2.5]))
    g = ms.grad(lambda x: ops.ReduceSum()(ops.Cast()(x, ms.float32)))(x)
    assert g.dtype == ms.float64
    np.testing.assert_array_equal(g.asnumpy(), [1.0, 1.0])
    # float -> int -> float is piecewise constant: no gradient flows back through the int
    g = ms.grad(lambda x: ops.ReduceSum()(ops.Cast()(ops.Cast()(x, ms.int32), ms.float64)))(x)
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 0.0])
    # an int input of a differentiated function gets a zero gradient
    gx, gk = ops.GradOperation(get_all=True)(
        lambda x, k: ops.ReduceSum()(x * ops.Cast()(k, ms.float64)))(x, Tensor(np.array([2, 3])))
    np.testing.assert_array_equal(gx.asnumpy(), [2.0, 3.0])
    np.testing.assert_array_equal(gk.asnumpy(), [0, 0])


# ---- slicing and gathering -------------------------------------------------------------------
@given(st.data())
def test_slice_grad(data):
    shape = data.draw(any_shapes)
    x = data.draw(arr(shape))
    begin, size = [], []
    for d in shape:
        b = data.draw(st.integers(0, d))
        begin.append(b)
        size.append(data.draw(st.sampled_from([-1, data.draw(st.integers(0, d - b))])))
    grad_check(lambda x: ops.Slice()(x, tuple(begin), tuple(size)), x)
    grad_check(lambda x: ops.Slice()(x, Tensor(np.array(begin, np.int64)), list(size)), x)


@given(st.data())
def test_strided_slice_grad(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    x = data.draw(arr(shape))
    n = len(shape)
    begin = [data.draw(st.integers(-d - 1, d + 1)) for d in shape]
    end = [data.draw(st.integers(-d - 1, d + 1)) for d in shape]
    strides = [data.draw(st.sampled_from([-3, -2, -1, 1, 2, 3])) for _ in shape]
    bm, em = data.draw(st.integers(0, 2 ** n - 1)), data.draw(st.integers(0, 2 ** n - 1))
    fn = lambda x: ops.StridedSlice(bm, em)(x, tuple(begin), tuple(end), tuple(strides))  # noqa
    want = x[tuple(slice(None if bm >> i & 1 else b, None if em >> i & 1 else e, s)
                   for i, (b, e, s) in enumerate(zip(begin, end, strides)))]
    np.testing.assert_array_equal(fn(Tensor(x)).asnumpy(), want)
    grad_check(fn, x)


@pytest.mark.parametrize("masks,begin,end,strides", [
    ((0, 0, 0, 0, 0b010), (0, 1, 0), (2, 2, 4), (1, 1, -1)),     # shrink the middle axis
    ((0, 0, 0b001, 0, 0), (0, 1), (0, 3), (1, -1)),              # ..., last axis reversed
    ((0, 0, 0b010, 0b001, 0), (0, 0, 2), (1, 0, 0), (1, 1, -2)),  # new axis, ..., reversed
    ((0b111, 0b111, 0, 0, 0), (9, 9, 9), (0, 0, 0), (-1, -2, -3)),  # masked full range
    ((0, 0, 0, 0, 0b101), (-1, 0, -2), (0, 3, 0), (1, 2, 1)),    # two shrinks
])
def test_strided_slice_masks_grad(masks, begin, end, strides):
    x = np.arange(24.0).reshape(2, 3, 4) / 7
    check_grad(lambda x: ops.StridedSlice(*masks)(x, begin, end, strides), x)


def test_tensor_indexing_grad():
    x = np.arange(24.0).reshape(2, 3, 4) / 5
    check_grad(lambda x: x[1, ::-2, None, 1:], x)
    check_grad(lambda x: x[..., Tensor(np.array([3, 0, 3]))], x)
    mask = Tensor(x > 2.1)
    check_grad(lambda x: x[mask], x)


@given(st.data())
def test_gather_grad_repeated_indices(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    x = data.draw(arr(shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    ishape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4))
    idx = data.draw(hnp.arrays(data.draw(st.sampled_from([np.int32, np.int64])), ishape,
                               elements=st.integers(0, shape[axis] - 1)))
    grad_check(lambda x: ops.Gather()(x, Tensor(idx), axis), x)


def test_gather_repeated_indices_accumulate_exactly():
    x = Tensor(np.zeros((2, 3)))
    idx = Tensor(np.array([[2, 2], [0, 2]], np.int32))
    g = ms.grad(lambda x: ops.ReduceSum()(ops.Gather()(x, idx, 1)))(x)
    np.testing.assert_array_equal(g.asnumpy(), [[1, 0, 3], [1, 0, 3]])


@given(st.data())
def test_gather_batch_dims_grad(data):
    b = data.draw(st.integers(1, 2))
    shape = data.draw(hnp.array_shapes(min_dims=b + 1, max_dims=b + 2, min_side=1, max_side=3))
    axis = data.draw(st.integers(b, len(shape) - 1))
    # NOTE: min_dims=1: the forward Gather kernel fails when each batch gathers a scalar
    ishape = shape[:b] + data.draw(hnp.array_shapes(min_dims=1, max_dims=1, max_side=3))
    x = data.draw(arr(shape))
    idx = data.draw(hnp.arrays(np.int32, ishape, elements=st.integers(0, shape[axis] - 1)))
    grad_check(lambda x: ops.Gather(b)(x, Tensor(idx), axis), x)


@given(st.data())
def test_masked_select_grad(data):
    sx, sm = data.draw(hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=3).map(lambda b: b.input_shapes))
    x = data.draw(arr(sx))
    mask = data.draw(hnp.arrays(np.bool_, sm))
    grad_check(lambda x: ops.MaskedSelect()(x, Tensor(mask)), x)


# ---- the scatter primitives (gradients of slicing) --------------------------------------------
def test_strided_slice_grad_primitive():
    dy = np.arange(6.0).reshape(2, 3)
    got = scatter_ops.StridedSliceGrad()(Tensor(dy), (3, 5), (2, 4), (0, 1), (-1, -1)).asnumpy()
    want = np.zeros((3, 5))
    want[2:0:-1, 4:1:-1] = dy
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="For 'StridedSliceGrad', 'dy' must have the shape"):
        scatter_ops.StridedSliceGrad()(Tensor(dy), (3, 5), (0, 0), (3, 3), (1, 1))
    with pytest.raises(ValueError, match="For 'StridedSliceGrad', 'shapex'"):
        scatter_ops.StridedSliceGrad()(Tensor(dy), (-3, 5), (0, 0), (2, 3), (1, 1))
    check_grad(lambda d: scatter_ops.StridedSliceGrad(0, 0, 0, 0, 1)(d, (3, 5), (1, 0), (2, 5),
                                                                       (1, 2)), dy[0])


def test_unsorted_segment_sum_primitive():
    x = np.arange(12.0).reshape(3, 4)
    ids = np.array([2, -1, 2], np.int32)
    got = scatter_ops.UnsortedSegmentSum()(Tensor(x), Tensor(ids), 4).asnumpy()
    want = np.zeros((4, 4))
    want[2] = x[0] + x[2]                 # id -1 is dropped
    np.testing.assert_array_equal(got, want)
    got = scatter_ops.UnsortedSegmentSum()(Tensor(x), Tensor(np.array([[0, 1, 1, 5]] * 3)), 2)
    np.testing.assert_array_equal(got.asnumpy(), [x[:, 0].sum(), x[:, 1:3].sum()])
    with pytest.raises(ValueError, match="For 'UnsortedSegmentSum', the shape of 'segment_ids'"):
        scatter_ops.UnsortedSegmentSum()(Tensor(x), Tensor(np.array([0, 1], np.int32)), 2)
    with pytest.raises(TypeError, match="For 'UnsortedSegmentSum', the type of 'segment_ids'"):
        scatter_ops.UnsortedSegmentSum()(Tensor(x), Tensor(np.array([0., 1., 1.])), 2)
    check_grad(lambda x: scatter_ops.UnsortedSegmentSum()(x, Tensor(ids), 3), x)
    check_grad(lambda x: scatter_ops.UnsortedSegmentSum()(x, Tensor(np.array([[0, 3]])), 2),
               x[:1, :2])


def test_masked_select_grad_primitive():
    x, mask = np.zeros((2, 3)), np.array([True, False, True])
    got = scatter_ops.MaskedSelectGrad()(Tensor(x[:1]), Tensor(mask), Tensor(np.arange(2.0)))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 0, 1]])
    got = scatter_ops.MaskedSelectGrad()(Tensor(x), Tensor(mask), Tensor(np.arange(4.0)))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 0, 1], [2, 0, 3]])
    with pytest.raises(ValueError, match="For 'MaskedSelectGrad', 'grad' must have one value"):
        scatter_ops.MaskedSelectGrad()(Tensor(x), Tensor(mask), Tensor(np.arange(3.0)))
    with pytest.raises(ValueError, match="For 'MaskedSelectGrad', 'grad' must be 1-D"):
        scatter_ops.MaskedSelectGrad()(Tensor(x), Tensor(mask), Tensor(x))
    check_grad(lambda g: scatter_ops.MaskedSelectGrad()(Tensor(x), Tensor(mask), g),
               np.arange(4.0))


# ---- second order ----------------------------------------------------------------------------
@FEW
@given(st.data())
def test_reshape_transpose_second_order(data):
    shape = data.draw(full_shapes)
    x = data.draw(arr(shape))
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    target = tuple(reversed(shape))

    def f(x):
        y = ops.Transpose()(ops.Reshape()(x, target), perm[::-1] if len(shape) else ())
        return ops.ReduceSum()(y * y * y)
    check_grad(lambda x: ms.grad(f)(x), x)
    s = data.draw(arr(tuple(shape[p] for p in perm)))
    check_grad(vjp(lambda x: ops.Transpose()(x, perm)), x, s)
    check_grad(vjp(lambda x: ops.Reshape()(x, target)), x, data.draw(arr(target)))


IDX = Tensor(np.array([[0, 2], [2, 2]], np.int32))
MASK = Tensor(np.array([True, False, True, True]))


@pytest.mark.parametrize("fn,out_shape", [
    (lambda x: ops.ExpandDims()(x, 1), (2, 1, 3, 4)),
    (lambda x: ops.Flatten()(x), (2, 12)),
    (lambda x: ops.Tile()(x, (2, 1, 1, 3)), (2, 2, 3, 12)),
    (lambda x: ops.BroadcastTo((2, 2, 3, 4))(x), (2, 2, 3, 4)),
    (lambda x: ops.Concat(1)([x, x[:, :1]]), (2, 4, 4)),
    (lambda x: ops.Stack(-1)([x, x]), (2, 3, 4, 2)),
    (lambda x: ops.Split(2, 2)(x)[1], (2, 3, 2)),
    (lambda x: ops.Cast()(x, ms.float64), (2, 3, 4)),
    (lambda x: ops.Slice()(x, (0, 1, 1), (-1, 2, 2)), (2, 2, 2)),
    (lambda x: ops.StridedSlice(0, 0, 0, 0, 1)(x, (1, -1, 3), (0, 0, 0), (1, -2, -1)), (1, 3)),
    (lambda x: ops.Gather()(x, IDX, 1), (2, 2, 2, 4)),
    (lambda x: ops.Gather(1)(x, IDX, 1), (2, 2, 4)),
    (lambda x: ops.MaskedSelect()(x, MASK), (18,)),
])
def test_vjp_is_differentiable(fn, out_shape):
    rng = np.random.default_rng(1)
    check_grad(vjp(fn), rng.standard_normal((2, 3, 4)), rng.standard_normal(out_shape))


# ---- non-differentiable ops and completeness ---------------------------------------------------
def test_non_differentiable_ops_pass_no_gradient():
    x = Tensor(np.array([3.0, 1.0, 3.0]))

    def f(x):
        z = ops.ZerosLike()(x) + ops.OnesLike()(x) * 5.0
        hot = ops.OneHot()(Tensor(np.array([0, 2], np.int32)), 3, x[0], x[1])
        return x * 2 + z + ops.ReduceSum()(hot)
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), [2.0, 2.0, 2.0])
    assert ops.Shape()(x) == (3,)


FAMILIES = [array_ops, creation_ops, slice_ops, scatter_ops]


@pytest.mark.parametrize("module", FAMILIES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_primitive_has_a_bprop_or_is_non_differentiable(module):
    prims = [c for c in vars(module).values() if isinstance(c, type) and issubclass(c, Primitive)
             and c.__module__ == module.__name__ and not c.__name__.startswith("_")]
    assert prims
    missing = [c.__name__ for c in prims if c not in BPROPS and c not in NON_DIFFERENTIABLE]
    assert not missing, f"no bprop and no non-differentiable mark: {missing}"
    both = [c.__name__ for c in prims if c in BPROPS and c in NON_DIFFERENTIABLE]
    assert not both
    no_kernel = [c.__name__ for c in prims
                 if not c.constant_folded and not any(k.provider == "numpy"
                                                      for k in kernels_for(c.__name__))]
    assert not no_kernel, f"no numpy kernel: {no_kernel}"
