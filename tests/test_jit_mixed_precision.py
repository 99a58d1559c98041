"""Graph mode and Cell.to_float: a mixed-precision sub-cell is never inlined into a graph
(its casts happen at run time, nn/cell_mixed.py), so GRAPH_MODE runs the holder eagerly with a
warning and @jit names the cell; results equal PyNative's, in float16."""
import warnings

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn
from mindlite.jit.errors import UnsupportedSyntaxError


class Holder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.Dense(4, 3).to_float(ms.float16)
        self.b = nn.Dense(3, 2)

    def construct(self, x):
        return self.b(self.a(x).astype(ms.float32))


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_graph_mode_keeps_to_float_casts(graph_mode):
    net = Holder()
    x = Tensor(np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want, want_a = net(x).asnumpy(), net.a(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = net(x).asnumpy()
    assert any("Holder.construct" in str(w.message) for w in caught)
    np.testing.assert_array_equal(got, want)
    assert net.a(x).dtype == want_a.dtype == ms.float16


def test_jit_names_the_mixed_precision_cell():
    net = Holder()

    @ms.jit
    def f(x):
        return net.a(x)

    with pytest.raises(UnsupportedSyntaxError, match="mixed-precision cell Dense"):
        f(Tensor(np.ones((2, 4), np.float32)))
