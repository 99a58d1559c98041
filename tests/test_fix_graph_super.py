"""Graph mode parses super(): zero-argument super() (resolved through the method's defining
class, its __class__ cell, and the first parameter, as Python does) and super(Cls, self) in a
construct or helper method; nn.Conv1d / nn.Conv1dTranspose (which call super().construct)
and user cells compile under GRAPH_MODE and @jit and equal PyNative."""
import warnings

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn, ops


def _eager_then_graph(net, *args):
    want = net(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")       # no silent eager fallback
            got = net(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return got, want


def _x(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize("pad_mode,padding,stride", [("same", 0, 1), ("valid", 0, 2),
                                                     ("pad", 1, 1)])
def test_conv1d_graph_equals_pynative(pad_mode, padding, stride):
    net = nn.Conv1d(3, 4, 3, stride=stride, pad_mode=pad_mode, padding=padding, has_bias=True)
    got, want = _eager_then_graph(net, _x(2, 3, 9))
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


def test_conv1d_transpose_graph_equals_pynative():
    net = nn.Conv1dTranspose(3, 2, 3, stride=2, pad_mode="valid")
    got, want = _eager_then_graph(net, _x(2, 3, 5))
    assert got.shape == want.shape
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


class Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        return self.dense(x) * 2

    def helper(self, x):
        return x - 1


class ZeroArg(Base):
    def construct(self, x):
        return ops.relu(super().construct(x)) + super().helper(x)

    def helper(self, x):
        return x + 100          # must not be the one super().helper reaches


class Explicit(Base):
    def construct(self, x):
        return super(Explicit, self).construct(x) + 1


class Grand(ZeroArg):
    def construct(self, x):
        y = super().construct(x)          # ZeroArg.construct, whose super() is Base's
        return y * 3


@pytest.mark.parametrize("cls", [ZeroArg, Explicit, Grand])
def test_user_cell_super_construct(cls):
    net = cls()
    got, want = _eager_then_graph(net, _x(3, 4))
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


def test_super_in_jit_function_and_closure():
    net = Grand()
    x = _x(2, 4, seed=1)

    @ms.jit
    def run(x):
        return net(x) + 1

    np.testing.assert_allclose(run(x).asnumpy(), (net(x) + 1).asnumpy(), rtol=1e-5,
                               atol=1e-6)


class NestedSuper(Base):
    def construct(self, x):
        def inner(self):
            return super().construct(x)       # Python: __class__ from the enclosing method
        return inner(self)


def test_super_in_def_inside_construct():
    net = NestedSuper()
    got, want = _eager_then_graph(net, _x(2, 4, seed=2))
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


def test_super_outside_class_is_an_error():
    def plain(x):
        return super().construct(x)

    with pytest.raises(RuntimeError, match="__class__"):
        ms.jit(plain)(_x(2))


@pytest.mark.parametrize("cls", [nn.GRUCell, nn.RNNCell])
def test_rnn_cells_calling_super_construct(cls):
    cell = cls(4, 5)
    got, want = _eager_then_graph(cell, _x(3, 4), _x(3, 5, seed=1))
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
