"""Graph autodiff replays a tensor `if`'s branch and a `while`'s body in the backward
(jit/ad/recompute.py): a print there is not printed again, and a write in place there (or a
read of a Parameter the function writes) is refused with ADUnsupportedError, so that a
gradient under jit is never computed from a replay that differs from the forward (found by
the long fuzz run: `jit(value_and_grad(net))` printed twice, ran an AssignAdd twice and
read the written Parameter; MindSpore 2.10 prints once, writes once, gives eager's
gradient). Under GRAPH_MODE, value_and_grad of such a Cell runs on the eager tape with a
warning and gives eager's values."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops
from mindlite.jit import UnsupportedSyntaxError


class PrintInBranch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.zeros(2, np.float32)), name="w")

    def construct(self, x):
        if self.w.sum() > 0.5:
            return x + 1
        print("branch")
        return x * self.w


class PrintInLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.full(2, 0.5, np.float32)), name="w")

    def construct(self, x):
        i = Tensor(0, ms.int32)
        while i < 3:
            print("iteration")
            x = x * self.w
            i = i + 1
        return x.sum()


class WriteInBranch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.zeros(2, np.float32)), name="w")
        self.c = Parameter(Tensor(np.ones(1, np.float32)), name="c", requires_grad=False)

    def construct(self, x):
        y = x
        if self.w.sum() < 0.5:
            ops.assign_add(self.c, Tensor([1.0], ms.float32))
            y = x * self.w * self.c
        return y.sum()


class WriteAfterBranch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.zeros(2, np.float32)), name="w")
        self.c = Parameter(Tensor(np.ones(1, np.float32)), name="c", requires_grad=False)

    def construct(self, x):
        y = x
        if self.w.sum() < 0.5:
            y = x * self.w * self.c
        ops.assign_add(self.c, Tensor([1.0], ms.float32))
        return y.sum()


def _x():
    return Tensor(np.ones((3, 2), np.float32))


@pytest.mark.parametrize("cls, text", [(PrintInBranch, "branch\n"),
                                       (PrintInLoop, "iteration\n" * 3)])
def test_a_replayed_print_prints_once(cls, text, capsys):
    eager_net, graph_net = cls(), cls()
    want = ms.value_and_grad(eager_net, 0, eager_net.trainable_params())(_x())
    assert capsys.readouterr().out == text
    got = ms.jit(ms.value_and_grad(graph_net, 0, graph_net.trainable_params()))(_x())
    assert capsys.readouterr().out == text
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-6)
    for g, w in zip(got[1][1], want[1][1]):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("cls, match", [(WriteInBranch, "side effect .'AssignAdd'"),
                                        (WriteAfterBranch, "reads the Parameter 'c'")])
def test_a_replay_that_would_differ_is_refused(cls, match):
    net = cls()
    with pytest.raises(UnsupportedSyntaxError, match=match):
        ms.jit(ms.value_and_grad(net, 0, net.trainable_params()))(_x())
    np.testing.assert_array_equal(net.c.asnumpy(), [1.0])     # nothing ran


@pytest.mark.parametrize("cls", [WriteInBranch])
def test_graph_mode_gradient_falls_back_to_eager_values(cls):
    eager_net, graph_net = cls(), cls()
    want = ms.value_and_grad(eager_net, 0, eager_net.trainable_params())(_x())
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.warns(UserWarning, match="eager tape"):
            got = ms.value_and_grad(graph_net, 0, graph_net.trainable_params())(_x())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got[1][1][0].asnumpy(), want[1][1][0].asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(graph_net.c.asnumpy(), eager_net.c.asnumpy())
