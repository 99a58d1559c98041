"""Every object the grad APIs return compiles under jit and inside a jitted function (as in
MindSpore 2.10): jit(grad(f)), jit(value_and_grad(...)), jit(GradOperation(...)(f)),
jit(vmap(f)), the same called from graph code, and a jit of a grad called from graph code
(jit/parse/parser.parse_transform, parse/grad.special_call, parse/vmap.py). Results are
eager's."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn, ops
from mindlite.jit import UnsupportedSyntaxError

X = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
Y = Tensor(np.array([0.5, 1.5, -2.0], np.float32))
B = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))


def f(x):
    return (x * x * 3).sum()


def f2(x, y):
    return (x * y + x).sum()


def f_aux(x):
    return (x * x).sum(), x * 2


def per_row(r):
    return ops.relu(r - 1.0).sum() * r


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)

    def construct(self, x):
        return self.dense(x).sum()


NET = Net()
WEIGHTS = NET.trainable_params()


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
        return
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-6)
    assert a.dtype == b.dtype


OBJECTS = {
    "grad": (lambda: ms.grad(f), (X,)),
    "grad_positions": (lambda: ms.grad(f2, grad_position=(0, 1)), (X, Y)),
    "grad_aux": (lambda: ms.grad(f_aux, has_aux=True), (X,)),
    "value_and_grad": (lambda: ms.value_and_grad(f2, grad_position=1), (X, Y)),
    "value_and_grad_weights": (lambda: ms.value_and_grad(NET, None, WEIGHTS), (B,)),
    "GradOperation": (lambda: ops.GradOperation()(f), (X,)),
    "GradOperation_all": (lambda: ops.GradOperation(get_all=True)(f2), (X, Y)),
    "GradOperation_sens": (lambda: ops.GradOperation(sens_param=True)(lambda x: x * x),
                           (X, Y)),
    "GradOperation_list": (lambda: ops.GradOperation(get_by_list=True)(NET, WEIGHTS), (B,)),
    "vmap": (lambda: ops.vmap(per_row), (B,)),
    "vmap_axes": (lambda: ops.vmap(f2, in_axes=(1, None), out_axes=0), (B.T, X)),
}


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_jit_of_the_object_equals_eager(name):
    make, args = OBJECTS[name]
    obj = make()
    jf = ms.jit(obj)
    _same(jf(*args), obj(*args))
    _same(jf(*args), obj(*args))                   # the cached graph
    assert jf.graph(*args) is not None


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_the_object_inside_a_jitted_function_equals_eager(name):
    make, args = OBJECTS[name]
    obj = make()
    jitted = ms.jit(obj)

    def made_inside(*a):                           # the object made in graph code
        return make()(*a)

    def called_inside(*a):                         # made outside, called in graph code
        return obj(*a)

    def jit_inside(*a):                            # a jit of it, called in graph code
        return jitted(*a)
    want = obj(*args)
    for fn in (called_inside, jit_inside):
        _same(ms.jit(fn)(*args), want)
    if not name.startswith(("value_and_grad_weights", "GradOperation_list")):
        _same(ms.jit(made_inside)(*args), want)


def test_a_vmap_of_a_function_defined_in_graph_code_is_refused_naming_it():
    def g(x):
        return ops.vmap(lambda r: r * 2)(x)
    with pytest.raises(UnsupportedSyntaxError, match="vmap of a function defined inside graph"):
        ms.jit(g)(B)
