"""break / continue under tensor conditions inside while and for loops (jit/parse_control.py
flag_loop: flags carried through the loop state) and return under tensor conditions in
unrolled for loops (resume_for), compared with eager over generated inputs; loops on
constants still decided at compile time."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Tensor, nn, ops
from mindlite.ir import dump_ir
from mindlite.jit import UnsupportedSyntaxError


def while_break(x, lim):
    i = Tensor(0, ms.int32)
    while i < 8:
        x = x * 1.5 + 0.25
        if x.sum() > lim:
            break
        i = i + 1
    return x, i


def while_continue_else(x):
    i = Tensor(0, ms.int32)
    s = x * 0
    while i < 6:
        i = i + 1
        if (x * i.astype(ms.float32)).sum() > 3:
            continue
        elif x.max() < -1:
            break
        s = s + x * 2
    else:
        s = s - 1
    return s, i


def for_break_continue(x):
    acc = x[0] * 0
    for k in range(5):
        if x[k] < 0:
            continue
        acc = acc + x[k]
        if acc > 2:
            acc = acc * 10
            break
        acc = acc + k
    else:
        acc = acc - 1
    return acc


def loop_in_tensor_while(x):
    i = (x.sum() * 0).astype(ms.int32)    # a tensor test: one loop graph
    while i < 3:
        for k in range(2):                # its own break, inside the loop graph's body
            if x[k] > 1:
                break
            x = x + 0.5
        i = i + 1
    return x


def nested(x):
    total = x.sum() * 0
    for k in range(3):
        j = Tensor(0, ms.int32)
        while j < 4:                      # the inner break ends only the inner loop
            j = j + 1
            if x[k] * j.astype(ms.float32) > 1.5:
                break
            total = total + x[k]
        if total < -2:
            break
    return total


def const_break(x):
    for k in range(10 ** 6):              # constant: stops at compile time
        if k == 3:
            break
        x = x + k
    return x


_floats = st.floats(-2, 2, allow_nan=False, width=32)


def _t(values):
    return Tensor(np.array(values, np.float32))


def _same(a, b):
    for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_allclose(u.asnumpy(), v.asnumpy(), rtol=1e-6, atol=1e-6)


@settings(deadline=None, max_examples=25)
@given(st.lists(_floats, min_size=5, max_size=5), st.floats(-5, 40, width=32))
def test_tensor_break_continue_equal_eager(values, lim):
    x = _t(values)
    lim_t = Tensor(np.float32(lim))
    _same(ms.jit(while_break)(x, lim_t), while_break(x, lim_t))
    _same(ms.jit(while_continue_else)(x), while_continue_else(x))
    _same(ms.jit(for_break_continue)(x), for_break_continue(x))
    _same(ms.jit(nested)(x), nested(x))
    _same(ms.jit(loop_in_tensor_while)(x), loop_in_tensor_while(x))


def while_true(x):
    while True:                           # a constant test: the break flag alone ends it
        x = x * 2
        if x.sum() > 10:
            break
    return x


class BreakingStack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(3, 3) for _ in range(4)])

    def construct(self, x):
        for layer in self.layers:
            x = ops.tanh(layer(x))
            if ops.abs(x).max() < 0.3:
                break
        return x


def test_while_true_and_a_cell_list_that_break_on_tensors():
    for v in ([1.0, 2.0], [0.01, 0.0], [-3.0, 20.0]):
        _same(ms.jit(while_true)(_t(v)), while_true(_t(v)))
    net = BreakingStack()
    rng = np.random.default_rng(1)
    for scale in (0.01, 1.0):
        x = Tensor((rng.random((2, 3)) * scale).astype(np.float32))
        want = net(x)
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got = net(x)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        _same(got, want)


def test_break_builds_flags_into_the_loop_graph():
    text = dump_ir(ms.jit(while_break).graph(_t([1.0, 2.0]), Tensor(np.float32(3))))
    assert "Switch(" in text and "LogicalNot" in text     # the break flag ends the loop
    jf = ms.jit(const_break)
    x = _t([0.5])
    _same(jf(x), const_break(x))
    assert "Switch" not in dump_ir(jf.graph(x))             # constant: no flag in the graph


def test_loop_variable_after_a_tensor_break_is_an_error():
    def fn(x):
        for k in range(3):
            if x[k] > 0:
                break
        return x * k

    with pytest.raises(UnsupportedSyntaxError, match=r"(?s)loop variable 'k'.*return x \* k"):
        ms.jit(fn)(_t([1.0, 2.0, 3.0]))

    def fine(x):                                            # read only inside the loop
        y = x * 0
        for k in range(3):
            if x[k] > 0:
                break
            y = y + k
        return y
    for v in ([1.0, 2, 3], [-1.0, -2, 3], [-1.0, -2, -3]):
        _same(ms.jit(fine)(_t(v)), fine(_t(v)))


def first_positive(x):
    for k in range(4):
        if x[k] > 0:
            return x[k] * 10
        x = x + 1
    return x.sum()


def nested_return(x):
    for i in range(2):
        for j in range(2):
            if x[i] * x[j] > 1:
                return x * (i + j)
        x = x - 0.5
    y = x - 1
    return y


@settings(deadline=None, max_examples=25)
@given(st.lists(_floats, min_size=4, max_size=4))
def test_return_under_a_tensor_condition_in_an_unrolled_for(values):
    x = _t(values)
    _same(ms.jit(first_positive)(x), first_positive(x))
    _same(ms.jit(nested_return)(x), nested_return(x))


def test_return_under_a_tensor_condition_in_a_while_stays_an_error():
    def fn(x):
        while x.sum() < 10:
            x = x + 1
            if x.max() > 3:
                return x
        return x * 2

    with pytest.raises(UnsupportedSyntaxError, match="return"):
        ms.jit(fn)(_t([1.0]))


def test_flag_loop_with_ops_inside_cells_like_code():
    def fn(x, w):
        h = x
        n = Tensor(0, ms.int32)
        while n < 5:
            n = n + 1
            h = ops.tanh(ops.matmul(h, w))
            if ops.abs(h).max() < 0.05:
                break
        return h, n
    rng = np.random.default_rng(0)
    for scale in (0.01, 1.0):
        x = Tensor((rng.standard_normal((2, 3)) * scale).astype(np.float32))
        w = Tensor((rng.standard_normal((3, 3)) * scale).astype(np.float32))
        _same(ms.jit(fn)(x, w), fn(x, w))
