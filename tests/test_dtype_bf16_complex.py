"""bfloat16 and complex64/complex128 tensors (issue 13, dtypes): names and repr as MindSpore
2.10, promotion, construction and casting, arithmetic / MatMul / reductions against numpy and
ml_dtypes references (0-d, empty, broadcast), complex gradients against float64 finite
differences (MindSpore's convention: dL/dx + i dL/dy), and errors naming the op and dtype."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Tensor, ops

ml_dtypes = pytest.importorskip("ml_dtypes", reason="bfloat16 tensors need ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)

SHAPES = st.sampled_from([((), ()), ((3,), (3,)), ((2, 3), (3,)), ((0, 3), (1, 3)),
                          ((4, 1), (1, 5)), ((2, 1, 3), (2, 3))])


def _arr(rng, shape, dtype):
    if np.dtype(dtype).kind == "c":
        return (rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)).astype(dtype)
    return rng.uniform(-3, 3, shape).astype(np.float32).astype(dtype)


# ---- names, repr, promotion ---------------------------------------------------------------
def test_names_as_mindspore():
    assert (str(ms.bfloat16), str(ms.complex64), str(ms.complex128)) == \
        ("BFloat16", "Complex64", "Complex128")
    assert ms.dtype.complex_type == (ms.complex64, ms.complex128)
    assert ms.bfloat16 in ms.dtype.float_type
    assert ms.dtype.to_type(complex) is ms.complex128


def test_repr_as_mindspore():
    a = Tensor(np.array([1.5, 2.25, -3], np.float32), ms.bfloat16)
    assert repr(a) == "Tensor(shape=[3], dtype=BFloat16, value= [ 1.5, 2.25,   -3])"
    c = Tensor(np.array([1 + 2j, -3 + 0.5j], np.complex64))
    assert repr(c) == "Tensor(shape=[2], dtype=Complex64, value= [1+2j, -3+0.5j])"
    assert repr(Tensor(1 + 2j)) == "Tensor(shape=[], dtype=Complex128, value= 1+2j)"


@pytest.mark.parametrize("a,b,want", [
    ("bfloat16", "float16", "float32"), ("bfloat16", "float32", "float32"),
    ("bfloat16", "float64", "float64"), ("bfloat16", "int32", "bfloat16"),
    ("complex64", "float32", "complex64"), ("complex64", "float64", "complex128"),
    ("complex128", "float32", "complex128"), ("complex64", "complex128", "complex128"),
    ("complex64", "int32", "complex64"), ("complex64", "bfloat16", "complex64")])
def test_promotion_as_mindspore(a, b, want):
    x = Tensor(np.ones(2, np.float32)).astype(getattr(ms, a))
    y = Tensor(np.ones(2, np.float32)).astype(getattr(ms, b))
    assert (x + y).dtype is getattr(ms, want)
    assert (y + x).dtype is getattr(ms, want)


def test_scalars_are_weak():
    a = Tensor(np.ones(2, np.float32), ms.bfloat16)
    assert (a + 1.5).dtype is ms.bfloat16 and (a * 2).dtype is ms.bfloat16
    c = Tensor(np.ones(2, np.complex64))
    assert (c + 1.5).dtype is ms.complex64
    with pytest.raises(TypeError, match="Add"):
        Tensor(np.ones(2, np.float32)) + 1j


# ---- construction and casting -------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-1e4, 1e4, width=32), max_size=8))
def test_bf16_construction_rounds_as_ml_dtypes(vals):
    x = np.array(vals, np.float32)
    t = Tensor(x, ms.bfloat16)
    assert t.dtype is ms.bfloat16 and t.asnumpy().dtype == BF16
    np.testing.assert_array_equal(t.asnumpy(), x.astype(BF16))
    np.testing.assert_array_equal(t.astype(ms.float32).asnumpy(), x.astype(BF16).astype(np.float32))
    u = Tensor(x.astype(BF16))
    assert u.dtype is ms.bfloat16
    np.testing.assert_array_equal(ops.cast(u, ms.int32).asnumpy(),
                                  x.astype(BF16).astype(np.float32).astype(np.int32))


def test_complex_cast_takes_real_part_quietly():
    c = Tensor(np.array([1 + 2j, -3.5 + 0.5j], np.complex128))
    assert c.dtype is ms.complex128 and Tensor([1 + 2j]).dtype is ms.complex128
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(ops.cast(c, ms.float32).asnumpy(), [1, -3.5])
        assert ops.cast(c, ms.bfloat16).dtype is ms.bfloat16
    assert ops.cast(c, ms.complex64).asnumpy().dtype == np.complex64
    np.testing.assert_array_equal(
        Tensor(np.array([2., 3.], np.float32)).astype(ms.complex64).asnumpy(), [2, 3])


# ---- bfloat16 math through float32 --------------------------------------------------------
_BIN = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
_UN = {"neg": np.negative, "square": np.square, "exp": np.exp, "abs": np.abs}


@settings(max_examples=20, deadline=None)
@given(SHAPES, st.sampled_from(sorted(_BIN)), st.integers(0, 2 ** 16))
def test_bf16_binary_matches_float32_rounded(shapes, name, seed):
    rng = np.random.default_rng(seed)
    x, y = _arr(rng, shapes[0], BF16), _arr(rng, shapes[1], BF16)
    got = getattr(ops, name)(Tensor(x), Tensor(y))
    with np.errstate(all="ignore"):
        want = _BIN[name](x.astype(np.float32), y.astype(np.float32)).astype(BF16)
    assert got.dtype is ms.bfloat16
    np.testing.assert_array_equal(got.asnumpy().astype(np.float32), want.astype(np.float32))


@settings(max_examples=20, deadline=None)
@given(SHAPES, st.sampled_from(sorted(_UN)), st.integers(0, 2 ** 16))
def test_bf16_unary_matches_float32_rounded(shapes, name, seed):
    x = _arr(np.random.default_rng(seed), shapes[0], BF16)
    got = getattr(ops, name)(Tensor(x))
    want = _UN[name](x.astype(np.float32)).astype(BF16)
    np.testing.assert_array_equal(got.asnumpy().astype(np.float32), want.astype(np.float32))


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([(3, 4), (1, 5), (4, 0)]), st.sampled_from(["sum", "mean", "max", "min"]),
       st.integers(0, 2 ** 16))
def test_bf16_reductions_accumulate_in_float32(shape, name, seed):
    x = _arr(np.random.default_rng(seed), shape, BF16)
    if name in ("max", "min") and x.size == 0:
        return
    for axis in ((), 0, 1):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)      # mean of an empty axis: nan
            want = getattr(np, name)(x.astype(np.float32), axis=None if axis == () else axis)
        want = want.astype(BF16)
        got = getattr(Tensor(x), name)(axis) if axis != () else getattr(Tensor(x), name)()
        if isinstance(got, tuple):
            got = got[0]
        assert got.dtype is ms.bfloat16
        np.testing.assert_array_equal(got.asnumpy().astype(np.float32), want.astype(np.float32))


def test_bf16_matmul_and_grad():
    rng = np.random.default_rng(0)
    a, b = _arr(rng, (3, 4), BF16), _arr(rng, (4, 2), BF16)
    got = ops.matmul(Tensor(a), Tensor(b))
    assert got.dtype is ms.bfloat16
    np.testing.assert_allclose(got.asnumpy().astype(np.float32),
                               (a.astype(np.float32) @ b.astype(np.float32)), rtol=1e-2, atol=1e-2)
    bm = ops.bmm(Tensor(a[None]), Tensor(b[None]))
    np.testing.assert_array_equal(bm.asnumpy()[0], got.asnumpy())
    g = ms.grad(lambda x: (x * x).sum())(Tensor(a))
    assert g.dtype is ms.bfloat16
    np.testing.assert_array_equal(g.asnumpy(), (2 * a.astype(np.float32)).astype(BF16))


# ---- complex math against numpy -----------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(SHAPES, st.sampled_from(sorted(_BIN)), st.sampled_from([np.complex64, np.complex128]),
       st.integers(0, 2 ** 16))
def test_complex_binary_matches_numpy(shapes, name, dtype, seed):
    rng = np.random.default_rng(seed)
    x, y = _arr(rng, shapes[0], dtype), _arr(rng, shapes[1], dtype)
    got = getattr(ops, name)(Tensor(x), Tensor(y))
    assert got.asnumpy().dtype == dtype
    np.testing.assert_allclose(got.asnumpy(), _BIN[name](x, y), rtol=1e-5)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([(), (3,), (2, 3), (0, 2)]), st.integers(0, 2 ** 16))
def test_complex_unary_and_reductions_match_numpy(shape, seed):
    x = _arr(np.random.default_rng(seed), shape, np.complex64)
    t = Tensor(x)
    for fn, ref in ((ops.exp, np.exp), (ops.neg, np.negative), (ops.square, np.square),
                    (ops.conj, np.conj)):
        np.testing.assert_allclose(fn(t).asnumpy(), ref(x), rtol=1e-5)
    np.testing.assert_allclose(ops.real(t).asnumpy(), x.real)
    np.testing.assert_allclose(ops.imag(t).asnumpy(), x.imag)
    assert ops.real(t).dtype is ms.float32
    np.testing.assert_allclose(ops.abs(t).asnumpy(), np.abs(x), rtol=1e-6)   # Complex64, as MS
    np.testing.assert_allclose(t.sum().asnumpy(), x.sum(), rtol=1e-5, atol=1e-5)
    if x.size:
        np.testing.assert_allclose(ops.angle(t).asnumpy(), np.angle(x), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(t.mean().asnumpy(), x.mean(), rtol=1e-5, atol=1e-5)


def test_complex_matmul_polar_view_as_real():
    rng = np.random.default_rng(1)
    a, b = _arr(rng, (2, 3), np.complex128), _arr(rng, (3, 4), np.complex128)
    np.testing.assert_allclose(ops.matmul(Tensor(a), Tensor(b)).asnumpy(), a @ b)
    np.testing.assert_allclose(ops.bmm(Tensor(a[None]), Tensor(b[None])).asnumpy()[0], a @ b)
    r, th = np.array([1., 2.], np.float32), np.array([0.5, -1.], np.float32)
    p = ops.polar(Tensor(r), Tensor(th))
    assert p.dtype is ms.complex64
    np.testing.assert_allclose(p.asnumpy(), r * np.exp(1j * th), rtol=1e-6)
    np.testing.assert_array_equal(ops.view_as_real(Tensor(a)).asnumpy(),
                                  np.stack([a.real, a.imag], -1))
    assert ops.is_complex(Tensor(a)) and not Tensor(r).is_complex()


# ---- complex gradients: dL/dx + i dL/dy, checked against float64 finite differences --------
def _fd_grad(loss, z, eps=1e-6):
    g = np.zeros_like(z)
    for i in range(z.size):
        for unit in (1, 1j):
            d = np.zeros_like(z)
            d.flat[i] = unit * eps
            slope = (loss(z + d) - loss(z - d)) / (2 * eps)
            g.flat[i] += unit * slope
    return g


_LOSSES = {
    "mul": (lambda z: ops.real(z * z * z).sum(), lambda z: np.real(z ** 3).sum()),
    "div": (lambda z: ops.imag(1.0 / z).sum(), lambda z: np.imag(1 / z).sum()),
    "exp": (lambda z: ops.real(ops.exp(z)).sum(), lambda z: np.real(np.exp(z)).sum()),
    "abs": (lambda z: ops.real(ops.abs(z)).sum(), lambda z: np.abs(z).sum()),
    "angle": (lambda z: ops.angle(z).sum(), lambda z: np.angle(z).sum()),
    "conj_mean": (lambda z: ops.imag(ops.conj(z) * ops.square(z)).mean(),
                  lambda z: np.imag(np.conj(z) * z * z).mean()),
}


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(_LOSSES)), st.integers(0, 2 ** 16))
def test_complex_grad_matches_finite_differences(name, seed):
    z = _arr(np.random.default_rng(seed), (3,), np.complex128) + 0.5
    ml_loss, np_loss = _LOSSES[name]
    got = ms.grad(ml_loss)(Tensor(z))
    assert got.dtype is ms.complex128
    np.testing.assert_allclose(got.asnumpy(), _fd_grad(np_loss, z), rtol=1e-5, atol=1e-6)


def test_complex_matmul_grad_matches_finite_differences():
    rng = np.random.default_rng(3)
    a, b = _arr(rng, (2, 3), np.complex128), _arr(rng, (3, 2), np.complex128)
    ga, gb = ms.grad(lambda x, y: ops.real(ops.matmul(x, y)).sum(), grad_position=(0, 1))(
        Tensor(a), Tensor(b))
    np.testing.assert_allclose(ga.asnumpy(), _fd_grad(lambda x: np.real(x @ b).sum(), a),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), _fd_grad(lambda y: np.real(a @ y).sum(), b),
                               rtol=1e-5, atol=1e-6)


def test_real_input_of_a_complex_op_gets_a_real_gradient():
    x = Tensor(np.array([2., 3.]))
    y = Tensor(np.array([1 + 1j, 2 - 1j]))
    gx, gy = ms.grad(lambda a, b: ops.real(a * b).sum(), grad_position=(0, 1))(x, y)
    assert gx.dtype is ms.float64 and gy.dtype is ms.complex128
    np.testing.assert_allclose(gx.asnumpy(), [1, 2])
    np.testing.assert_allclose(gy.asnumpy(), [2, 3])
    re, im = ms.grad(lambda a, b: ops.abs(ops.Complex()(a, b)).real().sum(),
                     grad_position=(0, 1))(Tensor(np.array([3.])), Tensor(np.array([4.])))
    np.testing.assert_allclose((re.asnumpy(), im.asnumpy()), ([0.6], [0.8]))


# ---- errors -------------------------------------------------------------------------------
def test_errors_name_op_and_dtype():
    b = Tensor(np.ones(2, np.float32), ms.bfloat16)
    c = Tensor(np.ones(2, np.complex64))
    with pytest.raises(TypeError, match="Floor.*BFloat16"):
        ops.floor(b)
    with pytest.raises(TypeError, match="Floor.*Complex64"):
        ops.floor(c)
    with pytest.raises(TypeError, match="Angle.*Float32"):
        ops.angle(Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="Complex"):
        ops.Complex()(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2)))
    with pytest.raises(TypeError, match="Less.*Complex64"):      # complex is not ordered
        c < c
    with pytest.raises(TypeError, match="Maximum.*Complex64"):
        ops.maximum(c, c)
    assert (c == c).asnumpy().all() and (b < b + 1).asnumpy().all()
    with pytest.raises(TypeError, match="view_as_real"):
        ops.view_as_real(Tensor(np.ones(2, np.float32)))


# ---- checkpoints and the optional ml_dtypes ------------------------------------------------
def test_checkpoint_roundtrip_with_mindspore_type_names(tmp_path):
    path = str(tmp_path / "t.ckpt")
    b = Tensor(np.array([1.5, -2.25, 3e38], np.float32), ms.bfloat16)
    c = Tensor(np.array([1 + 2j, -0.5j], np.complex128))
    ms.save_checkpoint([{"name": "b", "data": b}, {"name": "c", "data": c}], path)
    raw = open(path, "rb").read()
    assert b"BFloat16" in raw and b"Complex128" in raw
    out = ms.load_checkpoint(path)
    assert out["b"].dtype is ms.bfloat16 and out["c"].dtype is ms.complex128
    np.testing.assert_array_equal(out["b"].asnumpy().view(np.uint16),
                                  b.asnumpy().view(np.uint16))
    np.testing.assert_array_equal(out["c"].asnumpy(), c.asnumpy())


def test_bfloat16_without_ml_dtypes_is_a_clear_error():
    missing = ms.dtype.Type("bfloat16", None, "f")          # what bfloat16 is without ml_dtypes
    assert str(missing) == "BFloat16"
    with pytest.raises(TypeError, match="ml_dtypes"):
        ms.dtype.to_type(missing)
    with pytest.raises(TypeError, match="ml_dtypes"):
        Tensor(np.ones(2, np.float32), missing)


def _complex_loss(x):
    return ops.real(x * x).sum()


def _bf16_loss(x):
    return (x * x).sum()


_grad_complex = ms.grad(_complex_loss)
_grad_bf16 = ms.grad(_bf16_loss)


@ms.jit
def _jit_grad_complex(x):
    return _grad_complex(x)


@ms.jit
def _jit_grad_bf16(x):
    return _grad_bf16(x)


def test_graph_mode_grads():
    b = Tensor(np.array([1.5, -2], np.float32), ms.bfloat16)
    np.testing.assert_array_equal(_jit_grad_bf16(b).asnumpy().astype(np.float32), [3, -4])
    with pytest.raises(Exception, match="complex|Complex64"):     # never silent zeros
        _jit_grad_complex(Tensor(np.array([1 + 2j], np.complex64)))


def test_bf16_mlp_to_float_forward_and_backward_track_float32():
    from mindlite import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d1, self.d2, self.act = nn.Dense(4, 8), nn.Dense(8, 3), nn.ReLU()

        def construct(self, x):
            return ops.softmax(self.d2(ops.tanh(self.act(self.d1(x)))), -1)

    ref = Net()
    net = Net()
    ms.load_param_into_net(net, {p.name: p for p in ref.get_parameters()})
    net.to_float(ms.bfloat16)
    x = Tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
    w = Tensor(np.arange(3, dtype=np.float32))
    out = net(x)
    assert out.dtype is ms.bfloat16
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), ref(x).asnumpy(), atol=2e-2)
    grads = ms.grad(lambda a: (net(a) * w).sum(), None, net.trainable_params())(x)
    refs = ms.grad(lambda a: (ref(a) * w).sum(), None, ref.trainable_params())(x)
    for g, r in zip(grads, refs):
        assert g.dtype is ms.float32                          # parameters stay float32
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), atol=3e-2)


def test_math_kernels_for_these_dtypes_are_numpy_ones():
    """The C++ / numba kernels list float32/float64 (and ints): never chosen for these."""
    from mindlite.kernels.cpu.bf16_complex_numpy import BF16_VIA_FLOAT32
    from mindlite.kernels.registry import select_kernel
    for op in BF16_VIA_FLOAT32:
        k = select_kernel(op, "CPU", ms.bfloat16)
        assert (k.provider, k.name) == ("numpy", f"{op.lower()}_bf16_via_float32"), op
    for op in ("Add", "Mul", "Div", "MatMul", "BatchMatMul", "ReduceSum", "ReduceMean", "Exp",
               "Cast"):
        assert select_kernel(op, "CPU", ms.complex64).provider == "numpy", op
