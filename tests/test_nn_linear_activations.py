"""nn.Linear, GLU, Threshold, HShrink, SoftShrink and Softmax2d: values MindSpore 2.10
returned (recorded from its CPU build), PyTorch's functions with hypothesis, errors, and
float64 gradients."""
import numpy as np
import pytest
from hypothesis import given, settings

import mindlite as ms
from mindlite import Tensor, nn

from gradcheck import check_grad
from helpers import arrays, shapes

torch = pytest.importorskip("torch", reason="PyTorch is the reference for the activations")
F = torch.nn.functional

X = np.array([[1., -0.2, 3, 0.5], [0.3, 2, -1, -4]], np.float32)


def test_values_recorded_from_mindspore():
    np.testing.assert_allclose(nn.Threshold(0.4, 9.0)(Tensor(X)).asnumpy(),
                               [[1, 9, 3, 0.5], [9, 2, 9, 9]])
    np.testing.assert_allclose(nn.HShrink(0.5)(Tensor(X)).asnumpy(),
                               [[1, 0, 3, 0], [0, 2, -1, -4]])
    np.testing.assert_allclose(nn.SoftShrink(0.5)(Tensor(X)).asnumpy(),
                               [[0.5, 0, 2.5, 0], [0, 1.5, -0.5, -3.5]])
    x2 = np.array([[1., -2, 3, 0.5], [0.3, 2, -1, 4]], np.float32)
    np.testing.assert_allclose(nn.GLU()(Tensor(x2)).asnumpy(),
                               [[0.95257413, -1.2449188], [0.08068247, 1.9640275]], rtol=1e-6)
    np.testing.assert_allclose(nn.GLU(0)(Tensor(x2)).asnumpy(),
                               [[0.5744428, -1.7615943, 0.8068247, 0.49100688]], rtol=1e-6)
    sm = nn.Softmax2d()(Tensor(np.arange(8, dtype=np.float32).reshape(2, 2, 2))).asnumpy()
    np.testing.assert_allclose(sm[:, 0, 0], [0.01798621, 0.98201376], rtol=1e-6)
    assert repr(nn.Linear(4, 2)) == "Linear(input_features=4, output_features=2, has_bias=True)"
    special = Tensor(np.array([np.nan, np.inf, -np.inf, 0.3], np.float32))
    # MindSpore's kernels compare, so NaN takes the "else" branch (PyTorch keeps NaN)
    np.testing.assert_array_equal(nn.HShrink(0.5)(special).asnumpy(), [0, np.inf, -np.inf, 0])
    np.testing.assert_array_equal(nn.SoftShrink(0.5)(special).asnumpy(),
                                  [0, np.inf, -np.inf, 0])
    np.testing.assert_array_equal(nn.Threshold(0.4, 9.0)(special).asnumpy(), [9, np.inf, 9, 9])


@settings(max_examples=25, deadline=None)
@given(a=arrays(np.float32, shapes(min_dims=1, max_dims=3, min_side=0, max_side=4),
                allow_special=False))
def test_activations_match_torch(a):
    t = torch.from_numpy(a)
    np.testing.assert_allclose(nn.HShrink(0.3)(Tensor(a)).asnumpy(), F.hardshrink(t, 0.3),
                               equal_nan=True)
    np.testing.assert_allclose(nn.SoftShrink(0.3)(Tensor(a)).asnumpy(), F.softshrink(t, 0.3),
                               rtol=1e-6, equal_nan=True)
    np.testing.assert_allclose(nn.Threshold(0.1, -2.0)(Tensor(a)).asnumpy(),
                               F.threshold(t, 0.1, -2.0), equal_nan=True)
    if a.shape[-1] % 2 == 0:
        np.testing.assert_allclose(nn.GLU()(Tensor(a)).asnumpy(), F.glu(t, -1), rtol=1e-6,
                                   atol=1e-6, equal_nan=True)


def test_linear_is_dense_under_pytorch_names():
    lin = nn.Linear(3, 2, bias=False)
    assert lin.bias is None and lin.weight.shape == (2, 3)
    assert [p.name for p in lin.get_parameters()] == ["weight"]
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    want = F.linear(torch.from_numpy(x), torch.from_numpy(lin.weight.asnumpy()))
    np.testing.assert_allclose(lin(Tensor(x)).asnumpy(), want.numpy(), rtol=1e-6, atol=1e-6)
    assert nn.Linear(2, 2, dtype=ms.float64).weight.dtype == ms.float64


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match="'GLU'.*even"):
        nn.GLU()(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(TypeError, match="'Threshold'.*'value'"):
        nn.Threshold(0.1, "x")
    with pytest.raises(ValueError, match="'HShrink'"):
        nn.HShrink(-1.0)
    with pytest.raises(ValueError, match="'Softmax2d'"):
        nn.Softmax2d()(Tensor(np.ones((2, 3), np.float32)))


@pytest.mark.parametrize("cell, shape", [(nn.GLU(), (2, 4)), (nn.GLU(0), (4, 3)),
                                         (nn.SoftShrink(0.2), (3, 4)),
                                         (nn.HShrink(0.2), (3, 4)),
                                         (nn.Threshold(0.2, 0.0), (3, 4)),
                                         (nn.Softmax2d(), (2, 3, 2, 2)),
                                         (nn.Linear(4, 2, dtype=ms.float64), (3, 4))])
def test_gradients(cell, shape):
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, shape)
    x[np.abs(np.abs(x) - 0.2) < 0.05] = 0.6          # away from the kinks at +-0.2
    check_grad(lambda t: cell(t), x)
