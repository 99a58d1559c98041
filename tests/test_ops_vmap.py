"""ops.vmap: a batching transform over primitives (vmap_func.py, vmap_rules.py). Results equal
a loop over the examples for generated inputs and in/out axes; the number of primitive calls
does not grow with the batch (no hidden Python loop); gradients flow through; primitives
without a batch rule raise naming themselves."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.ops.function import vmap_rules


def mlp(x, w1, w2):
    h = ops.relu(ops.matmul(x, w1) + 0.5)
    return ops.log_softmax(ops.matmul(h, w2), -1)


def shapes(a, b):
    c = ops.concat((a, ops.expand_dims(b, 0)), 0)
    return ops.amax(c, 1), ops.squeeze(ops.reshape(ops.tile(a, (1, 2)), (1, -1))), \
        ops.stack((b, b * 2.0), 1).sum()


def _loop(fn, args, in_axes):
    size = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = []
    for i in range(size):
        ex = [Tensor(np.take(a, i, ax)) if ax is not None else Tensor(a)
              for a, ax in zip(args, in_axes)]
        out = fn(*ex)
        outs.append([o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))])
    return [np.stack(col) for col in zip(*outs)]


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 5), st.integers(1, 4), st.sampled_from([0, 1]), st.booleans(),
       st.integers(0, 2 ** 31 - 1))
def test_mlp_equals_a_loop(batch, n, x_axis, map_w, seed):
    r = np.random.default_rng(seed)
    x = r.standard_normal((batch, n, 3) if x_axis == 0 else (n, batch, 3))
    w1 = r.standard_normal((batch, 3, 4) if map_w else (3, 4))
    w2 = r.standard_normal((4, 2))
    axes = (x_axis, 0 if map_w else None, None)
    got = ops.vmap(mlp, in_axes=axes)(Tensor(x), Tensor(w1), Tensor(w2))
    np.testing.assert_allclose(got.asnumpy(), _loop(mlp, (x, w1, w2), axes)[0], rtol=1e-12)


def test_shape_ops_and_out_axes():
    r = np.random.default_rng(1)
    a, b = r.standard_normal((4, 2, 3)), r.standard_normal((4, 3))
    got = ops.vmap(shapes, in_axes=0, out_axes=(1, 0, 0))(Tensor(a), Tensor(b))
    want = _loop(shapes, (a, b), (0, 0))
    np.testing.assert_allclose(got[0].asnumpy(), np.moveaxis(want[0], 0, 1), rtol=1e-12)
    for g, w in zip(got[1:], want[1:]):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-12)


def test_primitive_calls_do_not_grow_with_the_batch(monkeypatch):
    calls = []
    real = vmap_rules.apply
    monkeypatch.setattr(vmap_rules, "apply", lambda p, a: calls.append(p.name) or real(p, a))
    r = np.random.default_rng(2)
    for batch in (2, 64):
        calls.clear()
        ops.vmap(mlp, in_axes=(0, None, None))(
            Tensor(r.standard_normal((batch, 5, 3))), Tensor(r.standard_normal((3, 4))),
            Tensor(r.standard_normal((4, 2))))
        counts = len(calls)
    assert counts == len(calls) and counts < 10


def test_gradients_flow_through_vmap():
    r = np.random.default_rng(3)
    x, w1, w2 = r.standard_normal((6, 2, 3)), r.standard_normal((3, 4)), r.standard_normal((4, 2))

    def total(w):
        return ops.vmap(mlp, in_axes=(0, None, None))(Tensor(x), w, Tensor(w2)).sum()

    def looped(w):
        return sum(mlp(Tensor(x[i]), w, Tensor(w2)).sum() for i in range(6))
    np.testing.assert_allclose(ms.grad(total)(Tensor(w1)).asnumpy(),
                               ms.grad(looped)(Tensor(w1)).asnumpy(), rtol=1e-10)


def test_errors():
    x = Tensor(np.ones((3, 4)))
    with pytest.raises(NotImplementedError, match="the primitive 'Sort' has no batch rule"):
        ops.vmap(lambda t: ops.sort(t)[0])(x)
    with pytest.raises(ValueError, match="mapped axes must have one size"):
        ops.vmap(lambda a, b: a + b)(x, Tensor(np.ones((2, 4))))
    with pytest.raises(ValueError, match="in_axes 2 is out of range"):
        ops.vmap(lambda t: t * 2, in_axes=2)(x)
    with pytest.raises(TypeError, match="'fn' must be callable"):
        ops.vmap(3)
