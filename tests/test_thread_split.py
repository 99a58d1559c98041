"""Thread splits of the C++ elementwise kernels against the numpy reference kernels.

For every kernel in `_C.UNARY_KERNELS` / `_C.BINARY_KERNELS` and every dtype its loop table
supports, on arrays above the (lowered) parallel threshold in contiguous, strided, reversed and
broadcast (row, column, 0-d) layouts, into aligned and offset outputs, with NaN, +-inf, -0.0 and
integer extremes: the result at every thread count 1..max_threads() (plus counts above it, so
chunks do not line up with cores) and with the measured split is bitwise identical to the numpy
reference kernel's (the registry's numpy provider). Where the reference rounds differently
(APPROX: transcendental functions), results are bitwise identical across thread counts and
within tolerance of the reference. Large arrays check launches at the default threshold (the
size prior: max_threads() without a search); a subprocess repeats part of the module with
streaming (non-temporal) stores forced on for every output (MINDLITE_STREAM_BYTES=1).
"""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from mindlite.kernels import registry
from mindlite.kernels.cpu._cext import _C

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]
BOOL_RESULT = {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
               "LogicalAnd", "LogicalOr"}
# The reference rounds differently (numpy's SIMD / libm functions, other formulas): rtol and
# atol for float32, then float64. GeLU's reference cancels in 1 + tanh(.) for negative inputs.
_TOL = (1e-6, 1e-30, 1e-12, 1e-300)
APPROX = dict.fromkeys(["Exp", "Log", "Rsqrt", "Sin", "Cos", "Tanh", "Sigmoid", "SiLU",
                        "Softplus", "Erf", "Pow"], _TOL)
APPROX["GeLU"] = (1e-5, 1e-6, 1e-11, 1e-12)
# activation_ops' transcendental ones: vectorised expm1 / exp / log / tanh vs numpy's libm
APPROX.update(dict.fromkeys(["Elu", "SeLU", "Mish", "LogSigmoid"], (1e-5, 1e-6, 1e-11, 1e-12)))
# transcendental_cpp's kernels (special_math.cc) vs numpy's libm ufuncs; the special functions
# with no numpy ufunc (Erfc, Lgamma, Bessel*, Zeta, ...) are checked against their own one-thread
# launch here (bitwise), and for accuracy in test_cpp_kernels.py
APPROX.update(dict.fromkeys(["Tan", "Sinh", "Cosh", "ACos", "Asin", "Atan", "Acosh", "Asinh",
                             "Atanh", "Atan2", "Log1p", "Expm1", "Log2", "Log10", "Exp2"],
                            (2e-6, 1e-30, 1e-13, 1e-300)))
N_ROWS, N_COLS = 97, 211          # 20467 elements: no multiple of a chunk or vector width
THRESHOLD = 256
THREADS = sorted(set(range(1, _C.max_threads() + 1)) | {3, 5})


@pytest.fixture(autouse=True)
def restore_settings():
    threads, threshold = _C.get_num_threads(), _C.parallel_threshold()
    yield
    _C.set_num_threads(threads)
    _C.set_parallel_threshold(threshold)


def _kernel_dtypes():
    """(op, dtype) for every C++ elementwise kernel and every dtype its table supports."""
    out = []
    for op, fn in sorted(_C.UNARY_KERNELS.items()) + sorted(_C.BINARY_KERNELS.items()):
        for dt in DTYPES:
            x = np.zeros(2, dt)
            res = np.zeros(2, np.bool_ if op in BOOL_RESULT else dt)
            try:
                fn(x, res) if op in _C.UNARY_KERNELS else fn(x, x, res)
            except TypeError:
                continue
            out.append((op, np.dtype(dt)))
    return out


CASES = _kernel_dtypes()


def test_every_kernel_is_covered():
    ops = {op for op, _ in CASES}
    assert ops == set(_C.UNARY_KERNELS) | set(_C.BINARY_KERNELS)
    assert len(CASES) > 2 * len(ops)


def reference_kernel(op, dt):
    (k,) = [k for k in registry.kernels_for(op) if k.provider == "numpy"
            and (k.dtypes is None or any(t.np == dt for t in k.dtypes))][:1]
    return k.fn


def values(dt, shape, seed):
    """Random values of dt with the special ones (NaN, +-inf, +-0, extremes) spread in."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dt == np.bool_:
        return (rng.random(n) < 0.5).reshape(shape)
    if dt.kind == "i":
        info = np.iinfo(dt)
        v = rng.integers(-1000, 1000, n).astype(dt)
        special = np.array([0, -1, 1, info.min, info.max, 7, -7], dt)
    else:
        v = (rng.standard_normal(n) * 8).astype(dt)
        special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 1e-40, 0.5, -2.5],
                           dt)
    idx = rng.choice(n, size=min(n, 40 * special.size), replace=False)
    v[idx] = np.resize(special, idx.size)
    return v.reshape(shape)


def layouts(op, dt):
    """(name, inputs) pairs: the operands of one launch, in various memory layouts."""
    shape = (N_ROWS, N_COLS)
    x = values(dt, shape, 1)
    wide = values(dt, (N_ROWS, 2 * N_COLS), 2)
    if op in _C.UNARY_KERNELS:
        return [("contig", (x,)), ("strided", (wide[:, ::2],)), ("reversed", (x[::-1, ::-1],))]
    y = values(dt, shape, 3)
    return [("contig", (x, y)), ("strided", (wide[:, 1::2], y)),
            ("reversed", (x, y[::-1, ::-1])), ("row", (x, y[:1])), ("col", (x[:, :1], y)),
            ("scalar_y", (x, y[:1, :1].reshape(()))), ("scalar_x", (x[:1, 3:4].reshape(()), y)),
            ("lower_rank", (x[5], y))] + negative_zero_scalars(x, y)


def negative_zero_scalars(x, y):
    """A 0-d -0.0 operand on either side (float dtypes): the broadcast-scalar loops must keep
    its sign (Pow(-0.0, -1) is -inf, Mul(-0.0, 2) is -0.0)."""
    if x.dtype.kind != "f":
        return []
    zero = np.array(-0.0, x.dtype)
    odd = y.copy()                     # odd integers: Pow(-0.0, -3) is -inf, (-0.0) ** 3 -0.0
    odd.flat[::5] = -1
    odd.flat[2::5] = 3
    return [("negzero_x", (zero, odd)), ("negzero_y", (x, zero))]


def out_like(op, ins, offset):
    shape = np.broadcast_shapes(*(a.shape for a in ins))
    dt = np.dtype(np.bool_) if op in BOOL_RESULT else ins[0].dtype
    n = int(np.prod(shape))
    return np.empty(n + offset, dt)[offset:].reshape(shape)   # offset: not 16-byte aligned


def launch(op, ins, offset=0):
    fn = _C.UNARY_KERNELS.get(op) or _C.BINARY_KERNELS[op]
    out = out_like(op, ins, offset)
    fn(*ins, out)
    return out


def reference(op, ins):
    if not has_numpy_reference(op, ins[0].dtype):   # the C++ kernel's own one-thread result
        threads = _C.get_num_threads()
        _C.set_num_threads(1)
        try:
            return launch(op, ins)
        finally:
            _C.set_num_threads(threads)
    out = out_like(op, ins, 0)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        reference_kernel(op, ins[0].dtype)(*ins, out)
    return out


def has_numpy_reference(op, dt):
    return any(k.provider == "numpy" and (k.dtypes is None or any(t.np == dt for t in k.dtypes))
               for k in registry.kernels_for(op))


def assert_same_bits(got, want, what):
    assert got.shape == want.shape and got.dtype == want.dtype, what
    if got.dtype.kind == "f":   # NaN sign / payload is not meaningful: same NaN positions
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), what
        got, want = got[~nan], want[~nan]
    assert got.tobytes() == want.tobytes(), what


def assert_matches_reference(op, got, want, what):
    if op in APPROX:
        tol = APPROX[op][:2] if got.dtype == np.float32 else APPROX[op][2:]
        np.testing.assert_allclose(got, want, rtol=tol[0], atol=tol[1], equal_nan=True,
                                   err_msg=what)
        signed = (want == 0) | np.isinf(want)   # the sign of a zero or infinity is exact
        assert np.array_equal(np.signbit(got[signed]), np.signbit(want[signed])), what
        return
    assert_same_bits(got, want, what)


def measured_split(op, ins):
    """The result once the split search has decided this launch's thread count."""
    _C.set_num_threads(0)
    _C.reset_split_table()
    n = int(np.prod(np.broadcast_shapes(*(a.shape for a in ins))))
    dt = ins[0].dtype.name
    key = ("unary" if op in _C.UNARY_KERNELS else "binary",
           "Div" if op == "RealDiv" else op, dt, n.bit_length() - 1)
    for _ in range(200):
        launch(op, ins)
        if key in _C.split_table():
            break
    assert 1 <= _C.split_table()[key] <= _C.max_threads()
    return launch(op, ins)


@pytest.mark.parametrize("op,dt", CASES, ids=[f"{op}-{dt.name}" for op, dt in CASES])
def test_every_split_matches_reference(op, dt):
    _C.set_parallel_threshold(THRESHOLD)
    for name, ins in layouts(op, dt):
        want = reference(op, ins)
        first = None
        for threads in THREADS:
            _C.set_num_threads(threads)
            for offset in (0, 1):
                got = launch(op, ins, offset)
                what = f"{op} {dt.name} {name}, {threads} threads, out offset {offset}"
                if first is None:
                    assert_matches_reference(op, got, want, what)
                    first = got
                else:
                    assert got.tobytes() == first.tobytes(), what
        if name == "contig":
            assert measured_split(op, ins).tobytes() == first.tobytes(), f"{op} measured split"


@pytest.mark.parametrize("op,dt,shape", [
    ("Add", np.float32, (1 << 19) + 4097), ("Sqrt", np.float64, (1 << 18) + 33),
    ("Less", np.int32, (1 << 19) + 5), ("Sigmoid", np.float32, (1 << 18) + 1),
    ("FloorMod", np.int64, (1 << 18) + 77)])
def test_large_launches_at_default_threshold(op, dt, shape):
    """Above kPriorWork: max_threads() by default; forced counts split unevenly."""
    dt = np.dtype(dt)
    ins = (values(dt, (shape,), 5),) if op in _C.UNARY_KERNELS else \
        (values(dt, (shape,), 5), values(dt, (shape,), 6))
    want = reference(op, ins)
    results = []
    for threads in THREADS + [0]:
        _C.set_num_threads(threads)
        results.append(launch(op, ins, offset=threads % 2))
    assert_matches_reference(op, results[0], want, op)
    for r in results[1:]:
        assert r.tobytes() == results[0].tobytes()


def test_split_table_prefers_all_threads_for_large_work():
    _C.set_num_threads(0)
    _C.reset_split_table()
    x = np.ones(1 << 21, np.float32)
    _C.BINARY_KERNELS["Add"](x, x, np.empty_like(x))
    assert _C.split_table()[("binary", "Add", "float32", 21)] == _C.max_threads()


def test_inplace_output_at_every_split():
    _C.set_parallel_threshold(THRESHOLD)
    base = values(np.dtype(np.float32), (N_ROWS, N_COLS), 9)
    want = reference("Neg", (base,))
    for threads in THREADS:
        _C.set_num_threads(threads)
        x = base.copy()
        _C.UNARY_KERNELS["Neg"](x, x)
        assert_same_bits(x, want, f"in place, {threads} threads")


# The staged streaming path is the same for every op: unary, binary, bool output, strided walk.
STREAMING_SUBSET = ("(every_split and (Add-float32 or Neg-int64 or Less-float64 or Sigmoid-float32"
                    " or LogicalOr-bool or FloorDiv-int32)) or large or inplace")


@pytest.mark.skipif(os.environ.get("MINDLITE_STREAM_BYTES") is not None,
                    reason="already the streaming run")
def test_module_with_streaming_stores():
    env = dict(os.environ, MINDLITE_STREAM_BYTES="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    res = subprocess.run([sys.executable, "-m", "pytest", os.path.abspath(__file__), "-q", "-x",
                          "-p", "no:cacheprovider", "-k", STREAMING_SUBSET],
                         cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
