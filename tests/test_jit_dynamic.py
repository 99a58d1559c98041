"""Dynamic dimensions in graph mode: placeholders, jit(input_signature=...), Cell.set_inputs
(mindlite/jit/dynamic.py): one compile for every size of a None dimension, -1 in the
graph's abstracts, x.shape of a dynamic dimension as a run-time value, results equal to
eager, and calls that do not match the signature rejected naming the argument."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Tensor, nn, ops
from mindlite.ir import dump_ir, lint
from mindlite.jit import cell_graph
from models import LeNet


def _x(*shape, dtype=np.float32, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


# ---- placeholders ------------------------------------------------------------------------
def test_placeholder_is_a_shape_without_data():
    ph = Tensor(shape=[None, 3], dtype=ms.float32)
    assert ph.shape == (-1, 3) and ph.dtype == ms.float32
    assert repr(ph) == "Tensor(shape=[-1, 3], dtype=Float32, value=\n)"     # MindSpore's text
    assert Tensor(shape=(-1, 3), dtype=ms.float32).shape == (-1, 3)
    with pytest.raises(ValueError, match="placeholder"):
        ph.asnumpy()
    with pytest.raises(ValueError, match="placeholder"):
        ph + 1
    with pytest.raises(ValueError, match="dtype"):
        Tensor(shape=[None, 3])
    with pytest.raises(ValueError, match="init"):
        Tensor(shape=[None, 3], dtype=ms.float32, init="zeros")
    with pytest.raises(ValueError, match=r"-1 or None"):
        Tensor(shape=[-2], dtype=ms.float32)


# ---- jit(input_signature=...) ---------------------------------------------------------------
def _shape_code(x):
    n = x.shape[0]
    y = ops.reshape(x, (n, 3, 1)) * n
    z = ops.concat((x, x), 0).reshape(n * 2, 3)
    return y.sum(axis=2) + x.shape[1] + z[:n] - (n - n) + x.size // len(x)


def test_one_compile_across_batch_sizes_and_shape_is_a_runtime_value():
    jf = ms.jit(_shape_code, input_signature=(Tensor(shape=[None, 3], dtype=ms.float32),))
    for b in (1, 2, 7, 3):
        x = _x(b, 3, seed=b)
        got = jf(x)
        assert got.shape == (b, 3)
        np.testing.assert_allclose(got.asnumpy(), _shape_code(x).asnumpy(), rtol=1e-6)
    assert len(jf.cache) == 1
    g = jf.graph(_x(4, 3))
    lint(g)
    text = dump_ir(g)
    assert "%para1_x: <Tensor[Float32], (-1, 3)>" in text
    assert "PrimFunc_Shape(%para1_x)" in text and "PrimFunc_StridedSlice" in text
    assert "-> (<Tensor[Float32], (-1, 3)>)" in text


@settings(deadline=None, max_examples=15)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=4), st.integers(0, 2 ** 16))
def test_dynamic_results_equal_eager(sizes, seed):
    def fn(x, w):
        h = ops.relu(ops.matmul(x, w)) + ops.softmax(x, -1).mean(0)
        return ops.flatten(h.reshape(x.shape[0], 2, 2)).sum(1) * x.shape[0]
    w = _x(4, 4, seed=seed + 1)
    jf = ms.jit(fn, input_signature=(Tensor(shape=[None, 4], dtype=ms.float32), w))
    for b in sizes:
        x = _x(b, 4, seed=seed + b)
        np.testing.assert_allclose(jf(x, w).asnumpy(), fn(x, w).asnumpy(), rtol=1e-5,
                                   atol=1e-6)
    assert len(jf.cache) == 1


def test_signature_mismatch_names_the_argument():
    jf = ms.jit(lambda x, y: x + y, input_signature=(
        Tensor(shape=[None, 3], dtype=ms.float32), Tensor(shape=[None, 3], dtype=ms.float32)))
    x = _x(2, 3)
    with pytest.raises(ValueError, match=r"input 'y' must have shape \[-1, 3\].*got \[2, 4\]"):
        jf(x, _x(2, 4))
    with pytest.raises(ValueError, match=r"input 'x'.*got \[2\]"):
        jf(_x(2), x)
    with pytest.raises(TypeError, match=r"input 'y' must have dtype Float32.*Float64"):
        jf(x, _x(2, 3, dtype=np.float64))
    with pytest.raises(TypeError, match=r"input 'x' must be a Tensor.*list"):
        jf([1.0], x)
    with pytest.raises(TypeError, match="input_signature has 2 inputs"):
        jf(x)
    assert not jf.cache                           # no failed call left a graph behind
    assert jf(_x(5, 3), _x(5, 3)).shape == (5, 3)  # the same graph, other sizes


def test_two_dynamic_dims_reshape_is_kept():
    # (-1, -1) -> (-1, -1) has equal abstracts but transposes the sizes: no pass may drop it
    def fn(x):
        return ops.reshape(x, (x.shape[1], x.shape[0])) + 1
    jf = ms.jit(fn, input_signature=(Tensor(shape=[None, None], dtype=ms.float32),))
    for shape in ((2, 6), (3, 1), (4, 4)):
        x = _x(*shape)
        np.testing.assert_array_equal(jf(x).asnumpy(), fn(x).asnumpy())
    assert len(jf.cache) == 1


def test_python_needing_a_dynamic_value_is_decided_per_call_and_guarded():
    # the call's own sizes decide `if x.shape[0] > 2`; a size deciding otherwise gets its
    # own graph (jit/dyn_check.py); a model file (no call: a placeholder) cannot decide
    def cmp(x):
        if x.shape[0] > 2:
            return x
        return -x

    def index(x):
        return x[0]

    sig = (Tensor(shape=[None, 3], dtype=ms.float32),)
    jf = ms.jit(cmp, input_signature=sig)
    for n in (3, 1, 4, 2):
        x = _x(n, 3, seed=n)
        np.testing.assert_array_equal(jf(x).asnumpy(), cmp(x).asnumpy())
    assert [len(s.entries) for s in jf.cache.values()] == [2]
    with pytest.raises(ValueError, match=r"(?s)'Gt' on a dynamic dimension.*"
                                         r"test_jit_dynamic.py:\d+.*if x.shape\[0\] > 2"):
        ms.jit(cmp, input_signature=sig).graph(sig[0])
    with pytest.raises(IndexError, match=r"(?s)dynamic dimension.*return x\[0\]"):
        ms.jit(index, input_signature=sig)(_x(3, 3))


# ---- Cell.set_inputs under GRAPH_MODE ----------------------------------------------------------
def test_cell_set_inputs_compiles_once(graph_mode):
    net = LeNet(hidden=(32,))
    xs = [_x(b, 1, 32, 32, seed=b) for b in (1, 3, 5)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = [net(x).asnumpy() for x in xs]
    ms.set_context(mode=ms.GRAPH_MODE)
    ph = Tensor(shape=[None, 1, 32, 32], dtype=ms.float32)
    net.set_inputs(ph)
    assert net.get_inputs() == (ph,)
    for x, want in zip(xs, eager):
        np.testing.assert_array_equal(net(x).asnumpy(), want)
    assert len(cell_graph._CELL_JIT[net].cache) == 1
    with pytest.raises(ValueError, match=r"input 'x' must have shape \[-1, 1, 32, 32\]"):
        net(_x(2, 1, 28, 28))
    with pytest.raises(ValueError, match="at least one input"):
        net.set_inputs()


def test_argument_checks_on_dynamic_shapes_and_cells():
    # cross_entropy checks `target.shape` against `(input.shape[0],)` in Python: two
    # dynamic dims compare equal as inference assumes; the kernels check the real sizes
    sig = (Tensor(shape=[None, 4], dtype=ms.float32), Tensor(shape=[None], dtype=ms.int32))
    jf = ms.jit(lambda x, y: ops.cross_entropy(x, y), input_signature=sig)
    rng = np.random.default_rng(0)
    for n in (3, 6):
        x, y = _x(n, 4, seed=n), Tensor(rng.integers(0, 4, n).astype(np.int32))
        np.testing.assert_allclose(jf(x, y).asnumpy(), ops.cross_entropy(x, y).asnumpy(),
                                   rtol=1e-6)
    assert len(jf.cache) == 1
    with pytest.raises(ValueError):              # 3 rows, 5 labels: found when it runs
        jf(_x(3, 4), Tensor(np.zeros(5, np.int32)))
    dense = nn.Dense(4, 3)
    jd = ms.jit(lambda x: dense(x), input_signature=(
        Tensor(shape=[None, None, 4], dtype=ms.float32),))
    for shape in ((2, 5, 4), (3, 1, 4)):
        x = _x(*shape)
        np.testing.assert_allclose(jd(x).asnumpy(), dense(x).asnumpy(), rtol=1e-6)
    assert len(jd.cache) == 1

    def against_int(x):
        return x * 2 if x.shape == (3, 4) else x
    ja = ms.jit(against_int, input_signature=(sig[0],))
    for n in (3, 5, 3):
        np.testing.assert_array_equal(ja(_x(n, 4)).asnumpy(), against_int(_x(n, 4)).asnumpy())
    with pytest.raises(ValueError, match="comparing a dynamic dimension"):
        ja.graph(sig[0])
