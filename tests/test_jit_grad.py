"""Graph autodiff (issue 12 §1): gradients from the J transform over the compiled graph equal
eager's tape gradients, in float64 over generated inputs, for every differentiable primitive
family (elementwise, matmul, reductions, reshape/transpose/index, conv/pool, softmax and
losses, norms) and for MLP / CNN / LayerNorm / BatchNorm / attention-style blocks, through
grad of a @jit function, @jit of a function calling grad, and GRAPH_MODE Cells."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import nn, ops
from mindlite.pynative.grad import BPROPS

FEW = settings(max_examples=6, deadline=None)


def _close(got, want, tag=""):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), tag
        for g, w in zip(got, want):
            _close(g, w, tag)
        return
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-9, atol=1e-11,
                               err_msg=tag)


def _t(rng, *shape, positive=False):
    a = rng.standard_normal(shape)
    return ms.Tensor(np.abs(a) + 0.5 if positive else a)


def _both(api, fn, args, **kw):
    """(graph result, eager result) of api(fn, **kw)(*args); no tape fallback allowed."""
    want = api(fn, **kw)(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = api(ms.jit(fn), **kw)
        got = compiled(*args)
    assert _joint_graph(compiled, *args) is not None
    return got, want


def _joint_graph(grad_fn, *args):
    """The compiled forward+backward graph behind a gradient function (None: the tape ran)."""
    joint = getattr(grad_fn, "_ml_joint", None)
    if joint is None or isinstance(joint, str):
        return None
    return joint.graph(grad_fn, *args)


def _prim_names(graph):
    return [n.inputs[0].value.name for n in graph.order
            if type(getattr(n.inputs[0], "value", None)).__module__.startswith("mindlite.ops")]


# name -> (function of tensors, input shapes, positive inputs)
FAMILIES = {
    "elementwise": (lambda x, y: ops.sum(ops.exp(x) * y - x / (y * y + 1) + ops.tanh(x * y)
                                         + ops.sigmoid(x) ** 2 - ops.sin(y) * ops.cos(x)),
                    [(3, 4), (4,)], False),
    "log_sqrt_pow": (lambda x, y: ops.sum(ops.log(x) * ops.sqrt(y) + ops.pow(x, 1.5)
                                          + ops.maximum(x, y) - ops.minimum(x, 2 * y)),
                     [(2, 3), (2, 3)], True),
    "matmul": (lambda x, y: ops.sum(ops.matmul(x, y) ** 2), [(3, 4), (4, 5)], False),
    "batch_matmul": (lambda x, y: ops.sum(ops.tanh(ops.bmm(x, y))), [(2, 3, 4), (2, 4, 2)],
                     False),
    "reductions": (lambda x, y: ops.sum(x, 1).sum() * ops.mean(y) + ops.amax(x * y)
                   + ops.mean(x, (0, 1), keep_dims=True).sum() + ops.prod(y, 0).sum(),
                   [(3, 4), (3, 4)], False),
    "reshape_transpose_index": (lambda x, y: ops.sum(ops.transpose(x.reshape(4, 3), (1, 0))
                                                     * y[:, 1:]) + ops.sum(x[1] * y[2, :4])
                                + ops.sum(ops.concat((x, y[:, :4]), 0) ** 2)
                                + ops.sum(ops.stack((x, x * 2)).expand_dims(0) ** 3),
                                [(3, 4), (3, 5)], False),
    "conv_pool": (lambda x, w: ops.sum(ops.max_pool2d(ops.relu(ops.conv2d(x, w, pad_mode="pad",
                                                                           padding=1)), 2, 2)
                                       ** 2) + ops.sum(ops.avg_pool2d(x, 2, 2) * 3),
                  [(2, 3, 6, 6), (4, 3, 3, 3)], False),
    "softmax_losses": (lambda x, t: ops.sum(ops.softmax(x, -1) * t) + ops.mse_loss(x, t)
                       + ops.sum(ops.log_softmax(x, 1) * t), [(4, 5), (4, 5)], False),
    "norms": (lambda x, w: ops.sum(ops.layer_norm(x, (5,), w[0], w[1]) ** 2 * x),
              [(4, 5), (2, 5)], False),
    "tuple_outputs": (lambda x, y: ops.sum(ops.split(x, 2, 1)[0] * 2 + ops.split(x, 2, 1)[2])
                      + ops.sum(ops.max(y, 1)[0] ** 2), [(4, 6), (4, 5)], False),
    "gather_and_tensor_index": (lambda x, y: ops.sum(ops.gather(x, _IDX, 0) ** 2)
                                + ops.sum(y[_IDX] * 3), [(4, 6), (4, 5)], False),
    "class_losses": (lambda x, y: ops.cross_entropy(x, _LABELS)
                     + ops.nll_loss(ops.log_softmax(y, 1), _LABELS)
                     + ops.binary_cross_entropy_with_logits(x, ops.sigmoid(y), _ONES, _ONES),
                     [(4, 5), (4, 5)], False),
    "select_clip_cumsum_pad": (lambda x, y: ops.sum(ops.where(x > y, ops.abs(x), ops.square(y))
                                                    * ops.rsqrt(ops.abs(y) + 1))
                               + ops.sum(ops.cumsum(x, 1) * ops.clamp(y, -0.5, 0.5))
                               + ops.sum(ops.pad(x, (1, 2)) ** 2),
                               [(4, 5), (4, 5)], False),
    "activations": (lambda x, y: ops.sum(ops.softplus(x) + ops.gelu(y) + ops.silu(x * y)
                                         + ops.relu(y) * ops.elu(x)), [(3, 4), (3, 4)], False),
}
_IDX = ms.Tensor(np.array([0, 2, 2], np.int32))
_LABELS = ms.Tensor(np.array([0, 2, 1, 4], np.int32))
_ONES = ms.Tensor(np.ones((4, 5)))


@pytest.mark.parametrize("name", sorted(FAMILIES))
@FEW
@given(seed=st.integers(0, 2 ** 31 - 1))
def test_family_gradients_equal_eager(name, seed):
    fn, shapes, positive = FAMILIES[name]
    rng = np.random.default_rng(seed)
    args = [_t(rng, *s, positive=positive) for s in shapes]
    got, want = _both(ms.grad, fn, args, grad_position=(0, 1))
    _close(got, want, name)


def test_bprops_become_graph_nodes_with_their_source_lines():
    def f(x, y):
        return ops.sum(ops.matmul(x, y))

    rng = np.random.default_rng(0)
    x, y = _t(rng, 2, 3), _t(rng, 3, 2)
    g = ms.grad(ms.jit(f), (0, 1))
    g(x, y)
    graph = _joint_graph(g, x, y)
    matmul_bprop = BPROPS[type(ms.ops.operations.math_ops.MatMul())]
    lines = {loc.file: loc.line for n in graph.order for loc in n.debug}
    assert matmul_bprop.__code__.co_filename in lines
    names = _prim_names(graph)
    assert sum("MatMul" in n for n in names) == 2     # dx and dy; the forward one is dead


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Dense(6, 8, activation="relu")
        self.l2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.l2(self.l1(x))


class CNNBlock(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="pad", padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2, 2)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(64, 8)
        self.ln = nn.LayerNorm((8,))

    def construct(self, x):
        h = self.pool(ops.relu(self.bn(self.conv(x))))
        return ops.tanh(self.ln(self.fc(self.flat(h))))


class Attention(nn.Cell):
    def __init__(self, d=8):
        super().__init__()
        self.q, self.k, self.v = nn.Dense(d, d), nn.Dense(d, d), nn.Dense(d, d)
        self.scale = 1.0 / np.sqrt(d)

    def construct(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        att = ops.softmax(ops.bmm(q, k.transpose(0, 2, 1)) * self.scale, -1)
        return ops.bmm(att, v) + x


def _f64(net):
    for p in net.get_parameters():
        p.set_dtype(ms.float64)
    return net.set_train(True)


BLOCKS = {"mlp": (MLP, (5, 6)), "cnn": (CNNBlock, (2, 1, 8, 8)),
          "attention": (Attention, (2, 4, 8))}


@pytest.mark.parametrize("name", sorted(BLOCKS))
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2 ** 31 - 1))
def test_block_gradients_equal_eager(name, seed):
    cls, shape = BLOCKS[name]
    ms.set_seed(1)
    net = _f64(cls())
    params = net.trainable_params()
    rng = np.random.default_rng(seed)
    x = _t(rng, *shape)

    def loss(x):
        return ops.mean(net(x) ** 2)

    got, want = _both(ms.value_and_grad, loss, (x,), grad_position=0, weights=params)
    _close(got, want, name)


def test_graph_mode_cell_value_and_grad_and_train_steps_equal_eager():
    rng = np.random.default_rng(3)
    x = _t(rng, 5, 6)
    y = ms.Tensor(np.array([0, 1, 2, 1, 0], np.int32))
    nets = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_seed(2)
        net = _f64(MLP())
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                      reduction="mean"))
        ms.set_context(mode=mode)
        try:
            step = ms.value_and_grad(loss, None, net.trainable_params())
            for _ in range(3):
                _, grads = step(x, y)
                for p, g in zip(net.trainable_params(), grads):
                    p.set_data(p - 0.5 * g)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        nets.append(net)
        if mode == ms.GRAPH_MODE:
            assert _joint_graph(step, x, y) is not None
    for a, b in zip(*(n.trainable_params() for n in nets)):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-12, atol=1e-14)


def test_jit_function_calling_value_and_grad_compiles_forward_and_backward():
    ms.set_seed(4)
    net = _f64(MLP())
    params = net.trainable_params()
    loss_fn = nn.MSELoss()

    def forward(x, t):
        out = net(x)
        return loss_fn(out, t), out

    grad_fn = ms.value_and_grad(forward, None, params, has_aux=True)

    @ms.jit
    def step(x, t):
        (loss, _), grads = grad_fn(x, t)
        return loss, grads

    rng = np.random.default_rng(5)
    x, t = _t(rng, 4, 6), _t(rng, 4, 3)
    got = step(x, t)
    want_loss, want_grads = (lambda r: (r[0][0], r[1]))(grad_fn(x, t))
    _close(got[0], want_loss)
    _close(got[1], want_grads)
    names = _prim_names(step.graph(x, t))
    # 2 forward; backward: dW2, dx of layer 2, dW1 (after passes: possibly fused with a bias)
    assert sum("MatMul" in n for n in names) == 5


def _square(v):
    return v * v


def _affine(v):
    return v * 0.5 - 1


def _safe_div(a, b):
    return a / (b * b + 1)


_UNARY = [ops.sin, ops.tanh, ops.exp, _square, ops.sigmoid, _affine]
_BINARY = [ops.add, ops.mul, ops.sub, _safe_div, ops.maximum]


def _program(ops_list):
    """A straight-line function over 2 (3, 3) inputs: each step applies a unary or binary op
    to earlier values (fan-out: values are reused, so adjoints accumulate); the result sums
    the last value times every input (all of them reach the output)."""
    def fn(x, y):
        vals = [x, y]
        for kind, op, i, j in ops_list:
            a, b = vals[i % len(vals)], vals[j % len(vals)]
            if kind == "u":
                vals.append(_UNARY[op](a))
            elif kind == "b":
                vals.append(_BINARY[op](a, b))
            else:
                vals.append(ops.matmul(a, b))
        return ops.sum(vals[-1] * x + y * vals[len(vals) // 2])
    return fn


_STEP = st.one_of(
    st.tuples(st.just("u"), st.integers(0, len(_UNARY) - 1), st.integers(0, 9), st.just(0)),
    st.tuples(st.just("b"), st.integers(0, len(_BINARY) - 1), st.integers(0, 9),
              st.integers(0, 9)),
    st.tuples(st.just("m"), st.just(0), st.integers(0, 9), st.integers(0, 9)))


@settings(max_examples=12, deadline=None)
@given(steps=st.lists(_STEP, min_size=1, max_size=7), seed=st.integers(0, 2 ** 31 - 1))
def test_generated_programs_gradients_equal_eager(steps, seed):
    fn = _program(steps)
    rng = np.random.default_rng(seed)
    args = (ms.Tensor(rng.uniform(-1, 1, (3, 3))), ms.Tensor(rng.uniform(-1, 1, (3, 3))))
    want = ms.grad(fn, (0, 1))(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        @ms.jit
        def compiled(x, y):
            return ms.grad(fn, (0, 1))(x, y)
        got = compiled(*args)
    _close(got, want, str(steps))
