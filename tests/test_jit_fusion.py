"""Elementwise fusion (mindlite/jit/passes/fuse_elementwise.py) and its primitive FusedElemwise
(ops/operations/fused_ops.py; kernels cpp / numba / numpy): graphs before and after, results
equal to eager over generated expression DAGs (broadcasting, 0-d, empty, NaN/inf, float32 and
float64), what must not be fused, gradients, and bad arguments."""
import contextlib
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import nn, ops
from mindlite.ir import ValueNode, lint, reachable_graphs
from mindlite.jit.passes import fuse_elementwise, pipeline
from mindlite.ops.operations.fused_ops import FusedElemwise

FUSIONS = ("matmul_biasadd_fusion", "elementwise_fusion")


@contextlib.contextmanager
def no_fusion():
    saved = pipeline.PIPELINE
    pipeline.PIPELINE = [e for e in saved if isinstance(e, str) or e[0] not in FUSIONS]
    try:
        yield
    finally:
        pipeline.PIPELINE = saved


@contextlib.contextmanager
def fuse_small():
    saved = fuse_elementwise.MIN_ELEMENTS
    fuse_elementwise.MIN_ELEMENTS = 0
    try:
        yield
    finally:
        fuse_elementwise.MIN_ELEMENTS = saved


def names(graph):
    """Counter of the primitive names called by the nodes of every graph."""
    out = Counter()
    for g in reachable_graphs(graph):
        for n in g.order:
            v = n.inputs[0].value if isinstance(n.inputs[0], ValueNode) else None
            out[getattr(v, "name", "call")] += 1
    return out


def fused_nodes(graph):
    return [n for g in reachable_graphs(graph) for n in g.order
            if isinstance(n.inputs[0], ValueNode)
            and isinstance(n.inputs[0].value, FusedElemwise)]


def t(shape, dtype=np.float32, seed=0):
    return ms.Tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def chain(x, y):
    a = x * 2.0 - y
    b = ops.exp(ops.neg(ops.square(a)))
    return ops.tanh(b) * x + 1


BIG = (64, 128)       # 8192 elements: fused


def test_chain_becomes_one_fused_node_with_the_ops_in_order():
    x, y = t(BIG), t(BIG[1:], seed=1)
    with no_fusion():
        before = names(ms.jit(chain).graph(x, y))
    assert before == Counter({"Mul": 2, "Sub": 1, "Square": 1, "Neg": 1, "Exp": 1, "Tanh": 1,
                              "Add": 1})
    jf = ms.jit(chain)
    graph = jf.graph(x, y)
    lint(graph)
    assert names(graph) == Counter({"FusedElemwise": 1})
    (node,) = fused_nodes(graph)
    steps = [s[0] for s in node.inputs[0].value.attrs["program"]]
    assert steps == ["Mul", "Sub", "Square", "Neg", "Exp", "Tanh", "Mul", "Add"]
    assert node.abstract.shape == BIG and node.abstract.dtype is ms.float32
    # the C++ kernel runs the unfused ops' own vector loops: equal to eager bit for bit
    np.testing.assert_array_equal(jf(x, y).asnumpy(), chain(x, y).asnumpy())


def test_short_chains_on_small_outputs_stay_unfused():
    """Below MIN_ELEMENTS only groups of MIN_SMALL_NODES ops or more are fused (one launch
    does not pay for fewer), so the seed example's dump keeps MindSpore's layout."""
    def seed(x, y):
        a = x - 1
        return a + y
    x, y = t((2, 3)), t((3,), seed=1)
    assert names(ms.jit(seed).graph(x, y)) == Counter({"Sub": 1, "Add": 1})
    jf = ms.jit(chain)
    assert names(jf.graph(x, y)) == Counter({"FusedElemwise": 1})
    np.testing.assert_array_equal(jf(x, y).asnumpy(), chain(x, y).asnumpy())
    x = t((64, 64))
    assert names(ms.jit(seed).graph(x, x)) == Counter({"FusedElemwise": 1})


def test_an_intermediate_with_another_user_is_not_fused_into_its_user():
    def fn(x):
        a = x * 2.0 + 1.0
        s = a.sum()                       # a non-elementwise user of a
        return ops.exp(a) * 3.0, s, a     # and a graph output
    x = t(BIG)
    jf = ms.jit(fn)
    graph = jf.graph(x)
    lint(graph)
    first, second = fused_nodes(graph)
    assert [s[0] for s in first.inputs[0].value.attrs["program"]] == ["Mul", "Add"]
    assert [s[0] for s in second.inputs[0].value.attrs["program"]] == ["Exp", "Mul"]
    assert second.inputs[1] is first
    for got, want in zip(jf(x), fn(x)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


class _WriteBetween(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(t(BIG, seed=3), name="p")

    def construct(self, x):
        a = self.p * 2.0
        ops.assign(self.p, x)
        return a + self.p * 3.0          # reads the new p; `a` must read the old one


def test_never_moved_past_an_in_place_write():
    x = t(BIG)
    want = _WriteBetween()(x).asnumpy()
    net = _WriteBetween()
    jf = ms.jit(type(net).construct)
    graph = jf.graph(net, x)
    (node,) = fused_nodes(graph)
    assert [s[0] for s in node.inputs[0].value.attrs["program"]] == ["Mul", "Add"]
    np.testing.assert_array_equal(jf(net, x).asnumpy(), want)


def test_calls_that_promote_are_left_alone():
    def fn(xi, x64, x32):
        return (xi * 1.5 + 2.0, ops.exp(x64 + x32) * 2.0)
    xi = ms.Tensor(np.arange(8192, dtype=np.int32).reshape(BIG))
    x64, x32 = t(BIG, np.float64), t(BIG, np.float32, seed=2)
    jf = ms.jit(fn)
    graph = jf.graph(xi, x64, x32)
    progs = [[s[0] for s in n.inputs[0].value.attrs["program"]] for n in fused_nodes(graph)]
    assert progs == [["Exp", "Mul"]]      # int*float and float64+float32 promote: not fused
    for got, want in zip(jf(xi, x64, x32), fn(xi, x64, x32)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


# ---- generated expression DAGs vs eager ------------------------------------------------------
def _c_mul(a, b):
    return a * 2.5


def _c_rsub(a, b):
    return 1 - a


def _to64(a, b):
    return ops.cast(a, ms.float64)


def _to32(a, b):
    return ops.cast(a, ms.float32)


BINARY = {"add": ops.add, "sub": ops.sub, "mul": ops.mul, "div": ops.div,
          "maximum": ops.maximum, "minimum": ops.minimum}
UNARY = {"neg": ops.neg, "square": ops.square, "abs": ops.abs, "exp": ops.exp, "log": ops.log,
         "sqrt": ops.sqrt, "rsqrt": ops.rsqrt, "reciprocal": ops.reciprocal, "relu": ops.relu,
         "sigmoid": ops.sigmoid, "tanh": ops.tanh}
FUNCS = dict(BINARY, **{k: (lambda f: lambda a, b: f(a))(f) for k, f in UNARY.items()},
             c_mul=_c_mul, c_rsub=_c_rsub, to64=_to64, to32=_to32)


def interp(prog, x, y, z):
    """Runs `prog` ((name, i, j): vals.append(FUNCS[name](vals[i], vals[j]))) and returns the
    last value and the one at index 3 (an intermediate with a user outside the chain)."""
    vals = [x, y, z]
    for name, i, j in prog:
        vals.append(FUNCS[name](vals[i], vals[j]))
    return vals[-1], vals[3]


SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1), (0, 3), (4, 2, 3)]
VALUES = st.sampled_from([0.0, -0.0, 1.0, -2.5, 0.5, 3.0, 1e-30, 88.0, -100.0, np.inf, -np.inf,
                          np.nan])


@st.composite
def programs(draw):
    n = draw(st.integers(2, 7))
    prog = []
    for k in range(n):
        name = draw(st.sampled_from(sorted(FUNCS)))
        i = draw(st.just(2 + k) | st.integers(0, 2 + k))      # mostly chains, some DAGs
        j = draw(st.integers(0, 2 + k))
        prog.append((name, i, j))
    return tuple(prog)


@st.composite
def operands(draw, dtype):
    shapes = draw(st.lists(st.sampled_from(SHAPES), min_size=3, max_size=3))
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        shapes = [shapes[0]] * 3
    out = []
    for s in shapes:
        size = int(np.prod(s))
        vals = draw(st.lists(VALUES | st.floats(-20, 20), min_size=size, max_size=size))
        out.append(ms.Tensor(np.array(vals, dtype=dtype).reshape(s)))
    return out


def _eager(prog, args):
    try:
        return interp(prog, *args), None
    except (TypeError, ValueError) as err:       # e.g. a float64 step meets float32: promoted
        return None, err


@settings(max_examples=60, deadline=None)
@given(prog=programs(), dtype=st.sampled_from([np.float32, np.float64]), data=st.data())
def test_generated_dags_equal_eager(prog, dtype, data):
    args = data.draw(operands(dtype))
    want, err = _eager(prog, args)
    jf = ms.jit(interp)
    if err is not None:
        with pytest.raises(type(err)):
            jf(prog, *args)
        return
    with fuse_small():
        graph = jf.graph(prog, *args)
    lint(graph)
    got = jf(prog, *args)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


@pytest.mark.parametrize("xs, ys", [((7, 1000), (1000,)), ((5, 3, 200), (3, 200)),
                                    ((9, 130), (1, 130)), ((600, 7), (7,)), ((3, 4, 500), (4, 1))])
def test_broadcast_layouts_equal_eager(xs, ys):
    """Rows read in place (long periods), gathered (short ones) or copied dense (other)."""
    x, y = t(xs, np.float64), t(ys, np.float64, seed=4)
    jf = ms.jit(chain)
    assert names(jf.graph(x, y)) == Counter({"FusedElemwise": 1})
    np.testing.assert_array_equal(jf(x, y).asnumpy(), chain(x, y).asnumpy())


def test_branches_and_loops_fuse_inside_their_own_graphs():
    def fn(x, y, n):
        a = x * 0.5 + y                      # a free variable of both branches
        if a.sum() > 0:
            b = ops.exp(-a) * 2.0 - y        # fused inside the true branch
        else:
            b = ops.tanh(a) + a * a
        i = ops.zeros((), ms.int32)
        while i < n:                         # a loop graph: n is a tensor
            b = ops.relu(b * 0.9 - 0.1) + y   # fused inside the loop body
            i = i + 1
        return b, a
    x, y, n = t(BIG), t(BIG[1:], seed=1), ms.Tensor(3, ms.int32)
    jf = ms.jit(fn)
    graph = jf.graph(x, y, n)
    lint(graph)
    assert len({node.graph.name for node in fused_nodes(graph)}) >= 4   # root, branches, body
    for args in ((x, y, n), (-x, y, n), (x, y, ms.Tensor(0, ms.int32))):
        for got, want in zip(jf(*args), fn(*args)):
            np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
