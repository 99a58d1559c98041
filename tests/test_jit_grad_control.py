"""Graph autodiff through control flow and the grad options (issue 12 §1): `if` on tensors
(backward Switch graphs), closures, higher order, stop_gradient, has_aux, sens_param,
GradOperation's get_all / get_by_list, custom Cell.bprop, `while` on tensors (backward
loops that recompute), second order through `if`; eager's errors at compile time with the
source line; a second order through a `while` is named (tape fallback with a warning, an
error inside @jit)."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import nn, ops
from mindlite.ir import SWITCH, lint
from mindlite.jit import UnsupportedSyntaxError

from test_jit_grad import _both, _close, _joint_graph, _t

FEW = settings(max_examples=8, deadline=None)


def branchy(x, y):
    if ops.sum(x) > 0:
        z = x * y
        if ops.sum(y) > 0:
            z = z * ops.exp(y)
    else:
        z = ops.sin(x) + y * y
    return ops.sum(z * x)


@FEW
@given(seed=st.integers(0, 2 ** 31 - 1), sx=st.sampled_from([-1.0, 1.0]),
       sy=st.sampled_from([-1.0, 1.0]))
def test_if_on_tensors_backward_switch_equals_eager(seed, sx, sy):
    rng = np.random.default_rng(seed)
    x = ms.Tensor(np.abs(rng.standard_normal(4)) * sx)
    y = ms.Tensor(np.abs(rng.standard_normal(4)) * sy)
    got, want = _both(ms.grad, branchy, (x, y), grad_position=(0, 1))
    _close(got, want)


def test_backward_switch_is_in_the_graph_and_one_graph_serves_both_branches():
    g = ms.grad(ms.jit(branchy), (0, 1))
    pos = ms.Tensor(np.ones(3))
    neg = ms.Tensor(-np.ones(3))
    g(pos, pos)
    graph = _joint_graph(g, pos, pos)
    lint(graph)
    switches = [n for n in graph.order if getattr(n.inputs[0], "value", None) is SWITCH]
    assert len(switches) == 2                 # the forward's and the backward's
    names = [s.inputs[2].value.name for s in switches]
    assert any("bprop" in n for n in names)
    want = ms.grad(branchy, (0, 1))(neg, pos)
    _close(g(neg, pos), want)                 # same signature: the cached graph, other branch
    assert len(g._ml_joint.cache) == 1


def test_closures_and_lambdas():
    def outer(x, y):
        scale = ops.exp(y)

        def inner(a):
            return a * scale + ops.tanh(a)
        sq = lambda v: v * v                  # noqa: E731
        return ops.sum(sq(inner(x)) + inner(y))

    rng = np.random.default_rng(1)
    got, want = _both(ms.grad, outer, (_t(rng, 3), _t(rng, 3)), grad_position=(0, 1))
    _close(got, want)


@FEW
@given(seed=st.integers(0, 2 ** 31 - 1))
def test_higher_order(seed):
    def f(x):
        return ops.sum(ops.sin(x) * x * x)

    x = _t(np.random.default_rng(seed), 5)
    want = ms.grad(ms.grad(f))(x)
    _close(ms.grad(ms.grad(ms.jit(f)))(x), want)

    @ms.jit
    def second(x):
        return ms.grad(ms.grad(f))(x)
    _close(second(x), want)
    third = ms.grad(ms.jit(lambda x: ops.sum(ms.grad(ms.grad(f))(x))))
    _close(third(x), ms.grad(lambda x: ops.sum(ms.grad(ms.grad(f))(x)))(x))


def test_stop_gradient_has_aux_and_value_and_grad():
    def h(x, y):
        z = x * y
        return ops.sum(z * ops.stop_gradient(z)), z

    rng = np.random.default_rng(2)
    args = (_t(rng, 3), _t(rng, 3))
    for api in (ms.grad, ms.value_and_grad):
        got, want = _both(api, h, args, grad_position=(0, 1), has_aux=True)
        _close(got, want, api.__name__)


def test_grad_operation_options_and_sens_param():
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    for p in net.get_parameters():
        p.set_dtype(ms.float64)
    params = ms.ParameterTuple(net.trainable_params())

    def f(x, y):
        return net(x) * y

    rng = np.random.default_rng(3)
    x, y, s = _t(rng, 4, 3), _t(rng, 4, 2), _t(rng, 4, 2)
    for kw in (dict(), dict(get_all=True), dict(get_by_list=True),
               dict(get_all=True, get_by_list=True), dict(get_all=True, sens_param=True)):
        op = ops.GradOperation(**kw)
        args = (x, y, s) if kw.get("sens_param") else (x, y)
        w = (params,) if kw.get("get_by_list") else ()
        want = op(f, *w)(*args)
        compiled = op(ms.jit(f), *w)
        _close(compiled(*args), want, str(kw))
        assert _joint_graph(compiled, *args) is not None


class Doubler(nn.Cell):
    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return (dout * 5 + out,)


def test_custom_cell_bprop_is_parsed_in_place_of_the_constructs_backward():
    cell = Doubler()

    def f(x):
        return ops.sum(cell(x) * x)

    x = _t(np.random.default_rng(4), 3)
    got, want = _both(ms.grad, f, (x,))
    _close(got, want)
    # d/dx sum(c(x) * x) = custom(dout = x) + c(x) = (5x + 2x) + 2x
    np.testing.assert_allclose(got.asnumpy(), 9 * x.asnumpy())


def test_errors_are_eagers_at_compile_time_with_the_source_line():
    def f(x, y):
        return ops.sum(x * y)

    x = _t(np.random.default_rng(5), 3)

    @ms.jit
    def bad_position(x):
        return ms.grad(f, 2)(x, x)
    with pytest.raises(ValueError, match=r"'grad_position' 2 is out of range[\s\S]*"
                                         r"test_jit_grad_control.py:\d+\n\s+return ms.grad\(f, 2"):
        bad_position(x)
    assert not bad_position.cache

    @ms.jit
    def shape_output(x):                # Python numbers contribute zeros (MindSpore 2.10's)
        return ms.grad(lambda v: (v * 2).shape)(x)
    np.testing.assert_array_equal(shape_output(x).asnumpy(), np.zeros(3))

    @ms.jit
    def not_tensor(x):
        return ms.grad(lambda v: "text")(x)
    with pytest.raises(TypeError, match=r"output must be a Tensor or a tuple of Tensors, but "
                                        r"got str[\s\S]*test_jit_grad_control.py"):
        not_tensor(x)

    @ms.jit
    def not_parameters(x):
        return ms.grad(f, 0, [x])(x, x)
    with pytest.raises(TypeError, match=r"'weights' must be a Parameter[\s\S]*"
                                        r"test_jit_grad_control.py"):
        not_parameters(x)

    op = ops.GradOperation(sens_param=True)
    with pytest.raises(ValueError, match="the sensitivity must match the output"):
        op(ms.jit(lambda a: a * 2))(x, ms.Tensor(np.ones(4)))


def _loop(x, w):
    while ops.sum(x) < 10:
        x = x * w + ops.sin(x)
    return ops.sum(x * x)


@FEW
@given(seed=st.integers(0, 2 ** 31 - 1), start=st.sampled_from([0.05, 0.5, 3.0, 20.0]))
def test_while_on_a_tensor_equals_eager_for_any_trip_count(seed, start):
    rng = np.random.default_rng(seed)
    x = ms.Tensor(np.abs(rng.standard_normal(3)) * start)          # 20.0: no iteration
    w = ms.Tensor(1.2 + np.abs(rng.standard_normal(3)))
    got, want = _both(ms.grad, _loop, (x, w), grad_position=(0, 1))
    _close(got, want)


def _counted(x, w, n):
    i = ops.zeros_like(n)
    while i < n:
        if ops.sum(x) > 1:
            x = x * w
        else:
            x = x + w * w
        i = i + 1
    return ops.sum(x * x), i


@pytest.mark.parametrize("count", [0, 1, 4])
def test_while_with_an_if_in_its_body_and_a_weight(count):
    rng = np.random.default_rng(count)
    x, w = _t(rng, 3), _t(rng, 3)
    n = ms.Tensor(count, ms.int32)
    got, want = _both(ms.value_and_grad, _counted, (x, w, n), grad_position=(0, 1),
                      has_aux=True)
    _close(got, want)

    @ms.jit
    def inside(x, w, n):
        return ms.grad(_counted, (0, 1), has_aux=True)(x, w, n)
    _close(inside(x, w, n), ms.grad(_counted, (0, 1), has_aux=True)(x, w, n))


def test_nested_if_reading_a_value_only_the_inner_branch_uses():
    def f(x, y, z):
        if ops.sum(x) > 0:
            a = x * 2
            if ops.sum(a) > 1:
                a = a * ops.exp(z)            # z: read only by the inner branch
        else:
            a = x - y
        return ops.sum(a * y)

    x = ms.Tensor(np.array([1.0, 2.0]))
    rng = np.random.default_rng(7)
    got, want = _both(ms.grad, f, (x, _t(rng, 2), _t(rng, 2)), grad_position=(0, 1, 2))
    _close(got, want)
    assert np.abs(got[2].asnumpy()).min() > 0


def test_second_order_through_an_if_compiles():
    def inner(x):
        return ms.grad(branchy)(x, x * 0.5)

    def outer(x):
        return ops.sum(inner(x) ** 2)

    for sign in (1.0, -1.0):
        x = _t(np.random.default_rng(8), 4) * sign
        got, want = _both(ms.grad, outer, (x,))
        _close(got, want)


def test_second_order_through_a_while_is_named():
    def once(x):
        return ops.sum(ms.grad(_loop)(x, x * 0 + 1.5))

    x = ms.Tensor(np.array([0.5, 0.25]))
    g = ms.grad(ms.jit(once))
    with pytest.warns(UserWarning, match=r"backward of a 'while' loop on a tensor"):
        got = g(x)
    _close(got, ms.grad(once)(x))
    assert g._ml_joint == "tape"

    @ms.jit
    def inside(x):
        return ms.grad(once)(x)
    with pytest.raises(UnsupportedSyntaxError, match="backward of a 'while' loop"):
        inside(x)


def test_eager_grad_is_untouched_by_jit_support():
    def f(x):
        return ops.sum(x * x)
    x = _t(np.random.default_rng(6), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = ms.grad(f)
        _close(g(x), 2 * x)
    assert getattr(g, "_ml_joint", None) is None


def test_a_gradient_known_at_compile_time_is_a_new_tensor_at_every_call():
    def f(x):
        return ops.sum(x * 2)

    g = ms.grad(ms.jit(f))
    x = ms.Tensor(np.ones(3))
    first = g(x)
    first[0] = 7.0                    # the caller owns what it got
    again = g(x)
    assert again is not first
    np.testing.assert_array_equal(again.asnumpy(), [2.0, 2.0, 2.0])


def test_gradient_through_a_branch_that_returns_a_value_unchanged():
    # the false branch returns v, a node of the enclosing graph: its gradient must flow
    # (found by the fuzzer: jit(grad) gave 0 where eager gives 2)
    def f(w):
        v = w * 2
        if w.sum() > 0.5:
            v = w * 3
        return v
    for value in (0.0, 1.0):
        w = ms.Tensor(np.array([value], np.float32))
        np.testing.assert_array_equal(ms.jit(ms.grad(f))(w).asnumpy(),
                                      ms.grad(f)(w).asnumpy())
