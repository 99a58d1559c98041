"""GRAPH_MODE Cells and jit's errors and cache: an MLP, LeNet and a Cell with an attribute
branch and a CellList loop give eager's outputs; Parameters are read live; errors name the
op or construct and the user's file:line; a failed compile leaves nothing in the cache."""
import warnings

import numpy as np
import pytest

import mindlite as ms
from mindlite import nn, ops
from mindlite.ir import dump_ir, lint
from mindlite.jit import UnsupportedSyntaxError
from mindlite.jit import api as jit_api
from mindlite.jit import cell_graph
from models import LeNet


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _eager_then_graph(net, *args):
    want = net(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = net(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return got, want


class Branchy(nn.Cell):
    def __init__(self, use_tanh, depth):
        super().__init__()
        self.head = nn.SequentialCell(nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 4))
        self.use_tanh = use_tanh
        self.blocks = nn.CellList([nn.Dense(4, 4, activation="relu") for _ in range(depth)])
        self.scale = ms.Parameter(ms.Tensor(np.full(4, 0.5, np.float32)), name="scale")

    def construct(self, x):
        y = self.head(x)
        if self.use_tanh:
            y = ops.tanh(y)
        else:
            y = ops.sigmoid(y)
        for block in self.blocks:
            y = block(y) + y
        if y.sum() > 0:                    # a tensor condition: Switch over two graphs
            y = y * self.scale
        return y


@pytest.mark.parametrize("use_tanh,depth", [(True, 2), (False, 0), (False, 3)])
def test_attribute_branch_and_celllist_loop(use_tanh, depth):
    net = Branchy(use_tanh, depth)
    for seed in range(3):
        x = ms.Tensor(np.random.default_rng(seed).normal(size=(5, 6)).astype(np.float32))
        got, want = _eager_then_graph(net, x)
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_mlp_and_lenet_equal_eager():
    mlp = nn.SequentialCell(nn.Dense(16, 32), nn.ReLU(), nn.Dense(32, 32), nn.ReLU(),
                            nn.Dense(32, 10))
    x = ms.Tensor(np.random.default_rng(0).normal(size=(8, 16)).astype(np.float32))
    got, want = _eager_then_graph(mlp, x)
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    lenet = LeNet(image=28, hidden=(120,))
    x = ms.Tensor(np.random.default_rng(1).normal(size=(2, 1, 28, 28)).astype(np.float32))
    got, want = _eager_then_graph(lenet, x)
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_parameters_are_graph_parameters_read_live(graph_mode):
    net = Branchy(True, 1)
    x = ms.Tensor(np.ones((2, 6), np.float32))
    net(x)
    jf = cell_graph._CELL_JIT[net]
    graph = jf.graph(net, x)
    lint(graph)
    assert graph.parameters[0].name == "x" and graph.parameters[0].default is None
    weights = [p.default for p in graph.parameters[1:]]
    assert all(isinstance(w, ms.Parameter) for w in weights)
    assert {id(w) for w in weights} == {id(p) for p in net.get_parameters()}
    assert "scale" in dump_ir(graph)
    net.head[0].bias.set_data(ms.Tensor(np.full(8, 3.0, np.float32)))
    net.scale.set_data(ms.Tensor(np.full(4, 2.0, np.float32)))
    after = net(x).asnumpy()
    assert jf.graph(net, x) is graph                 # same signature: no recompile
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(after, net(x).asnumpy())


def test_grad_through_a_graph_mode_cell_equals_eager():
    net = nn.SequentialCell(nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2))
    loss_fn = nn.MSELoss()
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, net.trainable_params())
    x = ms.Tensor(np.random.default_rng(2).normal(size=(5, 4)).astype(np.float32))
    y = ms.Tensor(np.random.default_rng(3).normal(size=(5, 2)).astype(np.float32))
    (l1, g1) = grad_fn(x, y)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        (l2, g2) = grad_fn(x, y)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert float(l1) == float(l2)
    for a, b in zip(g1, g2):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


# ---- errors ------------------------------------------------------------------------------------
def _line(fragment):
    lines = open(__file__).read().splitlines()
    return f"{__file__}:{[i + 1 for i, s in enumerate(lines) if fragment in s][0]}"


def bad_matmul(x):
    y = ops.matmul(x, x)      # shape error
    return y


def test_type_errors_name_the_op_and_the_source_line():
    jf = ms.jit(bad_matmul)
    with pytest.raises(ValueError) as info:
        jf(ms.Tensor(np.ones((2, 3), np.float32)))
    msg = str(info.value)
    assert "MatMul" in msg and _line("# shape error") in msg
    assert len(jf.cache) == 0                         # a failed compile caches nothing
    out = jf(ms.Tensor(np.ones((3, 3), np.float32)))  # a fixed input compiles cleanly
    assert out.asnumpy().tolist() == [[3.0] * 3] * 3 and len(jf.cache) == 1


def uses_try(x):
    try:                      # unsupported
        return x + 1
    except ValueError:
        return x


def branch_mismatch(x):
    if x.sum() > 0:                   # mismatched branches
        y = x
    else:
        y = x.astype(ms.int32)        # different dtype in the two branches
    return y


def loop_changes_shape(x):
    while x.sum() < 100:
        x = ops.concat((x, x))        # the loop's variable grows
    return x


def calls_numpy(x):
    return np.sum(x)                  # an unknown Python function on a tensor


def test_unsupported_constructs_raise_with_file_and_line():
    x = ms.Tensor(np.ones(3, np.float32))
    cases = [(uses_try, UnsupportedSyntaxError, "Try", "# unsupported"),
             (branch_mismatch, TypeError, "variable 'y'", "# mismatched branches"),
             (loop_changes_shape, TypeError, "while", "# the loop's variable grows"),
             (calls_numpy, UnsupportedSyntaxError, "calling", "# an unknown Python")]
    for fn, exc, words, marker in cases:
        jf = ms.jit(fn)
        with pytest.raises(exc) as info:
            jf(x)
        assert words in str(info.value) and _line(marker) in str(info.value), str(info.value)
        assert len(jf.cache) == 0


def test_cache_is_per_signature_and_bounded(monkeypatch):
    monkeypatch.setattr(jit_api, "CACHE_SIZE", 3)
    jf = ms.jit(lambda x, k: x * k)
    x = ms.Tensor(np.ones(2, np.float32))
    for k in range(5):
        assert jf(x, k).asnumpy().tolist() == [float(k)] * 2
    assert len(jf.cache) == 3
    g1 = jf.graph(x, 4)
    assert jf.graph(x, 4) is g1                                    # cached
    assert jf.graph(ms.Tensor(np.ones(3, np.float32)), 4) is not g1  # a new shape compiles


class TrainSwitch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 2.0

    def construct(self, x):
        if self.training:
            return x * self.k
        return x - self.k


def test_a_changed_attribute_recompiles(graph_mode):
    """Attributes read as constants are guarded: set_train or a new value recompiles."""
    net = TrainSwitch()
    x = ms.Tensor(np.ones(2, np.float32))
    assert net(x).asnumpy().tolist() == [-1.0, -1.0]
    net.set_train(True)
    assert net(x).asnumpy().tolist() == [2.0, 2.0]
    net.k = 5.0
    assert net(x).asnumpy().tolist() == [5.0, 5.0]
    net.set_train(False)
    assert net(x).asnumpy().tolist() == [-4.0, -4.0]


def test_appending_a_cell_recompiles(graph_mode):
    seq = nn.SequentialCell(nn.ReLU())
    x = ms.Tensor(np.array([-1.0, 2.0], np.float32))
    assert seq(x).asnumpy().tolist() == [0.0, 2.0]
    seq.append(nn.Tanh())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = seq(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(seq(x).asnumpy(), want)


def _layer_cases():
    rng = np.random.default_rng(0)

    def f(*s):
        return ms.Tensor(rng.normal(size=s).astype(np.float32))
    labels = ms.Tensor(np.array([0, 1, 2, 4], np.int32))
    return [
        (nn.ReLU6(), (f(3, 4),)), (nn.SiLU(), (f(3, 4),)), (nn.GELU(), (f(3, 4),)),
        (nn.Softmax(), (f(3, 4),)), (nn.LogSoftmax(axis=0), (f(3, 4),)),
        (nn.Flatten(), (f(2, 3, 4),)), (nn.Dropout(p=0.5), (f(3, 4),)),
        (nn.Embedding(10, 4), (ms.Tensor(np.array([[1, 2], [3, 9]], np.int32)),)),
        (nn.BatchNorm1d(4), (f(5, 4),)), (nn.BatchNorm2d(3), (f(2, 3, 4, 4),)),
        (nn.LayerNorm((4,)), (f(3, 4),)), (nn.AvgPool2d(2, 2), (f(1, 2, 4, 4),)),
        (nn.Conv2d(2, 3, 3), (f(1, 2, 5, 5),)),
        (nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), (f(4, 5), labels)),
        (nn.CrossEntropyLoss(), (f(4, 5), labels)), (nn.NLLLoss(), (f(4, 5), labels)),
        (nn.MSELoss(), (f(4, 5), f(4, 5))), (nn.BCEWithLogitsLoss(), (f(4, 5), f(4, 5)))]


@pytest.mark.parametrize("train", [False, True])
def test_layers_and_losses_in_graph_mode(train):
    """Every layer's construct compiles; training-mode BatchNorm updates its statistics and
    Dropout draws its mask through the same primitives as eager (same seed, same result)."""
    for net, args in _layer_cases():
        net.set_train(train)
        ms.set_seed(7)
        want = net(*args).asnumpy()
        ms.set_seed(7)
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")          # compiled, not the eager fallback
                got = net(*args).asnumpy()
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=type(net).__name__)


class Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="total")

    def construct(self, x):
        ops.assign_add(self.total, x)        # result unused: kept for its effect
        return x * 2


def test_in_place_primitives_are_kept_and_ordered(graph_mode):
    """An in-place primitive whose result nothing uses still runs, once per call."""
    net = Accumulate()
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    for _ in range(3):
        assert net(x).asnumpy().tolist() == [2.0, 4.0]
    assert net.total.asnumpy().tolist() == [3.0, 6.0]
    graph = cell_graph._CELL_JIT[net].graph(net, x)
    assert [n.inputs[0].value.name for n in graph.order] == ["AssignAdd", "Mul"]
    assert graph.order[0].side_effect


def test_dropout_is_never_folded_or_dropped():
    @ms.jit
    def f(x):
        ops.dropout(x, p=0.5, training=True)            # unused: still draws, as eager
        return ops.dropout(ms.Tensor(np.ones(4, np.float32)), p=0.5, training=True)
    x = ms.Tensor(np.ones(4, np.float32))
    ms.set_seed(3)
    eager = [f.__wrapped__(x).asnumpy() for _ in range(2)]
    ms.set_seed(3)
    graph = [f(x).asnumpy() for _ in range(2)]
    np.testing.assert_array_equal(np.stack(graph), np.stack(eager))


def test_provider_and_custom_kernels_run_inside_graphs():
    """Graph nodes call primitives through the kernel registry: a provider kernel and a
    Custom op apply inside a compiled graph exactly as in eager."""
    calls = []

    def vendor_add(x, y, out):
        calls.append(x.shape)
        np.add(x, y, out=out)
        out += 1000                          # visibly the vendor's kernel

    ms.register_kernel("Add", arch="CPU", provider="jit_test_vendor", dtypes=(ms.float32,),
                       kernel=vendor_add)
    try:
        custom = ops.Custom(lambda a, b: a * b - a)

        @ms.jit
        def f(x, y):
            return custom(x + y, y)
        x = ms.Tensor(np.array([1.0, 2.0], np.float32))
        y = ms.Tensor(np.array([3.0, 4.0], np.float32))
        ms.set_context(kernel_provider="jit_test_vendor")
        try:
            want = f.__wrapped__(x, y).asnumpy()
            got = f(x, y).asnumpy()
        finally:
            ms.set_context(kernel_provider=None)
        s = np.array([1004.0, 1006.0], np.float32)
        np.testing.assert_array_equal(want, s * y.asnumpy() - s)
        np.testing.assert_array_equal(got, want)
        assert len(calls) == 2
    finally:
        ms.unregister_kernel("Add", "jit_test_vendor")


def _train(mode, steps=4):
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.normal(size=(16, 4)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 16).astype(np.int32))
    ms.set_context(mode=mode)
    try:
        losses = [float(step(x, y)) for _ in range(steps)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, [p.asnumpy() for p in net.get_parameters()]


def test_training_step_in_graph_mode_compiles_and_trains_as_eager():
    """TrainOneStepCell (value_and_grad, then the optimizer) compiles into one graph under
    GRAPH_MODE (graph autodiff, docs/graph_autodiff.md): no eager fallback, and it trains
    exactly as eager."""
    want_losses, want_params = _train(ms.PYNATIVE_MODE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got_losses, got_params = _train(ms.GRAPH_MODE)
    from mindlite.pynative.grad import GRAD_EXECUTOR
    assert GRAD_EXECUTOR.tapes == [] and not GRAD_EXECUTOR.recording   # compiling ran no
                                                                         # Python side effect
    assert got_losses == want_losses
    for g, w in zip(got_params, want_params):
        np.testing.assert_array_equal(g, w)


SEEN = []


def _log(tag):
    SEEN.append(tag)                 # a side effect on a list the graph did not create
    return tag


class _Holder:
    flag = False


def _set_flag(h):
    h.flag = True


def test_compiling_never_runs_python_side_effects():
    """Parsing a helper that would mutate outside state is an error naming it, and the
    state is unchanged: a mutation at compile time would happen once, not per call."""
    x = ms.Tensor(np.ones(2, np.float32))
    with pytest.raises(UnsupportedSyntaxError, match="list.append"):
        ms.jit(lambda t: t * len(_log("a")))(x)
    holder = _Holder()
    with pytest.raises(UnsupportedSyntaxError, match="attribute 'flag'"):
        ms.jit(lambda t, h: (_set_flag(h), t)[1])(x, holder)
    assert SEEN == [] and holder.flag is False

    def local_lists(t):
        out = []
        for k in range(3):
            out.append(t * k)            # a list the graph code created: fine
        d = {}
        d["s"] = out[1] + out[2]
        return d["s"]
    np.testing.assert_array_equal(ms.jit(local_lists)(x).asnumpy(), [3.0, 3.0])
