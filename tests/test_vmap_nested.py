"""ops.vmap of Cells, bound methods and primitives, vmap of a vmap, and the batch rules of
Argmax/Argmin (+WithValue), Gather, GatherNd, LayerNorm, Cdist, BCEWithLogitsLoss, the pools
and their gradients, ScatterNd (vmap_rules.py): results equal a loop over the examples
(MindSpore's own op tests use these forms)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor, nn, ops
from mindlite.ops import operations as P


def _loop(fn, args, in_axes):
    size = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = []
    for i in range(size):
        ex = [Tensor(np.take(a, i, ax)) if ax is not None else Tensor(a)
              for a, ax in zip(args, in_axes)]
        out = fn(*ex)
        outs.append([o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))])
    return [np.stack(col) for col in zip(*outs)]


def _check(fn, args, in_axes, rtol=1e-5):
    got = ops.vmap(fn, in_axes=in_axes)(*[Tensor(a) if ax is not None or isinstance(a, np.ndarray)
                                          else a for a, ax in zip(args, in_axes)])
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, _loop(fn, args, in_axes)):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=rtol, atol=1e-6)


class Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return ops.sum(x * self.k, -1)


def test_vmap_of_a_cell_and_of_a_bound_method():
    x = np.random.rand(4, 3, 5).astype(np.float32)
    cell = Scale(2.0)
    np.testing.assert_allclose(ops.vmap(cell)(Tensor(x)).asnumpy(), (x * 2).sum(-1), rtol=1e-6)
    np.testing.assert_allclose(ops.vmap(cell.construct, in_axes=1)(Tensor(x)).asnumpy(),
                               np.moveaxis(x * 2, 1, 0).sum(-1), rtol=1e-6)


def _row_sum(u):
    return P.ReduceSum()(u, 0)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2), st.integers(0, 1), st.integers(0, 1), st.integers(0, 1),
       st.integers(0, 2 ** 31 - 1))
def test_vmap_of_a_vmap_equals_two_loops(outer_in, inner_in, inner_out, outer_out, seed):
    a = np.random.RandomState(seed).rand(2, 3, 4, 5).astype(np.float32)
    f = ops.vmap(ops.vmap(_row_sum, in_axes=inner_in, out_axes=inner_out),
                 in_axes=outer_in, out_axes=outer_out)
    want = []
    for i in range(a.shape[outer_in]):
        s = np.take(a, i, outer_in)
        rows = np.stack([np.take(s, j, inner_in).sum(0) for j in range(s.shape[inner_in])])
        want.append(np.moveaxis(rows, 0, inner_out))
    want = np.moveaxis(np.stack(want), 0, outer_out)
    np.testing.assert_allclose(f(Tensor(a)).asnumpy(), want, rtol=1e-6)


def test_vmap_of_a_vmap_with_an_unmapped_argument():
    x = np.random.rand(2, 3, 4).astype(np.float32)
    y = np.random.rand(4).astype(np.float32)
    f = ops.vmap(ops.vmap(lambda a, b: a * b, in_axes=(0, None)), in_axes=(0, None))
    np.testing.assert_allclose(f(Tensor(x), Tensor(y)).asnumpy(), x * y, rtol=1e-6)


@pytest.mark.parametrize("op", [P.Argmax(axis=-1), P.Argmin(axis=0), P.ArgMaxWithValue(1),
                                P.ArgMinWithValue(-1)])
def test_arg_reduce_rules(op):
    x = np.random.RandomState(1).rand(3, 4, 5).astype(np.float32)
    _check(lambda a: op(a), [x], (0,))
    _check(lambda a: op(a), [x], (2,))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([(0, 0), (0, None), (None, 0), (1, 0)]), st.integers(-2, 1),
       st.integers(0, 2 ** 31 - 1))
def test_gather_rule(axes, axis, seed):
    rs = np.random.RandomState(seed)
    x = rs.rand(3, 3, 5).astype(np.float32)
    idx = rs.randint(-3, 3, (3, 2)).astype(np.int32)      # negative indices count from the end
    ex_nd = 2
    if axes[0] is None:
        x = x[0]
    if axes[1] is None:
        idx = idx[0]
    a = axis % ex_nd
    idx = np.clip(idx, -x.shape[-ex_nd + a], x.shape[-ex_nd + a] - 1)
    _check(lambda p, i: P.Gather()(p, i, axis), [x, idx], axes)


def test_gather_rule_out_of_range_names_gather():
    with pytest.raises(RuntimeError, match="For 'Gather', the 'input_indices' should be in "):
        ops.vmap(lambda p, i: P.Gather()(p, i, 0))(Tensor(np.ones((2, 3), np.float32)),
                                                   Tensor(np.array([[0, 3], [1, 0]], np.int32)))


@pytest.mark.parametrize("axes", [(0, 0), (0, None), (None, 0)])
def test_gather_nd_rule(axes):
    rs = np.random.RandomState(2)
    x = rs.rand(3, 4, 5).astype(np.float32)
    idx = rs.randint(0, 4, (3, 2, 1)).astype(np.int32)
    if axes[0] is None:
        x = x[0]
    if axes[1] is None:
        idx = idx[0]
    _check(lambda p, i: P.GatherNd()(p, i), [x, idx], axes)


@pytest.mark.parametrize("axes", [(0, 0, 0), (0, None, None), (None, 0, 0), (1, 0, None)])
def test_layer_norm_rule(axes):
    rs = np.random.RandomState(3)
    x = rs.rand(3, 3, 5).astype(np.float32)
    gamma, beta = rs.rand(3, 5).astype(np.float32), rs.rand(3, 5).astype(np.float32)
    args = [x if axes[0] is not None else x[0], gamma if axes[1] is not None else gamma[0],
            beta if axes[2] is not None else beta[0]]
    _check(lambda a, g, b: P.LayerNorm(-1, -1)(a, g, b), args, axes, rtol=1e-4)


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 2, 3, 4)])
def test_cdist_rule(shape):
    rs = np.random.RandomState(4)
    x, y = rs.rand(*shape).astype(np.float32), rs.rand(*shape).astype(np.float32)
    _check(lambda a, b: P.Cdist(2.0)(a, b), [x, y], (0, 0), rtol=1e-4)
    _check(lambda a, b: P.Cdist(1.0)(a, b), [x, y[0]], (0, None), rtol=1e-4)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_bce_with_logits_rule(reduction):
    rs = np.random.RandomState(5)
    logits, label = rs.randn(3, 2, 4).astype(np.float32), rs.rand(3, 2, 4).astype(np.float32)
    weight, pos = rs.rand(4).astype(np.float32), rs.rand(3, 4).astype(np.float32)
    _check(lambda a, b, w, p: P.BCEWithLogitsLoss(reduction)(a, b, w, p),
           [logits, label, weight, pos], (0, 0, None, 0), rtol=1e-5)


@pytest.mark.parametrize("op", [P.MaxPool(2, 2, "VALID"), P.AvgPool(3, 2, "SAME"),
                                P.MaxPool(3, 1, "SAME")])
@pytest.mark.parametrize("axes", [(0,), (2,)])
def test_pool_rule_folds_the_batch_into_n(op, axes):
    rs = np.random.RandomState(3)
    _check(lambda x: op(x), [rs.randn(3, 2, 2, 6, 5).astype(np.float32)] if axes == (0,) else
           [rs.randn(2, 2, 3, 6, 5).astype(np.float32)], axes)


def test_pool_gradient_under_vmap_equals_a_loop():
    rs = np.random.RandomState(4)
    x = rs.randn(3, 1, 2, 6, 6).astype(np.float32)
    dy = rs.randn(3, 1, 2, 3, 3).astype(np.float32)
    for op in (P.MaxPool(2, 2, "VALID"), P.AvgPool(2, 2, "VALID")):
        def grad(a, d, op=op):
            return ops.grad(lambda t: op(t) * d)(a)
        _check(grad, [x, dy], (0, 0))


@pytest.mark.parametrize("axes", [(0, 0, None), (0, None, None), (None, 0, None)])
def test_scatter_nd_rule(axes):
    rs = np.random.RandomState(5)
    idx = rs.randint(0, 3, (2, 4, 2)).astype(np.int32)
    upd = rs.randn(2, 4, 5).astype(np.float32)
    idx = idx if axes[0] is not None else idx[0]
    upd = upd if axes[1] is not None else upd[0]
    _check(lambda i, u, s: P.ScatterNd()(i, u, s), [idx, upd, (3, 3, 5)], axes)


def test_vmap_of_a_primitive_runs_its_rule():
    rs = np.random.RandomState(6)
    x = rs.randn(2, 2, 3, 6, 6).astype(np.float32)
    got = ops.vmap(P.MaxPool(2, 2, "VALID"), in_axes=2)(Tensor(x)).asnumpy()
    want = np.stack([P.MaxPool(2, 2, "VALID")(Tensor(x[:, :, i])).asnumpy() for i in range(3)])
    np.testing.assert_array_equal(got, want)
    a, b = rs.randn(3, 2).astype(np.float32), rs.randn(2).astype(np.float32)
    np.testing.assert_allclose(ops.vmap(P.Add(), in_axes=(0, None), out_axes=1)(
        Tensor(a), Tensor(b)).asnumpy(), (a + b).T)
    i, v = ops.vmap(P.ArgMaxWithValue(axis=0))(Tensor(a))      # a tuple result
    np.testing.assert_array_equal(v.asnumpy(), a.max(1))
    np.testing.assert_array_equal(i.asnumpy(), a.argmax(1))


@pytest.mark.parametrize("begin,end,strides", [((2, 0, 0), (3, 2, 3), (1, 1, 1)),
                                               ((0, 1, 0), (3, 2, 3), (2, 1, 2))])
def test_strided_slice_grad_rule(begin, end, strides):
    from mindlite.ops.operations import _grad_ops as G
    x_shape = (3, 2, 3)
    sl = np.zeros(x_shape)[tuple(slice(b, e, s) for b, e, s in zip(begin, end, strides))]
    dy = np.random.RandomState(7).randn(4, *sl.shape).astype(np.float32)
    _check(lambda d: G.StridedSliceGrad()(d, x_shape, begin, end, strides), [dy], (0,))


def test_vmap_of_a_cell_with_a_jit_construct():
    from mindlite import jit

    class Double(nn.Cell):
        @jit
        def construct(self, x):
            return x * 2

    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(ops.vmap(Double(), in_axes=1)(Tensor(x)).asnumpy(), (x * 2).T)


@pytest.mark.parametrize("axes", [(0, 0, 0, 0, 0), (0, 0, 0, 0, None), (1, 0, 1, 1, None)])
def test_layer_norm_grad_rule(axes):
    rs = np.random.RandomState(8)
    shapes = {0: (2, 3, 4), 1: (3, 2, 4)}
    x = rs.rand(*shapes[axes[0]]).astype(np.float32)
    dy = rs.rand(*shapes[axes[1]]).astype(np.float32)
    st_shape = {0: (2, 3, 1), 1: (3, 2, 1)}
    var = rs.rand(*st_shape[axes[2]]).astype(np.float32)
    mean = rs.rand(*st_shape[axes[3]]).astype(np.float32)
    gamma = rs.rand(2, 4).astype(np.float32) if axes[4] == 0 else rs.rand(4).astype(np.float32)
    from mindlite.ops.operations import _grad_ops as G
    _check(lambda a, b, c, d, e: G.LayerNormGrad(-1, -1)(a, b, c, d, e),
           [x, dy, var, mean, gamma], axes, rtol=1e-4)


def test_graph_mode_vmap_of_a_cell_and_of_a_parameter_update():
    """A GRAPH_MODE cell calling vmap of a Cell, and vmap of a function updating mapped
    Parameters in place (MindSpore's optimizer vmap tests): eager's results (graph mode does
    not replay these vmaps, so the construct runs eagerly, with GRAPH_MODE's warning)."""
    import mindlite as ms

    def descend(var, grad):
        return P.ApplyGradientDescent()(var, 0.5, grad)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.var = ms.Parameter(Tensor(np.ones((3, 2), np.float32)), name="var")
            self.scaled = ops.vmap(Scale(2.0), in_axes=0)
            self.step = ops.vmap(descend, in_axes=(0, 0))

        def construct(self, x, grad):
            return self.scaled(x), self.step(self.var, grad)

    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        with pytest.warns(UserWarning, match="runs eagerly"):
            scaled, _ = net(Tensor(x), Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(scaled.asnumpy(), (2 * x).sum(-1))
    np.testing.assert_allclose(net.var.asnumpy(), 1 - 0.5 * x)
