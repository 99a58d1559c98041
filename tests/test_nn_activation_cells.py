"""nn activation cells of nn/layer/activation.py: outputs against the functional ops
(or numpy), names and reprs as MindSpore 2.10 prints them, PReLU's slope Parameter and its
gradients, get_activation's names, errors raised at the call."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import Tensor, nn, ops
from gradcheck import check_grad

X = np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32)

CELLS = {
    "LeakyReLU": (lambda: nn.LeakyReLU(0.1), lambda t: ops.leaky_relu(t, 0.1)),
    "ELU": (nn.ELU, ops.elu),
    "SeLU": (nn.SeLU, ops.selu),
    "CELU": (lambda: nn.CELU(0.5), lambda t: ops.celu(t, 0.5)),
    "HSwish": (nn.HSwish, ops.hardswish),
    "HSigmoid": (nn.HSigmoid, ops.hardsigmoid),
    "Mish": (nn.Mish, ops.mish),
    "Softsign": (nn.Softsign, ops.softsign),
    "Hardtanh": (lambda: nn.Hardtanh(-0.5, 2.5), lambda t: ops.hardtanh(t, -0.5, 2.5)),
    "LogSigmoid": (nn.LogSigmoid, ops.logsigmoid),
    "Softmin": (nn.Softmin, lambda t: ops.softmax(-t, -1)),
    "Tanhshrink": (nn.Tanhshrink, lambda t: t - ops.tanh(t)),
    "Identity": (lambda: nn.Identity(3, k=1), lambda t: t),
}


@pytest.mark.parametrize("name", sorted(CELLS))
def test_cell_equals_its_functional_op_and_prints_as_mindspore(name):
    make, fn = CELLS[name]
    cell = make()
    assert repr(cell) == f"{name}()"
    np.testing.assert_array_equal(cell(Tensor(X)).asnumpy(), fn(Tensor(X)).asnumpy())


# values MindSpore 2.10 printed for X (float32)
MS_VALUES = {
    "LeakyReLU": [[-0.1, 2.0], [3.0, -0.4]],
    "HSwish": [[-0.33333334, 1.6666666], [3.0, 0.0]],
    "Softsign": [[-0.5, 0.6666667], [0.75, -0.8]],
    "Tanhshrink": [[-0.23840582, 1.0359724], [2.0049443, -3.0006557]],
    "Softmin": [[0.95257413, 0.04742583], [0.00091105, 0.999089]],
}


@pytest.mark.parametrize("name", sorted(MS_VALUES))
def test_values_match_mindspore(name):
    np.testing.assert_allclose(CELLS[name][0]()(Tensor(X)).asnumpy(), MS_VALUES[name],
                               rtol=2e-5, atol=1e-6)


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=4, max_side=4),
                  elements=st.floats(-5, 5)),
       st.floats(0.0, 1.0))
def test_prelu_per_channel_against_numpy(x, w0):
    c = x.shape[1]
    w = np.linspace(w0, w0 + 0.5, c)
    cell = nn.PReLU(c, Tensor(w))
    want = np.maximum(x, 0) + w.reshape((c,) + (1,) * (x.ndim - 2)) * np.minimum(x, 0)
    np.testing.assert_allclose(cell(Tensor(x)).asnumpy(), want, rtol=1e-12)


def test_prelu_parameter_and_gradients():
    cell = nn.PReLU(2, 0.1)
    (p,) = cell.trainable_params()
    assert p.name.endswith("a") and p.shape == (2,) and p.dtype == ms.float32
    x = np.array([[[-1.0, 2.0], [0.5, -3.0]], [[-0.25, 1.5], [-2.0, 0.75]]])
    w = np.array([0.2, 0.3])

    def f(xt, wt):
        return ops.maximum(xt, 0.0) + ops.reshape(wt, (2, 1)) * ops.minimum(xt, 0.0)

    check_grad(f, x, w)
    cell64 = nn.PReLU(2, Tensor(w))
    gx, gw = ms.value_and_grad(lambda t: cell64(t).sum(), 0, cell64.trainable_params())(
        Tensor(x))[1]
    np.testing.assert_allclose(gx.asnumpy(), np.where(x > 0, 1.0, w.reshape(2, 1)))
    np.testing.assert_allclose(gw[0].asnumpy(), np.minimum(x, 0).sum(axis=(0, 2)))


def test_get_activation_knows_mindsporess_names():
    for name, cls in [("leakyrelu", nn.LeakyReLU), ("hswish", nn.HSwish), ("mish", nn.Mish),
                      ("hardtanh", nn.Hardtanh), ("prelu", nn.PReLU), ("softmin", nn.Softmin),
                      ("logsigmoid", nn.LogSigmoid), ("ELU", nn.ELU)]:
        assert type(nn.get_activation(name)) is cls
    dense = nn.Dense(2, 3, activation="hsigmoid")
    out = dense(Tensor(X)).asnumpy()
    assert ((out >= 0) & (out <= 1)).all()
    with pytest.raises(KeyError, match="unknown activation 'nope'.*'mish'"):
        nn.get_activation("nope")


def test_errors_at_the_call_as_mindspore():
    with pytest.raises(TypeError, match="For 'leaky_relu', the type of 'alpha'"):
        nn.LeakyReLU("a")(Tensor(X))
    with pytest.raises(ValueError, match="For 'Elu', 'alpha' must be 1.0"):
        nn.ELU(2.0)(Tensor(X))
    with pytest.raises(ValueError, match="For 'PReLU', 'channel' must be a positive int"):
        nn.PReLU(0)
    with pytest.raises(ValueError, match=r"For 'PReLU', the channel axis \(1\) .* 3"):
        nn.PReLU(3)(Tensor(X))
    with pytest.raises(ValueError, match=r"For 'PReLU', 'w' must be a float Tensor of shape"):
        nn.PReLU(2, Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="For 'Softmin', 'axis'"):
        nn.Softmin(1.5)


def test_cells_with_attributes_compile_in_graph_mode():
    """The functional ops' shared-primitive table (_typed_prims) runs at compile time."""
    net = nn.SequentialCell([nn.Dense(2, 3), nn.PReLU(), nn.LeakyReLU(0.3), nn.Hardtanh(-0.5, 0.5),
                             nn.CELU(0.5), nn.Softmin(), nn.Identity()])
    x = Tensor(X)
    want = net(x).asnumpy()
    fn = ms.jit(lambda t: net(t))
    np.testing.assert_array_equal(fn(x).asnumpy(), want)
    names = [type(n.inputs[0].value).__name__ for n in fn.graph(x).order
             if hasattr(n.inputs[0], "value")]
    assert {"LeakyReLU", "Hardtanh", "CeLU"} <= set(names)
