"""Tensor methods accept exactly MindSpore 2.10's call forms (its argument parser's signatures,
recorded below from `Tensor.<name>(bogus=1)` errors there): every positional form and every
keyword spelling of each overload binds, and binds to the right overload; plus the runtime /
storage methods (tensor_methods_runtime.py) and the deprecated ops-backed ones."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, ops

X = np.array([[0.5, -1.2, 2.0], [3.0, 0.1, -0.3]], np.float32)


def t():
    return Tensor(X.copy())


IDX = Tensor(np.array([[0, 1], [1, 2]]))


@pytest.mark.parametrize("call, want", [
    (lambda x: x.prod(1, keepdim=True), np.prod(X, 1, keepdims=True)),
    (lambda x: x.sort(0, True, True)[0], -np.sort(-X, 0)),
    (lambda x: x.sort(axis=0, descending=True)[0], -np.sort(-X, 0)),
    (lambda x: x.argsort(dim=1, descending=True, stable=True), np.argsort(-X, 1)),
    (lambda x: x.chunk(3, axis=1)[2], X[:, 2:]),
    (lambda x: x.index_select(axis=1, index=Tensor(np.array([2, 0]))), X[:, [2, 0]]),
    (lambda x: x.narrow(axis=1, start=1, length=2), X[:, 1:]),
    (lambda x: x.split(split_size_or_sections=1, axis=0)[1], X[1:]),
    (lambda x: x.matmul(tensor2=x.T), X @ X.T),
    (lambda x: x.mm(mat2=x.T), X @ X.T),
    (lambda x: x[0].outer(vec2=x[1]), np.outer(X[0], X[1])),
    (lambda x: x.unsqueeze(axis=0), X[None]),
    (lambda x: x.tile(reps=(1, 2)), np.tile(X, (1, 2))),
    (lambda x: x[:1].expand_as(x=x), np.broadcast_to(X[:1], X.shape)),
    (lambda x: x.isclose(x2=x), np.ones(X.shape, bool)),
    (lambda x: x.where(x > 0, y=0.0), np.where(X > 0, X, 0)),
    (lambda x: x.where(x > 0, other=0.0), np.where(X > 0, X, 0)),
    (lambda x: (x > 0).logical_and(y=x < 1), (X > 0) & (X < 1)),
    (lambda x: x.remainder(divisor=2.0), np.mod(X, 2.0)),
    (lambda x: x.flatten("C", 0, 1), X.reshape(-1)),
    (lambda x: x.permute(dims=(1, 0)), X.T),
    (lambda x: x.view(shape=(3, 2)), X.reshape(3, 2)),
    (lambda x: x.addcdiv(x, x + 5, 2.0), X + 2 * X / (X + 5)),
    (lambda x: x.scatter(1, IDX, Tensor(np.ones((2, 2), np.float32)), "add"),
     X + np.array([[1, 1, 0], [0, 1, 1]], np.float32)),
    (lambda x: x.scatter(axis=1, index=IDX, src=Tensor(np.zeros((2, 2), np.float32))),
     X * np.array([[0, 0, 1], [1, 0, 0]], np.float32)),
    (lambda x: x.trace(1), X[0, 1] + X[1, 2]),
    (lambda x: x.trace(offset=1, axis1=1, axis2=0), X[1, 0]),
    (lambda x: x.count_nonzero(), np.int32(6)),
    (lambda x: x.count_nonzero(axis=1, keep_dims=True), np.full((2, 1), 3)),
])
def test_mindspore_call_forms(call, want):
    got = call(t())
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


def test_prod_has_only_the_dim_form_and_div_rounding_positional():
    with pytest.raises(TypeError):
        t().prod(1, keep_dims=True)
    x = t()
    x.div_(2.0, "floor")
    np.testing.assert_array_equal(x.asnumpy(), np.floor(X / 2))
    x = t()
    x.sub_(1.0, 2)
    np.testing.assert_allclose(x.asnumpy(), X - 2)
    assert t().count_nonzero().dtype == ms.int32


def test_scatter_in_place_value_and_reduce():
    x = t()
    x.scatter_(1, IDX, value=7.0)
    np.testing.assert_array_equal(x.asnumpy()[0, :2], [7, 7])
    x = t()
    x.scatter_(1, IDX, Tensor(np.ones((2, 2), np.float32)), reduce="add")
    np.testing.assert_allclose(x.asnumpy()[0, :2], X[0, :2] + 1)


def test_runtime_and_storage_methods():
    x = t()
    assert x.device == "CPU" and x.data is x and x.value() is x
    assert not x.const_arg and x.set_const_arg() is x and x.const_arg
    assert x.get_bytes() == X.tobytes()
    assert not (x.is_pinned() or x.is_shared() or x.is_init() or x.has_init)
    assert x.init is None and x.init_finished and x.pin_memory() is x and x.to_("CPU") is x
    moved = x.move_to("CPU")
    assert moved is not x and np.array_equal(moved.asnumpy(), X)
    r = x.resize(3, 3)
    np.testing.assert_array_equal(r.asnumpy(), np.resize(np.append(X.ravel(), [0, 0, 0]),
                                                         (3, 3)))
    x.itemset(1, 2, 9.0)
    assert x.asnumpy()[1, 2] == 9.0
    x.itemset(4, 8.0)
    assert x.asnumpy()[1, 1] == 8.0
    x.set_(Tensor(np.ones(5, np.int32)))
    assert x.shape == (5,) and x.dtype == ms.int32


def test_deprecated_ops_backed_methods():
    idx = Tensor(np.array([0, 2, 1, 5]))
    choices = [Tensor(np.arange(4) * k) for k in (1, 10, 100)]
    np.testing.assert_array_equal(idx.choose(choices).asnumpy(),
                                  np.choose([0, 2, 1, 5], [c.asnumpy() for c in choices],
                                            mode="clip"))
    np.testing.assert_array_equal(idx.choose(choices, "wrap").asnumpy(),
                                  np.choose([0, 2, 1, 5], [c.asnumpy() for c in choices],
                                            mode="wrap"))
    z = Tensor(np.zeros((200,), np.float32))
    ms.set_seed(3)
    z.cauchy(1.0, 2.0)
    assert abs(float(np.median(z.asnumpy())) - 1.0) < 0.8
    x = t()
    np.testing.assert_array_equal(x.unsorted_segment_max(Tensor(np.array([1, 1])), 2)
                                  .asnumpy()[1], X.max(0))
    np.testing.assert_array_equal(
        x.reverse_sequence(Tensor(np.array([3, 2])), 1, 0).asnumpy(),
        [X[0, ::-1], [X[1, 1], X[1, 0], X[1, 2]]])
    y, _ = Tensor(np.array([2, 2, 1])).unique_with_pad(0)
    np.testing.assert_array_equal(y.asnumpy(), [2, 1, 0])
    assert ops.count_nonzero is not None
