"""@jit: every construct the parser compiles, compared with the same function run eagerly
(the undecorated function is the oracle: results must be equal exactly, dtypes too)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import ops
from mindlite.ir import lint, reachable_graphs

from helpers import arrays, shapes


def _same(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want)
        for k in want:
            _same(got[k], want[k])
    elif isinstance(want, ms.Tensor):
        assert isinstance(got, ms.Tensor), got
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    else:
        assert got == want and type(got) is type(want)


def check(fn, *args, **kwargs):
    """Compile fn, lint its graph, and compare with eager."""
    jf = ms.jit(fn)
    got = jf(*args, **kwargs)
    lint(jf.graph(*args, **kwargs))
    _same(got, fn(*args, **kwargs))
    return jf


T = ms.Tensor
FLOAT_OR_INT = st.sampled_from([np.float32, np.float64, np.int32, np.int64])


# ---- operators -------------------------------------------------------------------------------
def arith(x, y, s):
    a = x + y * s - 1
    b = (x - s) * 2.5 / (abs(y) + 1)
    c = -x + (+y)
    d = (x > y) | (x <= s)
    e = (x == y) & ~(x != 1)
    return a, b, c, d, e, x >= 0, s < x


@given(shape=shapes(max_dims=3, max_side=4), dtype=FLOAT_OR_INT, data=st.data(),
       s=st.one_of(st.integers(-3, 3), st.floats(-2, 2, width=32)))
@settings(max_examples=15)
def test_arithmetic_comparison_unary(shape, dtype, data, s):
    x = data.draw(arrays(dtype, shape, min_value=-8, max_value=8, allow_special=False))
    y = data.draw(arrays(dtype, shape, min_value=-8, max_value=8, allow_special=False))
    check(arith, T(x), T(y), s)


def augmented(x, y):
    z = x
    z += y
    z *= 2
    z -= x
    n = 1
    n += 2
    return z, n


@given(shape=shapes(max_dims=2, max_side=4), dtype=FLOAT_OR_INT, data=st.data())
@settings(max_examples=10)
def test_augmented_assignment(shape, dtype, data):
    x = data.draw(arrays(dtype, shape, min_value=-8, max_value=8, allow_special=False))
    check(augmented, T(x), T(x[::-1].copy() if x.ndim else x))


def mixed_promotion(x, i):
    return x * i, i + 1.5, x / 2


def test_promotion_matches_eager():
    check(mixed_promotion, T(np.arange(4, dtype=np.int32)), T(np.arange(4, dtype=np.int64)))
    check(mixed_promotion, T(np.arange(4, dtype=np.float16)), T(np.ones(4, np.float32)))


# ---- subscripts and slices -------------------------------------------------------------------
def slice_st(d):
    bound = st.one_of(st.none(), st.integers(-d - 2, d + 2))
    return st.builds(slice, bound, bound, st.one_of(st.none(), st.sampled_from([1, 2, -1, -2])))


@given(data=st.data(), shape=shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
@settings(max_examples=20)
def test_subscripts(data, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    index = tuple(data.draw(st.one_of(slice_st(d), st.integers(-d, d - 1))) for d in shape)

    def getitem(t):
        return t[index], t[index[0]], t[..., None], t[[0, -1]]
    check(getitem, T(x))


def tensor_index(x, i):
    return x[i], x[1:][i]


def test_tensor_index_computed_in_graph():
    x = T(np.arange(12, dtype=np.float32).reshape(4, 3))
    check(tensor_index, x, T(np.array([2, 0], np.int32)))


# ---- control flow ----------------------------------------------------------------------------
def if_elif(x, y):
    if x.sum() > y.sum():
        z = x - y
        w = 1
    elif (x < 0).any():
        z = x * y
        w = 1
    else:
        z = y
        w = 1
    return z + w


def if_constant(x, flag, n):
    if flag:
        x = x * 2
    if n > 2:
        return x - n
    return x


def return_anywhere(x):
    y = x * 2
    if y.max() > 4:
        return y
    if y.min() < 0:
        y = y - 1
        return -y
    y = y + 100
    return y


@given(data=st.data(), shape=shapes(min_dims=1, max_dims=2, min_side=1, max_side=4))
@settings(max_examples=15)
def test_if_on_tensors(data, shape):
    x = T(data.draw(arrays(np.float32, shape, min_value=-5, max_value=5, allow_special=False)))
    y = T(data.draw(arrays(np.float32, shape, min_value=-5, max_value=5, allow_special=False)))
    check(if_elif, x, y)
    check(return_anywhere, x)
    check(if_constant, x, True, 3)
    check(if_constant, x, False, 1)


def while_tensor(x, n):
    i = T(0, ms.int32)
    total = x * 0
    while i < n:
        total = total + x * i
        i = i + 1
    return total, i


@given(n=st.integers(0, 6), data=st.data())
@settings(max_examples=10)
def test_while_on_a_tensor_is_a_loop_graph(n, data):
    x = T(data.draw(arrays(np.float32, (3,), min_value=-5, max_value=5, allow_special=False)))
    jf = check(while_tensor, x, T(n, ms.int32))
    names = [g.name for g in reachable_graphs(jf.graph(x, T(n, ms.int32)))]
    assert any("_while_" in name for name in names)


def test_while_runs_many_iterations_without_recursion():
    jf = ms.jit(while_tensor)
    total, i = jf(T(np.ones(2, np.float32)), T(5000, ms.int32))
    assert int(i) == 5000 and total.asnumpy().tolist() == [sum(range(5000))] * 2


def loops_constant(x, cells):
    acc = x
    for k in range(3):
        acc = acc + k * x
    for i, t in enumerate((1.0, 2.0)):
        acc = acc * t + i
    for a, b in zip((1, 2), (3, 4)):
        acc = acc - a * b
    j = 0
    while j < 3:
        j += 1
        if j == 2:
            continue
        acc = acc + j
    for k in range(10):
        if k == 2:
            break
        acc = acc * 2
    for row in x:
        acc = acc + row
    return acc, j, len(cells)


def test_loops_over_constants_unroll():
    x = T(np.arange(6, dtype=np.float32).reshape(3, 2))
    check(loops_constant, x, (1, 2, 3))


# ---- calls: functional ops, Tensor methods, Python functions, closures, builtins ---------------
def helper(a, b=2, *, c=1):
    return a * b + c


def calls(x):
    def inner(u, v=3):
        return u * v + x             # x is a free variable of the nested function
    sq = lambda t: t * t             # noqa: E731
    y = ops.relu(x).reshape((2, -1)).sum(axis=1)
    z = ops.maximum(x, 0.5) + x.abs().mean()
    w = helper(x, c=4) + inner(sq(x))
    return y, z, w, x.shape, x.ndim, x.dtype, isinstance(x, ms.Tensor), max(3, x.ndim), \
        min((4, 2)), len(x), tuple(v for v in (1, 2)), [k * 2 for k in range(3) if k]


@given(data=st.data())
@settings(max_examples=10)
def test_calls_and_builtins(data):
    x = T(data.draw(arrays(np.float32, (4,), min_value=-5, max_value=5, allow_special=False)))
    check(calls, x)


def bool_ops(x, y):
    a = x.sum() > 0 and y.sum() > 0
    b = x.max() > 3 or y.min() > 0
    c = x if (x > 0).all() else y
    d = not (x.sum() > 0)
    return a, b, c, d


@given(data=st.data())
@settings(max_examples=10)
def test_bool_ops_and_if_expressions(data):
    x = T(data.draw(arrays(np.float32, (1,), min_value=-5, max_value=5, allow_special=False)))
    y = T(data.draw(arrays(np.float32, (1,), min_value=-5, max_value=5, allow_special=False)))
    jf = ms.jit(bool_ops)
    got, want = jf(x, y), bool_ops(x, y)
    # eager's `and`/`or`/`not` give Python or Tensor values by truthiness; the graph gives
    # tensors of the same truth value and, where a tensor is returned, the same tensor
    for g, w in zip(got, want):
        assert bool(g) == bool(w)
    _same(got[2], want[2])


def tuples_and_dicts(x, pair, opts):
    a, b = pair
    first, *rest = (x, a, b)
    return {"s": first + a * opts["k"], "n": len(rest)}, [a, b][1], (x, x)[0]


def test_tuples_lists_dicts_and_keyword_arguments():
    x = T(np.ones((2, 2), np.float32))
    check(tuples_and_dicts, x, (T(np.full((2, 2), 2, np.float32)), x), {"k": 3})


def test_print_runs_in_the_graph(capsys):
    def f(x):
        y = x + 1
        print("y is", y)
        return y
    jf = ms.jit(f)
    x = T(np.array([1.0, 2.0], np.float32))
    jf(x)
    jf(x)                                         # cached: printing happens at run time
    out = capsys.readouterr().out
    assert out.count("y is [2. 3.]") == 2


class Scaler:
    def __init__(self, k):
        self.k = k

    @ms.jit
    def apply(self, x):
        return x * self.k


def test_jit_forms_methods_and_input_signature():
    x = T(np.ones(3, np.float32))
    assert Scaler(3).apply(x).asnumpy().tolist() == [3.0] * 3
    assert Scaler(4).apply(x).asnumpy().tolist() == [4.0] * 3
    sig = ms.jit(input_signature=(T(np.zeros(3, np.float32)),))(lambda t: t + 1)
    assert sig(x).asnumpy().tolist() == [2.0] * 3
    with pytest.raises(ValueError, match="input_signature"):
        sig(T(np.ones(4, np.float32)))
    with pytest.raises(TypeError, match="input_signature"):      # a dtype mismatch
        sig(T(np.ones(3, np.int32)))


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def nested_control_flow(x, y):
    for k in range(3):                       # unrolled, with tensor ifs inside
        if x.sum() > k:
            x = x - 1
            if y.max() > 0:
                y = y * 2
        else:
            y = y + k
    i = T(0, ms.int32)
    if y.sum() > 0:                          # a constant loop inside a tensor branch: the
        while i < 3:                         # branches give i as different constant Tensors
            x = x + y
            i = i + 1
    fs = [lambda t, k=k: t * k for k in range(3)]
    return x, y, fs[2](x) + fact(4), i


@given(data=st.data())
@settings(max_examples=15)
def test_nested_control_flow(data):
    x = T(data.draw(arrays(np.float32, (3,), min_value=-6, max_value=6, allow_special=False)))
    y = T(data.draw(arrays(np.float32, (3,), min_value=-3, max_value=3, allow_special=False)))
    check(nested_control_flow, x, y)


def test_jit_accepts_mindspore_210_options_and_rejects_bad_ones():
    f = ms.jit(capture_mode="ast", jit_level="O1", dynamic=0, fullgraph=True,
               backend="ms_backend")(lambda t: t * 2)
    assert f(T(np.ones(2, np.float32))).asnumpy().tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="capture_mode"):
        ms.jit(capture_mode="bytecode")
    with pytest.raises(ValueError, match="jit_level"):
        ms.jit(jit_level="O9")
    with pytest.raises(TypeError, match="'fn' must be a function"):
        ms.jit(3)
