"""Graph mode with an ops.Custom carrying attrs (issue 11): the node lowers to the compiled
runner (kernel_graph.py `_callable`: the generic Custom kernels build their launch from the
primitive, not from a KernelDef.fn) and gives eager's result, for pyfunc and numba Customs
and a Cell run under GRAPH_MODE."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import nn, ops
from mindlite.jit import cell_graph
from mindlite.jit import kernel_graph as kgm


def scale_shift(x, factor=None, shift=None):
    return (x * factor + shift).astype(x.dtype)


def scale_shift_out(x, out, factor=None, shift=None):
    for i in range(x.size):
        out.flat[i] = x.flat[i] * factor + shift


class Net(nn.Cell):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def construct(self, x):
        return self.op(x) + 1


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _custom(func_type):
    func = scale_shift if func_type == "pyfunc" else scale_shift_out
    return ops.Custom(func, func_type=func_type, attrs={"factor": 3.0, "shift": -0.5})


@pytest.mark.parametrize("func_type", ["pyfunc", "numba"])
def test_cell_with_custom_attrs_graph_mode(graph_mode, func_type):
    if func_type == "numba":
        pytest.importorskip("numba", reason="numba Customs need numba")
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    net = Net(_custom(func_type))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    got = net(x).asnumpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, np.arange(12, dtype=np.float32).reshape(3, 4) * 3 + 0.5)
    prog = cell_graph._CELL_JIT[net].compiled((net, x), {})._program
    assert prog.runner is not None, prog.reason
    step = next(s for s in prog.kg.steps if s.prim.name == "Custom")
    assert step.kind == kgm.KERNEL


@settings(max_examples=20, deadline=None)
@given(st.floats(-4, 4, allow_nan=False, width=32), st.floats(-4, 4, allow_nan=False, width=32),
       st.integers(1, 5))
def test_jit_custom_attrs_matches_eager(factor, shift, n):
    op = ops.Custom(scale_shift, attrs={"factor": factor, "shift": shift})

    def f(x):
        return op(x) * 2

    x = ms.Tensor(np.linspace(-1, 1, n * 3, dtype=np.float32).reshape(n, 3))
    want = f(x).asnumpy()
    jf = ms.jit(f)
    np.testing.assert_array_equal(jf(x).asnumpy(), want)
    np.testing.assert_array_equal(jf(x).asnumpy(), want)          # the lowered run again
    assert jf.compiled((x,), {})._program.runner is not None
