"""Issue 13's Tensor methods in common/tensor_methods_math.py: std, var, norm, logsumexp, sign,
floor, ceil, equal, bmm, numel, dim, type_as, view_as, where, contiguous, is_contiguous,
new_zeros, new_ones, repeat, split, and in-place fill_ / add_ / sub_ / mul_: values as
MindSpore 2.10 prints them, in-place writes without and under the grad recorder
(gradients against PyTorch's and finite differences), failed calls that change nothing."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import arrays, assert_close, noncontig, tensor

import mindlite as ms
from mindlite import Tensor, ops


def test_method_values_as_mindspore():
    x = Tensor(np.array([[1.0, -2.5, 3], [4, 5, 7]], np.float32))
    assert x.sign().tolist() == [[1, -1, 1], [1, 1, 1]]
    assert Tensor([-2, 0, 3]).sign().tolist() == [-1, 0, 1]
    assert x.floor().tolist() == [[1, -3, 3], [4, 5, 7]]
    assert x.ceil().tolist() == [[1, -2, 3], [4, 5, 7]]
    assert x.equal(3.0).tolist() == [[False, False, True], [False] * 3]
    assert x.equal(x).dtype == ms.bool_
    assert x.numel() == 6 and x.dim() == 2 and Tensor(1.0).numel() == 1
    assert x.type_as(Tensor([1])).tolist() == [[1, -2, 3], [4, 5, 7]]
    assert x.type_as(Tensor([1])).dtype == ms.int64
    z = x.new_zeros((2,))
    assert z.dtype == ms.float32 and z.tolist() == [0, 0]
    assert x.new_zeros(2, dtype=ms.int32).dtype == ms.int32
    assert x.new_ones((2, 1)).tolist() == [[1], [1]]
    assert x.view_as(Tensor(np.ones((3, 2)))).shape == (3, 2)
    assert x.where(x > 2, 0.0).tolist() == [[0, 0, 3], [4, 5, 7]]
    assert x.where(x > 2, Tensor(0.0)).tolist() == [[0, 0, 3], [4, 5, 7]]
    out = Tensor(np.ones((2, 2, 3), np.float32)).bmm(Tensor(np.ones((2, 3, 1), np.float32)))
    assert out.shape == (2, 2, 1) and out.asnumpy().max() == 3
    assert float(x.std()) == pytest.approx(np.std(x.asnumpy()))
    assert x.var(1, 1, True).shape == (2, 1)
    assert x.norm(1, 1).tolist() == [6.5, 16.0]
    np.testing.assert_allclose(x.logsumexp(1).asnumpy(),
                               np.log(np.exp(x.asnumpy()).sum(1)), 1e-6)


def test_std_var_split_keyword_overloads():
    """MindSpore 2.10's second overloads (dim, *, correction, keepdim; split's axis=), with
    the values its CPU build prints."""
    x = Tensor(np.array([[1.0, 2, 3], [4, 5, 7]], np.float32))
    np.testing.assert_allclose(x.std(dim=1).asnumpy(), [0.8164966, 1.2472191], 1e-6)
    np.testing.assert_allclose(x.std(dim=1, correction=1).asnumpy(), [1.0, 1.5275252], 1e-6)
    np.testing.assert_allclose(x.std(dim=1, correction=2).asnumpy(), [1.4142135, 2.1602468],
                               1e-6)
    assert x.std(dim=1, keepdim=True).shape == (2, 1)
    np.testing.assert_allclose(x.var(dim=0, correction=1).asnumpy(), [4.5, 4.5, 8.0], 1e-6)
    assert [t.shape for t in x.split(1, axis=1)] == [(2, 1)] * 3


def test_repeat_is_mindspore_tile():
    assert Tensor([1, 2]).repeat(2).tolist() == [1, 2, 1, 2]
    assert Tensor([[1, 2]]).repeat(2, 1).tolist() == [[1, 2], [1, 2]]
    assert Tensor([[1, 2]]).repeat((2, 1, 2)).shape == (2, 1, 4)
    assert Tensor([[1, 2]]).repeat(0, 1).shape == (0, 2)
    with pytest.raises(ValueError, match="Tensor.repeat.*number of 'repeats' \\(1\\).*rank 2"):
        Tensor([[1, 2]]).repeat(2)
    with pytest.raises(ValueError, match="Tensor.repeat.*non-negative"):
        Tensor([1, 2]).repeat(-1)
    with pytest.raises(TypeError, match="Tensor.repeat.*ints"):
        Tensor([1, 2]).repeat(1.5)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_repeat_split_against_numpy(data):
    x = data.draw(arrays(np.float32, tuple(data.draw(st.lists(st.integers(0, 3), min_size=1,
                                                              max_size=3)))))
    reps = data.draw(st.lists(st.integers(0, 3), min_size=x.ndim, max_size=x.ndim + 1))
    assert_close(tensor(x).repeat(*reps), np.tile(x, reps))
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    size = data.draw(st.integers(1, 4))
    parts = tensor(x).split(size, dim)
    n = x.shape[dim]
    want = np.split(x, list(range(size, n, size)), axis=dim) if n else [x]
    assert len(parts) == len(want)
    for p, w in zip(parts, want):
        assert_close(p, w)


def test_split_sizes_and_contiguous():
    parts = Tensor(np.arange(5)).split([1, 4])
    assert [p.tolist() for p in parts] == [[0], [1, 2, 3, 4]]
    cols = Tensor(np.arange(6).reshape(2, 3)).split(1, 1)
    assert [c.tolist() for c in cols] == [[[0], [3]], [[1], [4]], [[2], [5]]]
    x = Tensor(np.ones((2, 3), np.float32))
    assert x.is_contiguous() and x.contiguous() is x
    nc = tensor(noncontig(np.arange(6.0).reshape(2, 3)))
    assert not nc.is_contiguous()
    c = nc.contiguous()
    assert c.is_contiguous() and c.tolist() == nc.tolist()
    g = ms.grad(lambda t: (t.contiguous() * 2).sum())(nc)
    assert g.tolist() == [[2.0] * 3] * 2


# ---- in place --------------------------------------------------------------------------
def test_inplace_values():
    x = Tensor(np.ones(3, np.float32))
    assert x.add_(2) is x and x.tolist() == [3, 3, 3]
    x.add_(Tensor([1.0, 2, 3]), alpha=2)
    assert x.tolist() == [5, 7, 9]
    x.sub_(2, alpha=3)
    assert x.tolist() == [-1, 1, 3]
    x.mul_(Tensor([1.0, 2, 3]))
    assert x.tolist() == [-1, 2, 9]
    x.fill_(2)
    assert x.tolist() == [2, 2, 2] and x.dtype == ms.float32
    x.fill_(Tensor(2.5))
    assert x.tolist() == [2.5] * 3
    i = Tensor(np.ones(3, np.int32)).fill_(2.7)
    assert i.dtype == ms.int32 and i.tolist() == [2, 2, 2]
    b = Tensor(np.ones((2, 3), np.float32))
    b.add_(Tensor([1.0, 2, 3]))                            # other broadcasts to self
    assert b.tolist() == [[2, 3, 4]] * 2
    x.add_(x)                                              # self as other: its old value
    assert x.tolist() == [5.0] * 3


def test_inplace_failed_calls_change_nothing():
    x = Tensor(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="Tensor.add_.*shape \\[2, 3\\].*broadcast.*\\[3\\]"):
        x.add_(Tensor(np.ones((2, 3), np.float32)))
    i = Tensor(np.ones(3, np.int32))
    with pytest.raises(TypeError, match="Tensor.add_.*result type Float32.*Int32"):
        i.add_(Tensor([1.5, 2, 3]))
    with pytest.raises(TypeError, match="Tensor.mul_.*Float32.*Int32"):
        i.mul_(1.5)
    with pytest.raises(TypeError, match="Tensor.sub_.*'other' must be a Tensor or a number"):
        x.sub_("1")
    with pytest.raises(ValueError, match="Tensor.fill_.*0-D or of shape \\[1\\]"):
        x.fill_(Tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="Tensor.fill_.*'value'"):
        x.fill_(None)
    assert x.tolist() == [1, 1, 1] and i.tolist() == [1, 1, 1]

    def f(t):                                  # under the recorder too
        with pytest.raises(ValueError, match="Tensor.add_"):
            t.add_(Tensor(np.ones((2, 3))))
        return (t * t).sum()
    assert ms.grad(f)(Tensor(np.array([1.0, 2.0, 3.0]))).tolist() == [2.0, 4.0, 6.0]


def test_inplace_does_not_change_earlier_views_or_results():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    v = x.reshape((3, 2))                                  # a view kernel's result
    x.add_(1.0)
    assert v.asnumpy().ravel().tolist() == list(range(6))
    assert x.asnumpy().ravel().tolist() == list(range(1, 7))


def _torch_grad(fn, a):
    torch = pytest.importorskip("torch")
    t = torch.tensor(a, requires_grad=True)
    fn(t, torch).backward()
    return t.grad.numpy()


CASES = {
    "add_alpha": lambda t, m: _case_add(t, m),
    "fill_from_tensor": lambda t, m: _case_fill(t, m),
    "sub_self": lambda t, m: _case_sub(t, m),
}


def _case_mul(t, m):
    y = t * 1.0
    z = y * y                          # saves y's old value
    y.mul_(2.0)
    return (z + y * t).sum()


def _case_add(t, m):
    y = t * 3.0
    y.add_(t * t, alpha=2.0)
    return (y * y).sum()


def _case_fill(t, m):
    y = t * 1.0
    y.fill_(t[0] * 1.0)
    return (y * t).sum()


def _case_sub(t, m):
    y = t * t
    y.sub_(y, alpha=0.5)
    return (y * t).sum()


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_gradients_match_torch(name):
    a = np.array([0.5, -1.5, 2.0])
    want = _torch_grad(CASES[name], a)
    got = ms.grad(lambda t: CASES[name](t, ms))(Tensor(a))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12)


def test_inplace_write_after_use_is_correct():
    """PyTorch refuses this backward (y was saved by z = y * y, then written); mindlite's
    recorded write gives the saved op the old values: loss = sum(t^2 + 2t t), d = 6t."""
    a = np.array([0.5, -1.5, 2.0])
    got = ms.grad(lambda t: _case_mul(t, ms))(Tensor(a))
    np.testing.assert_allclose(got.asnumpy(), 6 * a, rtol=1e-12)


def test_inplace_on_watched_input_keeps_its_original_gradient():
    """f(w) = sum((w + 1)^2) written as w.add_(1) inside: d/dw = 2 (w + 1) at the w passed."""
    w = Tensor(np.array([1.0, 2.0, 3.0]))

    def f(t):
        t.add_(1.0)
        return (t * t).sum()
    g = ms.grad(f)(w)
    assert g.tolist() == [4.0, 6.0, 8.0]


def test_inplace_int_tensor_under_grad_is_written():
    def f(t):
        k = Tensor(np.array([1, 2, 3], np.int32))
        k.mul_(2)
        return (t * ops.cast(k, ms.float64)).sum()
    g = ms.grad(f)(Tensor(np.ones(3)))
    assert g.tolist() == [2.0, 4.0, 6.0]
