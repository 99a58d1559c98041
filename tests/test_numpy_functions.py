"""mindlite.numpy against numpy with hypothesis (0-d, empty, broadcast, non-contiguous,
NaN/inf), exact edge values, errors naming the function, and float64 finite-difference
gradients of the differentiable families. MindSpore's own results for one call of every
function are checked in test_numpy_mindspore.py."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
import mindlite.numpy as mnp
from mindlite import Tensor

from gradcheck import check_grad
from helpers import arrays, assert_close, broadcast_pairs, noncontig, shapes, tensor

SETTINGS = settings(max_examples=25, deadline=None)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum",
                                  "equal", "less", "greater_equal", "logical_and",
                                  "logical_xor"])
@SETTINGS
@given(data=st.data())
def test_binary_matches_numpy(name, data):
    sa, sb = data.draw(broadcast_pairs(max_dims=3))
    a = data.draw(arrays(np.float32, sa))
    b = data.draw(arrays(np.float32, sb))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b)
    assert_close(getattr(mnp, name)(tensor(noncontig(a)), tensor(b)), want)


@pytest.mark.parametrize("name", ["divide", "floor_divide", "remainder", "fmod"])
@SETTINGS
@given(data=st.data())
def test_division_family_matches_numpy(name, data):
    sa, sb = data.draw(broadcast_pairs(max_dims=3))
    a = data.draw(arrays(np.float64, sa, allow_special=False))
    b = data.draw(arrays(np.float64, sb, allow_special=False, min_value=0.5, max_value=9))
    assert_close(getattr(mnp, name)(tensor(a), tensor(b)), getattr(np, name)(a, b))


@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "sin", "cos", "tanh", "floor", "ceil",
                                  "rint", "cbrt", "deg2rad", "rad2deg", "square", "absolute",
                                  "negative", "sign", "reciprocal"])
@SETTINGS
@given(a=arrays(np.float32, shapes(max_dims=3)))
def test_unary_matches_numpy(name, a):
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a)
    assert_close(getattr(mnp, name)(tensor(noncontig(a))), want, rtol=2e-6, atol=1e-6)


def test_int_inputs_follow_mindspore_dtypes():
    i = Tensor(np.array([[1, 2], [3, 4]], np.int32))
    assert mnp.sqrt(i).dtype == ms.float32            # transcendental: ints in float32
    assert mnp.divide(i, i).dtype == ms.float32
    assert mnp.sum(i).dtype == ms.int64 and mnp.mean(i).dtype == ms.int32
    assert mnp.var(i).dtype == ms.float32 and mnp.argmin(i).dtype == ms.int32
    assert mnp.array([1, 2]).dtype == ms.int32 and mnp.array([1.0]).dtype == ms.float32
    assert mnp.add(1, 2).dtype == ms.int32 and mnp.arange(3).dtype == ms.int32


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "std", "var", "ptp",
                                  "nansum", "nanmean", "nanmax", "count_nonzero"])
@SETTINGS
@given(data=st.data())
def test_reductions_match_numpy(name, data):
    a = data.draw(arrays(np.float64, shapes(min_dims=1, max_dims=3, min_side=1),
                         allow_special=name.startswith("nan")))
    axis = data.draw(st.sampled_from([None] + list(range(-a.ndim, a.ndim))))
    keep = data.draw(st.booleans())
    kw = {} if name == "count_nonzero" or name.startswith("nan") and name != "nansum" \
        else {"keepdims": keep}
    with np.errstate(all="ignore"), _quiet():
        want = getattr(np, name)(a, axis=axis, **kw)
    got = getattr(mnp, name)(tensor(a), axis=axis, **kw)
    if name == "count_nonzero":
        want = np.asarray(want).astype(np.int32)
    assert_close(got, np.asarray(want, got.asnumpy().dtype))


class _quiet:
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap",
                                  "maximum", "minimum", "mean", "median", "linear_ramp"])
@SETTINGS
@given(a=arrays(np.float64, shapes(min_dims=1, max_dims=3, min_side=2, max_side=4),
                allow_special=False), width=st.integers(0, 3))
def test_pad_matches_numpy(mode, a, width):
    kw = {"constant_values": 7} if mode == "constant" else \
        {"end_values": -2} if mode == "linear_ramp" else {}
    assert_close(mnp.pad(tensor(a), ((width, 1),) + ((1, width),) * (a.ndim - 1), mode, **kw),
                 np.pad(a, ((width, 1),) + ((1, width),) * (a.ndim - 1), mode, **kw))


@SETTINGS
@given(a=arrays(np.float64, shapes(min_dims=2, max_dims=3, min_side=1), allow_special=False),
       k=st.integers(-3, 3))
def test_matrix_functions_match_numpy(a, k):
    t = tensor(a)
    assert_close(mnp.diagonal(t, k), np.diagonal(a, k))
    assert_close(mnp.trace(t, k), np.asarray(np.trace(a, k)))
    assert_close(mnp.tril(t, k), np.tril(a, k))
    assert_close(mnp.rot90(t, k), np.rot90(a, k))
    assert_close(mnp.roll(t, k), np.roll(a, k))
    assert_close(mnp.roll(t, k, 1), np.roll(a, k, 1))
    assert_close(mnp.flip(t), np.flip(a))
    assert_close(mnp.swapaxes(t, 0, -1), np.swapaxes(a, 0, -1))
    assert_close(mnp.rollaxis(t, -1), np.rollaxis(a, -1))
    assert_close(mnp.diag(t[0], k), np.diag(a[0], k))
    assert_close(mnp.take(t, Tensor(np.array([0, -1, 2], np.int32)), 0, mode="wrap"),
                 np.take(a, [0, -1, 2], 0, mode="wrap"))


@SETTINGS
@given(a=arrays(np.float64, shapes(min_dims=1, max_dims=2, min_side=1, max_side=4),
                allow_special=False),
       b=arrays(np.float64, shapes(min_dims=1, max_dims=2, min_side=1, max_side=4),
                allow_special=False))
def test_products_match_numpy(a, b):
    assert_close(mnp.kron(tensor(a), tensor(b)), np.kron(a, b))
    assert_close(mnp.outer(tensor(a), tensor(b)), np.outer(a, b))
    if a.shape[-1] == b.shape[0]:
        assert_close(mnp.dot(tensor(a), tensor(b)), np.asarray(np.dot(a, b)))
    if a.shape[-1] == b.shape[-1]:
        assert_close(mnp.inner(tensor(a), tensor(b)), np.asarray(np.inner(a, b)))
    if a.ndim == 1 and b.ndim == 1:
        for mode in ("full", "same", "valid"):
            assert_close(mnp.convolve(tensor(a), tensor(b), mode), np.convolve(a, b, mode))
            assert_close(mnp.correlate(tensor(a), tensor(b), mode),
                         np.correlate(a, b, mode))
        if a[0] != 0 and b[0] != 0:                # numpy's poly1d trims leading zeros
            assert_close(mnp.polymul(tensor(a), tensor(b)), np.polymul(a, b))
        assert_close(mnp.polyval(tensor(a), tensor(b)), np.polyval(a, b))


def test_tensordot_cross_and_polynomials():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 3, 5))
    assert_close(mnp.tensordot(tensor(a), tensor(b), ((1, 2), (1, 0))),
                 np.tensordot(a, b, ((1, 2), (1, 0))))
    u, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    assert_close(mnp.cross(tensor(u), tensor(v)), np.cross(u, v))
    assert_close(mnp.cross(tensor(u[:, :2]), tensor(v)), np.cross(u[:, :2], v))
    p = np.array([3.0, -2.0, 0.5, 1.0])
    assert_close(mnp.polyder(tensor(p), 2), np.polyder(p, 2))
    assert_close(mnp.polyint(tensor(p), 2, k=[1.0, 2.0]), np.polyint(p, 2, k=[1.0, 2.0]))
    assert_close(mnp.polyadd(tensor(p), tensor(p[:2])), np.polyadd(p, p[:2]))


@SETTINGS
@given(a=arrays(np.float64, shapes(min_dims=1, max_dims=1, min_side=1, max_side=12),
                allow_special=False),
       bins=st.integers(1, 5))
def test_histograms_and_searching_match_numpy(a, bins):
    counts, edges = mnp.histogram(tensor(a), bins)
    want_c, want_e = np.histogram(a.astype(np.float32), bins)
    span = float(np.ptp(a.astype(np.float32))) or 1.0      # float32 edges near 0: absolute
    np.testing.assert_allclose(edges.asnumpy(), want_e, rtol=1e-6, atol=1e-6 * span)
    np.testing.assert_array_equal(counts.asnumpy(), want_c.astype(np.float32))
    s = np.sort(a)
    for side in ("left", "right"):
        assert_close(mnp.searchsorted(tensor(s), tensor(a), side),
                     np.searchsorted(s, a, side).astype(np.int32))
    assert_close(mnp.digitize(tensor(a), tensor(s)), np.digitize(a, s).astype(np.int32))
    xp = np.unique(a)
    fp = np.arange(xp.size, dtype=np.float64)
    x = np.linspace(a.min() - 1, a.max() + 1, 7)
    assert_close(mnp.interp(tensor(x), tensor(xp), tensor(fp)), np.interp(x, xp, fp))


def test_sets_keep_mindspore_order():
    x = Tensor(np.array([3, 1, 3, 2, 1], np.int32))
    u, inv = mnp.unique(x, return_inverse=True)
    assert u.asnumpy().tolist() == [3, 1, 2]                 # first appearance, as MindSpore
    assert inv.asnumpy().tolist() == [0, 1, 0, 2, 1]
    assert mnp.in1d(x, Tensor(np.array([1, 7], np.int32))).asnumpy().tolist() == \
        [False, True, False, False, True]
    assert mnp.intersect1d(x, Tensor(np.array([2, 3, 9], np.int32))).asnumpy().tolist() == [2, 3]
    assert mnp.setdiff1d(x, Tensor(np.array([2], np.int32))).asnumpy().tolist() == [1, 3]
    assert mnp.unique(Tensor(np.zeros((0,), np.float32))).shape == (0,)


@SETTINGS
@given(a=arrays(np.float64, shapes(min_dims=1, max_dims=2, min_side=2, max_side=5),
                allow_special=False))
def test_differences_and_statistics_match_numpy(a):
    t = tensor(a)
    assert_close(mnp.diff(t, 1, 0), np.diff(a, 1, 0))
    assert_close(mnp.diff(t, prepend=0.0), np.diff(a, prepend=0.0))
    assert_close(mnp.ediff1d(t, to_begin=0.0), np.ediff1d(a, to_begin=0.0))
    assert_close(mnp.trapz(t), np.asarray(np.trapz(a) if hasattr(np, "trapz")
                                          else np.trapezoid(a)))
    assert_close(mnp.unwrap(t * 4), np.unwrap(a * 4))
    g = mnp.gradient(t)
    want = np.gradient(a)
    for got, w in zip(g if isinstance(g, tuple) else (g,), want if a.ndim > 1 else (want,)):
        assert_close(got, w)
    if a.ndim == 2:
        assert_close(mnp.cov(t), np.cov(a))
        assert_close(mnp.cov(t, rowvar=False, bias=True), np.cov(a, rowvar=False, bias=True))


def test_splitting_stacking_and_grids():
    a = np.arange(24.0).reshape(4, 6)
    t = tensor(a)
    for got, want in zip(mnp.array_split(t, 4, 1), np.array_split(a, 4, 1)):
        assert_close(got, want)
    for got, want in zip(mnp.split(t, [1, 3]), np.split(a, [1, 3])):
        assert_close(got, want)
    assert_close(mnp.hstack((t, t)), np.hstack((a, a)))
    assert_close(mnp.dstack((t, t)), np.dstack((a, a)))
    assert_close(mnp.column_stack((t[0], t[1])), np.column_stack((a[0], a[1])))
    assert_close(mnp.atleast_3d(t[0]), np.atleast_3d(a[0]))
    assert_close(mnp.mgrid[0:2, 0:3][1], np.mgrid[0:2, 0:3][1].astype(np.int32))
    assert_close(mnp.meshgrid(t[0], t[1, :3])[0], np.meshgrid(a[0], a[1, :3])[0])
    assert_close(mnp.ravel_multi_index((Tensor(np.array([1, 3], np.int32)),
                                        Tensor(np.array([2, 5], np.int32))), (4, 6)),
                 np.ravel_multi_index(([1, 3], [2, 5]), (4, 6)).astype(np.int32))
    assert_close(mnp.unravel_index(Tensor(np.array([7, 23], np.int32)), (4, 6))[1],
                 np.unravel_index([7, 23], (4, 6))[1].astype(np.int32))
    assert_close(mnp.take_along_axis(t, Tensor(np.array([[0], [5], [1], [2]], np.int32)), 1),
                 np.take_along_axis(a, np.array([[0], [5], [1], [2]]), 1))
    assert_close(mnp.choose(Tensor(np.array([0, 1, 0], np.int32)), [t[0, :3], t[1, :3]]),
                 np.choose([0, 1, 0], [a[0, :3], a[1, :3]]))


def test_bitwise_and_edges():
    i, j = np.array([12, -7, 0], np.int32), np.array([10, 3, 5], np.int32)
    assert_close(mnp.bitwise_and(tensor(i), tensor(j)), i & j)
    assert_close(mnp.bitwise_xor(tensor(i), 6), i ^ 6)
    assert_close(mnp.invert(tensor(i)), ~i)
    assert_close(mnp.gcd(tensor(i), tensor(j)), np.gcd(i, j))
    assert_close(mnp.lcm(tensor(i), tensor(j)), np.lcm(i, j))
    z = np.array([-0.0, 0.0, -2.0, np.nan], np.float32)
    assert mnp.signbit(tensor(z)).asnumpy().tolist() == [True, False, True, False]
    assert_close(mnp.heaviside(tensor(z), 0.5), np.heaviside(z, np.float32(0.5)))
    assert_close(mnp.copysign(tensor(np.array([1.0, 2.0], np.float32)),
                              tensor(np.array([-0.0, 3.0], np.float32))),
                 np.array([-1.0, 2.0], np.float32))


def test_errors_name_the_function():
    with pytest.raises(ValueError, match="mindlite.numpy.split"):
        mnp.split(Tensor(np.zeros(5, np.float32)), 2)
    with pytest.raises(ValueError, match="mindlite.numpy.pad"):
        mnp.pad(Tensor(np.zeros(3, np.float32)), 1, "bogus")


def test_float_gcd_lcm_as_mindspore():
    """MindSpore 2.10's values (its Euclid loop on floats)."""
    a, b = Tensor(np.array([6.0, 0.0, -4.5, 12.0])), Tensor(np.array([4.0, 5.0, 1.5, 0.0]))
    np.testing.assert_array_equal(mnp.gcd(a, b).asnumpy(), [2.0, 5.0, 1.5, 12.0])
    np.testing.assert_array_equal(mnp.lcm(a, b).asnumpy(), [12.0, 0.0, 4.5, 0.0])
    flags = Tensor(np.array([True, False]))
    assert mnp.gcd(flags, flags).dtype == ms.bool_
    np.testing.assert_array_equal(mnp.gcd(Tensor(np.array([4, 6])), 4.0).asnumpy(), [4.0, 2.0])

    @ms.jit
    def graph_gcd(u, v):
        return mnp.gcd(u, v)
    np.testing.assert_array_equal(graph_gcd(a, b).asnumpy(), [2.0, 5.0, 1.5, 12.0])
    with pytest.raises(ValueError, match="'SearchSorted'"):
        ms.ops.SearchSorted()(Tensor(np.zeros((2, 3), np.float32)),
                              Tensor(np.zeros((3, 3), np.float32)))


@pytest.mark.parametrize("fn, shapes_", [
    (lambda a, b: mnp.kron(a, b), [(2, 2), (2, 3)]),
    (lambda a, b: mnp.tensordot(a, b, 1), [(2, 3), (3, 2)]),
    (lambda a, b: mnp.cross(a, b), [(2, 3), (2, 3)]),
    (lambda a, b: mnp.convolve(a, b), [(4,), (3,)]),
    (lambda a: mnp.pad(a, 2, "reflect"), [(3, 4)]),
    (lambda a: mnp.pad(a, 1, "mean"), [(3, 4)]),
    (lambda a: mnp.diag(a, 1), [(3,)]),
    (lambda a: mnp.trace(a, -1), [(3, 4)]),
    (lambda a: mnp.var(a, 1, ddof=1), [(3, 4)]),
    (lambda a: mnp.cbrt(a), [(2, 3)]),
    (lambda a: mnp.take(a, Tensor(np.array([2, 0, 9], np.int32))), [(2, 3)]),
    (lambda a: mnp.cov(a), [(2, 4)]),
    (lambda a: mnp.gradient(a), [(5,)]),
    (lambda a, b: mnp.interp(Tensor(np.array([0.5, 1.5], np.float64)),
                             Tensor(np.array([0.0, 1.0, 2.0])), b), [(2,), (3,)]),
    (lambda a: mnp.amax(a, 1, initial=0.5), [(3, 4)]),
])
def test_gradients(fn, shapes_):
    rng = np.random.default_rng(1)
    check_grad(fn, *[rng.uniform(0.5, 2.0, s) for s in shapes_])
