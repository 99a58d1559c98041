"""Tensor methods with MindSpore 2.10's signatures and overloads (common/tensor_overload.py and
the tensor_methods_*.py families), each checked against what MindSpore 2.10 does on CPU
(observed there; see tools/api_agreement.py): transpose(0, 1) swaps, max(dim) returns
(values, indices), squeeze of a non-1 axis is a no-op, ...; the same resolution in graph
mode; conversions, register_hook, in-place methods with autograd."""
import numpy as np
import pytest
import torch

import mindlite as ms
from mindlite import Tensor, ops

X = np.array([[0.5, -1.2, 2.0], [3.0, 0.1, -0.3]], np.float32)


def x():
    return Tensor(X)


def test_transpose_and_permute_overloads():
    assert x().transpose(0, 1).shape == (3, 2)            # two ints: swap (silently wrong before)
    np.testing.assert_array_equal(x().transpose(0, 1).asnumpy(), X.T)
    assert x().transpose(-1, 0).shape == (3, 2)
    assert x().transpose().shape == (3, 2) and x().transpose((1, 0)).shape == (3, 2)
    a = Tensor(np.zeros((2, 3, 4)))
    assert a.transpose(2, 0, 1).shape == (4, 2, 3)         # a permutation (the older overload)
    assert a.transpose(0, 2).shape == (4, 3, 2)
    assert a.permute(2, 0, 1).shape == (4, 2, 3) and a.permute().shape == (4, 3, 2)
    with pytest.raises(TypeError, match="Failed calling transpose"):
        a.transpose("a")


def test_max_min_overloads():
    values, index = x().max(1)
    np.testing.assert_array_equal(values.asnumpy(), X.max(1))
    assert index.dtype == ms.int64 and index.asnumpy().tolist() == [2, 0]
    v, i = x().min(0, True)
    assert v.shape == (1, 3) and i.shape == (1, 3)
    assert x().max().shape == () and float(x().max().asnumpy()) == 3.0
    np.testing.assert_array_equal(x().max(axis=1).asnumpy(), X.max(1))     # values only
    np.testing.assert_array_equal(x().max((0, 1)).asnumpy(), X.max())
    v, i = x().max(axis=1, return_indices=True)
    assert i.asnumpy().tolist() == [2, 0]
    np.testing.assert_array_equal(x().max(1, keepdims=True).asnumpy(), X.max(1, keepdims=True))


def test_reduction_overloads():
    np.testing.assert_allclose(x().sum(1, keepdim=True).asnumpy(), X.sum(1, keepdims=True))
    assert x().sum(1, ms.float64).dtype == ms.float64                  # (axis, dtype) form
    np.testing.assert_allclose(x().sum(initial=1.0).asnumpy(), X.sum() + 1, rtol=1e-6)
    np.testing.assert_allclose(x().mean(dim=1).asnumpy(), X.mean(1), rtol=1e-6)
    np.testing.assert_allclose(x().prod(1, True).asnumpy(), X.prod(1, keepdims=True), rtol=1e-6)
    i = Tensor(np.array([[1, 0, 3], [0, 0, 0]]))
    assert i.all().asnumpy() == False and i.any(1).asnumpy().tolist() == [True, False]  # noqa
    assert x().argmax(dim=0, keepdim=True).shape == (1, 3)
    np.testing.assert_allclose(x().std(1).asnumpy(), X.std(1), rtol=1e-6)            # ddof 0
    np.testing.assert_allclose(x().std(1, correction=1).asnumpy(), X.std(1, ddof=1), rtol=1e-6)
    values, index = x().median()
    np.testing.assert_array_equal(values.asnumpy(), np.float32([0.5, 0.1]))
    np.testing.assert_allclose(x().cumsum().asnumpy(), X.reshape(-1).cumsum(), rtol=1e-6)
    assert x().cumsum(1, ms.float64).dtype == ms.float64


def test_shape_overloads():
    a = Tensor(np.zeros((1, 2, 3, 4), np.float32))
    assert a.flatten().shape == (24,) and a.flatten(1, 2).shape == (1, 6, 4)
    assert a.flatten(start_dim=2).shape == (1, 2, 12)
    np.testing.assert_array_equal(x().flatten("F").asnumpy(), X.flatten("F"))
    assert x().squeeze(0).shape == (2, 3)                   # size 2: left as it is (2.10)
    assert a.squeeze(0).shape == (2, 3, 4) and a.squeeze(axis=0).shape == (2, 3, 4)
    assert a.squeeze((0, 1)).shape == (2, 3, 4)
    assert x().view(3, 2).shape == (3, 2) and x().view(ms.int32).dtype == ms.int32
    assert x().reshape((-1,)).shape == (6,) and x().reshape(3, -1).shape == (3, 2)
    g = Tensor(np.array([[0, 0], [1, 2]]))
    np.testing.assert_array_equal(x().gather(1, g).asnumpy(),
                                  np.take_along_axis(X, np.array([[0, 0], [1, 2]]), 1))
    np.testing.assert_array_equal(x().gather(Tensor(np.array([0, 2])), 1).asnumpy(), X[:, [0, 2]])
    src = Tensor(np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(
        x().scatter_add(1, g, src).asnumpy(),
        torch.from_numpy(X).scatter_add(1, torch.tensor([[0, 0], [1, 2]]),
                                        torch.ones(2, 2)).numpy())
    rows = x().scatter_add(Tensor(np.array([[1]])), Tensor(np.ones((1, 3), np.float32)))
    np.testing.assert_array_equal(rows.asnumpy(), X + np.float32([[0], [1]]))   # tensor_scatter
    assert x().select(0, 1).asnumpy().tolist() == pytest.approx(X[1].tolist())
    assert x().mT.shape == (3, 2) and x().t().shape == (3, 2)
    assert x().expand(2, 2, 3).shape == (2, 2, 3)


def test_conversions_and_copies():
    assert x().to(ms.int32).dtype == ms.int32 and x().to(Tensor([1])).dtype == ms.int64
    assert x().to().dtype == ms.float32 and x().to("cpu", ms.float16).dtype == ms.float16
    assert x().to(dtype=ms.float64).dtype == ms.float64
    for method, dtype in (("float", ms.float32), ("half", ms.float16), ("double", ms.float64),
                          ("int", ms.int32), ("long", ms.int64), ("short", ms.int16),
                          ("byte", ms.uint8), ("bool", ms.bool_), ("bfloat16", ms.bfloat16)):
        assert getattr(x(), method)().dtype == dtype
    t = x()
    assert t.set_dtype(ms.float64) == ms.float64 and t.dtype == ms.float64   # returns the dtype
    assert x().type() == "Float32" and x().type(ms.int8).dtype == ms.int8
    c = x().clone()
    c.zero_()
    assert (c.asnumpy() == 0).all()
    y = Tensor(np.zeros((2, 3), np.float32))
    y.copy_(Tensor(np.array([1, 2, 3])))                    # broadcast and cast
    np.testing.assert_array_equal(y.asnumpy(), [[1, 2, 3], [1, 2, 3]])
    assert x().stride() == (3, 1) and x().is_floating_point() and not Tensor([1]).is_complex()
    assert x().nelement() == 6 and x().ndimension() == 2


def test_in_place_methods_write_and_differentiate():
    y = x()
    y.masked_fill_(Tensor(X > 1), 0.0)
    np.testing.assert_array_equal(y.asnumpy(), np.where(X > 1, 0, X))
    y.clamp_(-0.5, 0.5).exp_()
    np.testing.assert_allclose(y.asnumpy(), np.exp(np.clip(np.where(X > 1, 0, X), -0.5, 0.5)),
                               rtol=1e-6)
    before = x()
    ms.set_seed(3)
    u = Tensor(np.zeros((500,), np.float32)).uniform_(2, 3)
    assert 2 <= u.asnumpy().min() and u.asnumpy().max() < 3
    n = Tensor(np.zeros((2000,), np.float32)).normal_(1.0, 0.5)
    assert abs(float(n.asnumpy().mean()) - 1.0) < 0.05
    with pytest.raises(TypeError, match="uniform_"):
        Tensor(np.zeros(3, np.int32)).uniform_()

    def f(a):
        b = a * 2
        b.index_fill_(1, Tensor(np.array([0], np.int32)), 0.0)
        return (b * b).sum()
    g = ms.grad(f)(before)
    np.testing.assert_allclose(g.asnumpy(), np.where(np.arange(3) == 0, 0, 8 * X), rtol=1e-6)


def test_register_hook():
    seen = []
    a = Tensor(np.array([1.0, 2.0], np.float32))

    def f(t):
        h = t * 3
        h.register_hook(lambda g: seen.append(g.asnumpy().copy()) or g * 10)
        return (h * h).sum()
    g = ms.grad(f)(a)
    np.testing.assert_allclose(seen[0], [6.0, 12.0])
    np.testing.assert_allclose(g.asnumpy(), [180.0, 360.0])     # 10 x the hooked gradient x 3
    leaf = Tensor(np.array([1.0], np.float32))
    handle = leaf.register_hook(lambda g: g * 0)
    assert ms.grad(lambda t: (t * t).sum())(leaf).asnumpy()[0] == 0
    handle.remove()
    assert ms.grad(lambda t: (t * t).sum())(leaf).asnumpy()[0] == 2
    from mindlite.common import tensor_hooks
    tmp = Tensor(np.ones(1, np.float32))
    tmp.register_hook(lambda g: g)
    key = id(tmp)
    del tmp
    assert key not in tensor_hooks.HOOKS                        # dropped with its tensor


def test_overloads_resolve_in_graph_mode():
    @ms.jit
    def f(a, i):
        values, index = a.max(1)
        return a.transpose(0, 1), values, index, a.gather(1, i), a.sum(axis=0)
    i = Tensor(np.array([[0, 0], [1, 2]]))
    t, v, ix, g, s = f(x(), i)
    np.testing.assert_array_equal(t.asnumpy(), X.T)
    np.testing.assert_array_equal(v.asnumpy(), X.max(1))
    np.testing.assert_array_equal(ix.asnumpy(), [2, 0])
    np.testing.assert_array_equal(g.asnumpy(), np.take_along_axis(X, np.array([[0, 0], [1, 2]]), 1))
    np.testing.assert_allclose(s.asnumpy(), X.sum(0), rtol=1e-6)


def test_elementwise_methods_match_functions():
    a = x()
    for name, fn in (("eq", ops.equal), ("ne", ops.not_equal), ("gt", ops.greater),
                     ("le", ops.less_equal), ("atan2", ops.atan2), ("hypot", ops.hypot)):
        np.testing.assert_array_equal(getattr(a, name)(a).asnumpy(), fn(a, a).asnumpy())
    for name in ("acos", "sinh", "erfinv", "log1p", "trunc", "frac", "rsqrt", "sigmoid"):
        np.testing.assert_array_equal(getattr(a * 0.5, name)().asnumpy(),
                                      getattr(ops, name)(a * 0.5).asnumpy())
    np.testing.assert_array_equal(a.logical_and(Tensor([1, 0, 1])).asnumpy(),
                                  [[True, False, True]] * 2)
    np.testing.assert_allclose(a.remainder(divisor=2).asnumpy(), np.mod(X, 2), rtol=1e-6)
    np.testing.assert_allclose(a.round(decimals=1).asnumpy(), np.round(X, 1))


def test_untyped_storage_as_mindspore():
    """MindSpore 2.10: nbytes / size in bytes, element_size 1, dtype and device attributes,
    copy_ of another storage writes the bytes into the tensor."""
    t = x()
    s = t.untyped_storage()
    assert type(s).__name__ == "UntypedStorage"
    assert (s.nbytes(), s.size(), s.element_size()) == (24, 24, 1)
    assert s.dtype == ms.float32 and s.device == "CPU" and not s.is_shared()
    assert s.data_ptr() == t.data_ptr()
    s.copy_(Tensor(np.zeros((2, 3), np.float32)).untyped_storage())
    np.testing.assert_array_equal(t.asnumpy(), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="sizes must match"):
        s.copy_(Tensor(np.zeros(2, np.float32)).untyped_storage())
