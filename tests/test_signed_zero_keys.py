"""Cache keys tell -0.0 from 0.0 (and True from 1): two programs that differ only there are
different programs (1 / -0.0 is -inf). Found by a graph-mode program whose FusedElemwise
constant -0.0 was served the primitive built for 0.0 (prim_attr_register's prototype cache
compared the program tuples with ==)."""
import warnings

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.common.signature import _hashable
from mindlite.jit.passes.common import value_key
from mindlite.ops import operations as P
from mindlite.ops.operations.fused_ops import FusedElemwise


def _pos(x):
    return ops.exp(x) / (ops.exp(x) * 0.0 + 0.0) + ops.sin(x)


def _neg(x):
    return ops.exp(x) / (ops.exp(x) * -0.0 + -0.0) + ops.sin(x)


@pytest.mark.parametrize("first", [_pos, _neg])
def test_jit_programs_differing_in_zero_sign(first):
    x = Tensor(np.ones((4, 5), np.float32))
    ms.jit(first)(x)                        # compiled first: its primitives are cached
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (_pos, _neg):
            want = fn(x).asnumpy()          # eager
            np.testing.assert_array_equal(ms.jit(fn)(x).asnumpy(), want)
    assert np.isneginf(ms.jit(_neg)(x).asnumpy()).all()


def test_primitive_attrs_keep_zero_sign():
    prog = lambda c: (("Mul", (0, ("c", c)), None),)   # noqa: E731
    a, b = FusedElemwise(prog(0.0), 1), FusedElemwise(prog(-0.0), 1)
    assert str(a.attrs["program"]) != str(b.attrs["program"])
    assert a.attrs_key != b.attrs_key and a != b
    x = Tensor(np.ones(3, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isposinf(1 / a(x).asnumpy()).all()
        assert np.isneginf(1 / b(x).asnumpy()).all()


def test_prototype_cache_checks_each_argument_type():
    P.Pad(((0, 1), (0, 0)))
    with pytest.raises(TypeError, match="Pad"):
        P.Pad(((0, 1), (False, 0)))     # equal to the cached tuple, but not ints


def test_keys():
    assert _hashable(0.0) != _hashable(-0.0)
    assert _hashable(1.5) == _hashable(1.5)
    assert _hashable(np.float32(-0.0)) != _hashable(np.float32(0.0))
    assert _hashable(complex(-0.0, 1)) != _hashable(complex(0.0, 1))
    assert _hashable((0.0, 1)) != _hashable((-0.0, 1))
    assert value_key(0.0) != value_key(-0.0)
    assert value_key(2.0) == value_key(2.0)
    assert value_key(float("nan")) is None


class _Scaled(ms.nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.c = c

    def construct(self, x):
        return 1 / (x * self.c)


def test_graph_cell_attribute_changing_zero_sign_recompiles():
    x = Tensor(np.ones(2, np.float32))
    net = _Scaled(0.0)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for c, want in ((0.0, np.inf), (-0.0, -np.inf), (2.0, 0.5), (0.0, np.inf),
                            (-0.0, -np.inf)):
                net.c = c
                np.testing.assert_array_equal(net(x).asnumpy(), [want, want])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
