"""Whole training steps in one graph (issue 12 §2): TrainOneStepCell under GRAPH_MODE, a
user's @jit step calling value_and_grad then the optimizer, and train.Model in GRAPH_MODE
compile forward, backward and the optimizer's in-place Parameter updates (and the global
step) into one graph, and give eager's parameters after N steps."""
import warnings

import numpy as np
import pytest

import mindlite as ms
from mindlite import nn, ops
from mindlite.dataset import NumpySlicesDataset

OPTIMIZERS = {
    "momentum": lambda ps: nn.Momentum(ps, 0.1, 0.9),
    "sgd": lambda ps: nn.SGD(ps, 0.1, weight_decay=0.01),
    "adam": lambda ps: nn.Adam(ps, 0.01),
    "lr_list": lambda ps: nn.Momentum(ps, [0.1, 0.05, 0.01], 0.9),
    # in-place updates the parser must keep (their primitives declare state_inputs)
    "adam_weight_decay": lambda ps: nn.AdamWeightDecay(ps, 0.01, weight_decay=0.01),
    "rmsprop": lambda ps: nn.RMSProp(ps, 0.01, centered=True),
    "adagrad": lambda ps: nn.Adagrad(ps, learning_rate=0.01),
    "adadelta": lambda ps: nn.Adadelta(ps, learning_rate=0.01),
    "ftrl": lambda ps: nn.FTRL(ps),
    "proximal_adagrad": lambda ps: nn.ProximalAdagrad(ps, learning_rate=0.01),
}
# optimizers whose construct looks at data in Python: the step runs eagerly, with a warning
EAGER_OPTIMIZERS = {
    "adamax": lambda ps: nn.AdaMax(ps, learning_rate=0.01),
    "lamb": lambda ps: nn.Lamb(ps, 0.01),
}


def _net():
    ms.set_seed(3)
    return nn.SequentialCell(nn.Dense(6, 16, activation="relu"), nn.Dense(16, 3))


def _data():
    rng = np.random.default_rng(0)
    return (ms.Tensor(rng.standard_normal((8, 6)).astype(np.float32)),
            ms.Tensor(rng.integers(0, 3, 8).astype(np.int32)))


def _loss():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def _same_params(a, b):
    # the same primitives in the same order: equal up to the fused kernels' reassociation
    for p, q in zip(a.trainable_params(), b.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_train_one_step_cell_in_graph_mode_is_one_graph_and_equals_eager(name):
    x, y = _data()
    nets, losses = [], []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        net = _net()
        opt = OPTIMIZERS[name](net.trainable_params())
        step = nn.TrainOneStepCell(nn.WithLossCell(net, _loss()), opt)
        ms.set_context(mode=mode)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")            # no eager fallback
                losses.append([float(step(x, y).asnumpy()) for _ in range(5)])
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        nets.append(net)
        assert int(opt.global_step.asnumpy()[0]) == 5
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5)
    _same_params(*nets)
    from mindlite.jit import cell_graph
    compiled = cell_graph._CELL_JIT[step]
    graph = next(iter(compiled.cache.values())).graph
    effects = [n for n in graph.order if n.side_effect]
    assert len(effects) >= len(net.trainable_params()) + 1       # updates + global step


@pytest.mark.parametrize("name", sorted(EAGER_OPTIMIZERS))
def test_an_optimizer_that_cannot_compile_runs_the_step_eagerly_with_a_warning(name):
    x, y = _data()
    nets = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        net = _net()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, _loss()),
                                   EAGER_OPTIMIZERS[name](net.trainable_params()))
        ms.set_context(mode=mode)
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                for _ in range(3):
                    step(x, y)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        fell_back = [w for w in seen if "could not compile TrainOneStepCell" in str(w.message)]
        assert len(fell_back) == (mode == ms.GRAPH_MODE)
        nets.append(net)
    _same_params(*nets)


def test_user_jit_step_with_value_and_grad_then_optimizer():
    x, y = _data()
    nets = []
    for compiled in (False, True):
        net = _net()
        loss_fn = _loss()
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)

        def forward(x, y):
            logits = net(x)
            return loss_fn(logits, y), logits

        grad_fn = ms.value_and_grad(forward, None, opt.parameters, has_aux=True)

        def train_step(x, y):
            (loss, _), grads = grad_fn(x, y)
            opt(grads)
            return loss

        step = ms.jit(train_step) if compiled else train_step
        for _ in range(4):
            step(x, y)
        nets.append(net)
    _same_params(*nets)
    assert len(step.cache) == 1


def test_model_train_in_graph_mode_compiles_the_step_and_equals_eager():
    rng = np.random.default_rng(1)
    data = (rng.standard_normal((32, 6)).astype(np.float32),
            rng.integers(0, 3, 32).astype(np.int32))
    nets = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        net = _net()
        model = ms.train.Model(net, _loss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        ds = NumpySlicesDataset(data, column_names=["x", "y"], shuffle=False).batch(8)
        ms.set_context(mode=mode)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                model.train(2, ds)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        nets.append(net)
        state = model._train_step.graph_state
        assert ("jit" in state) == (mode == ms.GRAPH_MODE) and not state.get("eager")
    _same_params(*nets)


def test_a_weight_whose_gradient_is_never_needed_is_never_computed():
    net = _net()
    first = net[0].weight

    def loss(x):
        return ops.sum(net(x))

    g = ms.grad(ms.jit(loss), None, [net[1].weight])
    x, _ = _data()
    g(x)
    graph = g._ml_joint.graph(g, x)
    assert first.name.replace(".", "_") in [p.name for p in graph.parameters]
    names = [type(n.inputs[0].value).__name__ for n in graph.order
             if hasattr(n.inputs[0], "value")]
    # layer 1's forward and dW2 = h^T dout: no dW1, no dx of layer 2, and layer 2's forward
    # output is dead (the loss is a sum: its dout is all ones)
    assert sum("MatMul" in n for n in names) == 2


@pytest.mark.parametrize("name", ["MLP", "CNN"])
def test_train_digits_graph_mode_trains_the_same_nets(name):
    """examples/train_digits.py --mode graph: its MLP and CNN steps (SGD momentum, cosine
    learning-rate list) compiled by @jit give eager's parameters."""
    import importlib.util
    import os
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "examples", "train_digits.py")
    spec = importlib.util.spec_from_file_location("train_digits_graph", script)
    td = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(td)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((96, 64)).astype(np.float32)
    y = rng.integers(0, 10, 96).astype(np.int32)
    shape = td.NETS[name][1]
    nets = []
    for graph in (False, True):
        model = td.create_net(name, 0)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        lr = td.cosine_decay_lr(0.0, 0.05, 6, 3, 2)
        opt = nn.SGD(model.trainable_params(), learning_rate=lr, momentum=0.9)
        step = td.make_train_step(model, loss_fn, opt, graph)
        ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                for _ in range(2):
                    td.train_epoch(step, model, td.create_dataset(x, y, shape, 32,
                                                                  shuffle=False))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        nets.append(model)
    assert len(step.cache) == 1
    _same_params(*nets)
