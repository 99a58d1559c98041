"""Grad APIs: return structures (docs/mindspore_api.md), higher order, tape lifetime,
no recording without need, stop_gradient, bad input."""
import gc
import weakref

import numpy as np
import pytest

import mindlite as ms
from mindlite import Parameter, ParameterTuple, Tensor, ops
from mindlite.pynative.grad import GRAD_EXECUTOR


def t(*values):
    return Tensor(np.array(values, dtype=np.float64))


def f(x, y):
    return (x * x * y).sum()


def test_grad_first_input_and_tuple():
    x, y = t(1.0, 2.0), t(3.0, 4.0)
    gx = ms.grad(f)(x, y)
    assert isinstance(gx, Tensor) and np.allclose(gx.asnumpy(), [6.0, 16.0])
    gx, gy = ms.grad(f, (0, 1))(x, y)
    assert np.allclose(gy.asnumpy(), [1.0, 4.0])


def test_value_and_grad():
    x, y = t(1.0, 2.0), t(3.0, 4.0)
    value, gx = ms.value_and_grad(f)(x, y)
    assert float(value) == pytest.approx(19.0) and np.allclose(gx.asnumpy(), [6.0, 16.0])


def test_has_aux():
    def g(x):
        return (x * x).sum(), x + 1
    x = t(1.0, 2.0)
    grads, aux = ms.grad(g, has_aux=True)(x)
    assert np.allclose(grads.asnumpy(), [2.0, 4.0]) and isinstance(aux, tuple) and len(aux) == 1
    (out, aux1), grads = ms.value_and_grad(g, has_aux=True)(x)
    assert float(out) == pytest.approx(5.0) and np.allclose(aux1.asnumpy(), [2.0, 3.0])


def test_several_outputs_sum():
    x = t(1.0, 2.0)
    g = ms.grad(lambda x: (x * 2, x * x))(x)
    assert np.allclose(g.asnumpy(), [4.0, 6.0])


def test_weights_structures():
    w = Parameter(t(2.0, 3.0), name="w")

    def h(x):
        return (x * w).sum()
    x = t(1.0, 5.0)
    (gw,) = ms.grad(h, None, [w])(x)
    assert np.allclose(gw.asnumpy(), [1.0, 5.0])
    gx, (gw,) = ms.grad(h, 0, [w])(x)
    assert np.allclose(gx.asnumpy(), [2.0, 3.0]) and np.allclose(gw.asnumpy(), [1.0, 5.0])


def test_grad_operation():
    x, y = t(1.0, 2.0), t(3.0, 4.0)
    assert np.allclose(ops.GradOperation()(f)(x, y).asnumpy(), [6.0, 16.0])
    gx, gy = ops.GradOperation(get_all=True)(f)(x, y)
    assert np.allclose(gy.asnumpy(), [1.0, 4.0])
    sens = t(2.0, 2.0)
    g = ops.GradOperation(sens_param=True)(lambda x: x * x)(x, sens)
    assert np.allclose(g.asnumpy(), [4.0, 8.0])
    w = Parameter(t(2.0, 3.0), name="w")
    params = ParameterTuple([w])

    def h(x):
        return (x * w).sum()
    (gw,) = ops.GradOperation(get_by_list=True)(h, params)(x)
    assert np.allclose(gw.asnumpy(), [1.0, 2.0])
    (gx,), (gw,) = ops.GradOperation(get_all=True, get_by_list=True)(h, params)(x)
    assert np.allclose(gx.asnumpy(), [2.0, 3.0])


def test_unused_input_gets_zeros_and_frozen_parameter_none():
    x, y = t(1.0), t(2.0)
    gy = ms.grad(lambda x, y: x * 3, 1)(x, y)
    assert np.allclose(gy.asnumpy(), [0.0])
    w = Parameter(t(2.0), name="w", requires_grad=False)
    (gw,) = ms.grad(lambda x: x * w, None, [w])(x)
    assert np.allclose(gw.asnumpy(), [0.0])


def test_stop_gradient():
    x = t(3.0)
    g = ms.grad(lambda x: x * ops.stop_gradient(x))(x)
    assert np.allclose(g.asnumpy(), [3.0])


def test_higher_order():
    x = t(0.5, -1.5)
    d1 = ms.grad(lambda x: (x * x * x).sum())
    d2 = ms.grad(lambda x: d1(x).sum())
    assert np.allclose(d2(x).asnumpy(), 6 * x.asnumpy())


def test_tape_freed_and_nothing_recorded_without_grad():
    x = t(1.0, 2.0)
    ref = []

    def fn(x):
        y = x * x
        ref.append(weakref.ref(y))
        return y.sum()
    ms.grad(fn)(x)
    gc.collect()
    assert ref[0]() is None and not GRAD_EXECUTOR.tapes and not GRAD_EXECUTOR.recording
    tape = GRAD_EXECUTOR.open_tape()
    try:
        (x * x).sum()                      # x not watched: nothing recorded
        assert tape.nodes == []
    finally:
        GRAD_EXECUTOR.close_tape(tape)


def test_int_inputs_get_no_gradient_through_promotion():
    x = t(1.0, 2.0)
    n = Tensor(np.array([2, 3], np.int32))
    g = ms.grad(lambda x: (x * n).sum())(x)
    assert np.allclose(g.asnumpy(), [2.0, 3.0])


def test_bad_input():
    x = t(1.0)
    with pytest.raises(ValueError, match="'grad'.*out of range"):
        ms.grad(f, 5)(x, x)
    with pytest.raises(TypeError, match="'grad'.*'weights'"):
        ms.grad(f, 0, [x])
    with pytest.raises(TypeError, match="'grad'.*'grad_position'"):
        ms.grad(f, "a")
    with pytest.raises(TypeError, match="output must be a Tensor"):
        ms.grad(lambda x: "a")(x)
    assert ms.grad(lambda x: 3.0)(x).asnumpy().tolist() == [0.0]    # a constant: zeros, as MS
    with pytest.raises(ValueError, match="sensitivity"):
        ops.GradOperation(sens_param=True)(lambda x: x * x)(t(1.0, 2.0), t(1.0))
    with pytest.raises(TypeError, match="'grad'.*must be a Tensor"):
        ms.grad(f)(1.0, x)


def test_completeness_every_primitive_has_bprop_or_mark():
    """Every primitive class (forward and gradient ones) can be differentiated or says it can't.
    ops.Custom is excluded: its bprop is given per instance (test_custom_ops.py)."""
    import inspect

    from mindlite.ir.primitive import Primitive
    from mindlite.ir.rules import BPROPS, NON_DIFFERENTIABLE

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)
    missing = []
    for cls in set(subclasses(Primitive)):
        mod = cls.__module__
        if not mod.startswith("mindlite.ops.operations") or cls.__name__.startswith("_"):
            continue
        if inspect.isabstract(cls) or cls.__name__ in ("Custom",) or mod.endswith("_base"):
            continue
        if cls not in BPROPS and cls not in NON_DIFFERENTIABLE:
            missing.append(f"{mod.rsplit('.', 1)[1]}.{cls.__name__}")
    assert not missing, sorted(missing)


def test_backward_skips_gradients_of_untracked_inputs():
    """Only gradients the tape follows are computed: the data input of a weights-only grad
    gets none (MatMul's dx is never built), and results do not change."""
    from mindlite.ops.operations import math_ops
    calls = []
    real = math_ops._matmul_grads

    def counting(cls, prim, a, b, dout):
        da, db = real(cls, prim, a, b, dout)
        calls.append((da is not None, db is not None))
        return da, db
    x = Tensor(np.arange(6.0).reshape(2, 3))
    w = Parameter(Tensor(np.ones((3, 2))), name="w")
    loss = lambda inp: ops.matmul(inp, w).sum()   # noqa: E731
    math_ops._matmul_grads = counting
    try:
        dw = ms.grad(loss, grad_position=None, weights=[w])(x)
        dx = ms.grad(loss)(x)
    finally:
        math_ops._matmul_grads = real
    assert calls == [(False, True), (True, False)]
    np.testing.assert_allclose(dw[0].asnumpy(), np.repeat(x.asnumpy().sum(0)[:, None], 2, 1))
    np.testing.assert_allclose(dx.asnumpy(), np.full((2, 3), 2.0))
