"""Values, dtypes and module paths MindSpore 2.10 gives where its own CPU op tests check them
exactly (observed on MindSpore 2.10; each case names what it checks): BinaryCrossEntropy's
bits (float16 op by op, sums in order), TopK(sorted=False), the functional cross_entropy with
a weight of another float dtype, vmap of a @jit function, and the module paths the tests
import from."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.ops import operations as P


def _bce_inputs(dtype):
    rs = np.random.RandomState(42)
    return [rs.rand(20).astype(dtype) for _ in range(3)]


@pytest.mark.parametrize("reduction,dtype,want", [
    ("sum", np.float32, 14.894649505615234), ("mean", np.float32, 0.7447324991226196),
    ("sum", np.float16, 14.890625), ("mean", np.float16, 0.74462890625)])
def test_binary_cross_entropy_reductions_are_mindspores_bits(reduction, dtype, want):
    p, t, w = _bce_inputs(dtype)
    got = P.BinaryCrossEntropy(reduction)(Tensor(p), Tensor(t), Tensor(w)).asnumpy()
    assert got == np.asarray(want, dtype)


def test_binary_cross_entropy_float16_elementwise_in_float16():
    p, t, w = _bce_inputs(np.float16)
    one, eps = np.float16(1), np.float16(1e-12)
    want = -w * (t * np.log(np.maximum(p, eps)) + (one - t) * np.log(np.maximum(one - p, eps)))
    got = P.BinaryCrossEntropy("none")(Tensor(p), Tensor(t), Tensor(w)).asnumpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got[:3], [0.09552, 1.28613, 0.0351868], rtol=1e-3)


def test_topk_unsorted_keeps_the_order_of_x():
    x = np.array([[0.3, 0.9, 0.1, 0.5], [0.8, 0.2, 0.6, 0.4]], np.float32)
    values, indices = P.TopK(False)(Tensor(x), 4)
    np.testing.assert_array_equal(values.asnumpy(), x)          # MindSpore 2.10: x itself
    np.testing.assert_array_equal(indices.asnumpy(), [[0, 1, 2, 3]] * 2)
    values, indices = P.TopK(False)(Tensor(x), 2)
    np.testing.assert_array_equal(indices.asnumpy(), [[1, 3], [0, 2]])
    np.testing.assert_array_equal(values.asnumpy(), np.float32([[0.9, 0.5], [0.8, 0.6]]))
    rs = np.random.RandomState(0)
    big = rs.rand(3, 500).astype(np.float32)
    v, i = P.TopK(False)(Tensor(big), 7)
    assert (np.diff(i.asnumpy(), axis=-1) > 0).all()
    np.testing.assert_array_equal(np.sort(v.asnumpy(), -1), np.sort(big, -1)[:, -7:])


@pytest.mark.parametrize("x_dtype,w_dtype", [(np.float64, np.float32), (np.float32, np.float64)])
def test_cross_entropy_weight_of_another_float_dtype(x_dtype, w_dtype):
    """MindSpore 2.10's ops.cross_entropy takes them (Float64 result either way)."""
    rs = np.random.RandomState(1)
    x, t = rs.randn(3, 5).astype(x_dtype), np.array([0, 1, 4], np.int32)
    w = rs.rand(5).astype(w_dtype)
    got = ops.cross_entropy(Tensor(x), Tensor(t), Tensor(w))
    assert got.dtype == ms.float64
    logp = x.astype(np.float64) - np.log(np.exp(x.astype(np.float64)).sum(1, keepdims=True))
    wt = w.astype(np.float64)[t]
    np.testing.assert_allclose(got.asnumpy(), -(wt * logp[np.arange(3), t]).sum() / wt.sum(),
                               rtol=1e-6)


@ms.jit
def _jit_pow(x, y):
    return x.pow(y)


def test_vmap_of_a_jit_function():
    x = Tensor(np.array([[1, 2, 3], [3, 2, 1]], np.float32))
    np.testing.assert_array_equal(ops.vmap(_jit_pow, (0, 0), 0)(x, x).asnumpy(),
                                  [[1, 4, 27], [27, 4, 1]])


def test_module_paths_mindspores_tests_import_from():
    from mindlite.ops.operations._inner_ops import Cummin
    from mindlite.ops.operations.array_ops import Cummax
    from mindlite.train.serialization import export, load
    from mindlite.train.export_api import export as export2
    assert Cummin is P.Cummin and Cummax is P.Cummax and export is export2 and callable(load)


def test_avg_pool_same_gradient_sums_windows_in_row_major_order():
    # MindSpore 2.10's CPU AvgPoolGrad adds each window's share dy / count in the windows'
    # row-major order: float32 2.2777777 where the reverse order gives 2.277778
    x = Tensor(np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6))
    op = P.AvgPool(kernel_size=3, strides=2, pad_mode="SAME")
    sens = Tensor(np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3))
    dx = ops.grad(lambda a: op(a) * sens)(x).asnumpy()
    assert dx[0, 0, 2, 4] == np.float32(2.2777777)
    assert dx[0, 0, 4, 4] == np.float32(5.138889)
    # and the values: every element gets the sum of its windows' dy / count
    want = np.zeros((6, 6))
    for r in range(3):
        for c in range(3):
            rows = range(2 * r, min(2 * r + 3, 6))
            cols = range(2 * c, min(2 * c + 3, 6))
            for i in rows:
                for j in cols:
                    want[i, j] += (3 * r + c + 1) / (len(rows) * len(cols))
    np.testing.assert_allclose(dx[0, 0], want, rtol=1e-6)


def test_adam_use_lazy_and_use_offload_kwargs():
    # MindSpore 2.10's nn.Adam takes use_lazy / use_offload as kwargs; on dense gradients both
    # are the plain Adam update
    from mindlite import nn

    def trained(**kw):
        net = nn.Dense(3, 2)
        net.weight.set_data(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 10))
        net.bias.set_data(Tensor(np.array([0.5, -0.5], np.float32)))
        opt = nn.Adam(net.trainable_params(), learning_rate=0.1, **kw)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        for _ in range(3):
            step(Tensor(np.ones((4, 3), np.float32)), Tensor(np.zeros((4, 2), np.float32)))
        return net.weight.asnumpy()

    plain = trained()
    np.testing.assert_array_equal(trained(use_lazy=True), plain)
    np.testing.assert_array_equal(trained(use_offload=True), plain)
    params = nn.Dense(2, 2).trainable_params()
    with pytest.raises(ValueError, match="can not both be True"):
        nn.Adam(params, use_lazy=True, use_offload=True)
    with pytest.raises(TypeError, match="use_lazy"):
        nn.Adam(params, use_lazy=1)
    with pytest.raises(KeyError, match="invalid keys"):
        nn.Adam(params, foo=True)
    with pytest.raises(ValueError, match="use_amsgrad"):
        nn.Adam(params, use_lazy=True, use_amsgrad=True)


def test_functional_top_k_is_topk_sorted_or_not():
    # ops.functional.top_k (deprecated in MindSpore, still used by its op tests)
    x = Tensor(np.array([[1, 3, 2, 5], [4, 0, 6, 2]], np.float32))
    v, i = ops.functional.top_k(x, 2)
    assert v.asnumpy().tolist() == [[5, 3], [6, 4]] and i.asnumpy().tolist() == [[3, 1], [2, 0]]
    v, i = ops.functional.top_k(x, 4, False)
    assert v.asnumpy().tolist() == x.asnumpy().tolist()


def test_functional_approximate_equal_module_path():
    from mindlite.ops.function.math_func import approximate_equal
    got = approximate_equal(Tensor(np.array([1.0, 2.0], np.float32)),
                            Tensor(np.array([1.05, 2.5], np.float32)), 0.1)
    assert got.asnumpy().tolist() == [True, False]
    with pytest.raises(ValueError, match="same shape"):
        approximate_equal(Tensor(np.ones(2, np.float32)), Tensor(np.ones(3, np.float32)))


def _layer_norm_grad_mindspore(x, dy, var, mean, gamma, eps, bna, bpa):
    """MindSpore's LayerNormGrad formula (its op test's reference), valid for any statistics."""
    norm_axis = tuple(range(bna, x.ndim))
    param_axis = tuple(range(bpa))
    num = int(np.prod([x.shape[i] for i in norm_axis]))
    gamma = gamma.reshape((1,) * bpa + x.shape[bpa:])
    sum1 = np.sum(-0.5 * dy * gamma * (x - mean) * (var + eps) ** -1.5, norm_axis, keepdims=True)
    sum2 = np.sum(dy * gamma, norm_axis, keepdims=True)
    sum3 = np.sum(-2.0 * (x - mean), norm_axis, keepdims=True)
    dx = (dy * gamma * (var + eps) ** -0.5 + sum1 * 2.0 / num * (x - mean)
          + (-(var + eps) ** -0.5 * sum2 + sum1 * sum3 / num) / num)
    dg = np.sum(dy * (var + eps) ** -0.5 * (x - mean), param_axis)
    return dx, dg, np.sum(dy, param_axis)


@pytest.mark.parametrize("consistent", [True, False])
def test_layer_norm_grad_is_mindspores_for_any_statistics(consistent):
    rs = np.random.RandomState(20)
    x, dy, gamma = rs.rand(3, 4), rs.rand(3, 4), rs.rand(4)
    if consistent:
        mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    else:                                   # MindSpore's vmap test passes random statistics
        mean, var = rs.rand(3, 1), rs.rand(3, 1)
    from mindlite.ops.operations._grad_ops import LayerNormGrad
    got = LayerNormGrad(1, 1, 1e-7)(Tensor(x), Tensor(dy), Tensor(var), Tensor(mean),
                                      Tensor(gamma))
    for g, w in zip(got, _layer_norm_grad_mindspore(x, dy, var, mean, gamma, 1e-7, 1, 1)):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-10)
    got32 = LayerNormGrad(1, 1, 1e-7)(*(Tensor(a.astype(np.float32)) for a in
                                          (x, dy, var, mean, gamma)))
    np.testing.assert_allclose(got32[0].asnumpy(), _layer_norm_grad_mindspore(
        x, dy, var, mean, gamma, 1e-7, 1, 1)[0], rtol=1e-5, atol=1e-6)
