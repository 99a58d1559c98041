"""A ParameterTuple assigned to a Cell attribute registers its Parameters as MindSpore 2.10
does (mindcv's CrossViT keeps `pos_embed` / `cls_token` so: its checkpoint names them
`pos_embed.0`, `cls_token.1`): under their own names, prefixed by the path of the cell holding
them; unnamed ones as `Parameter$1`, `Parameter$2`; a name twice in one tuple is refused. The
expected names were printed by MindSpore 2.10 for the same cells."""
import numpy as np
import pytest

from mindlite import Parameter, ParameterTuple, Tensor, nn


def _p(name=None):
    return Parameter(Tensor(np.zeros(2, np.float32)), name=name)


class _Tokens(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pos_embed = ParameterTuple([_p(f"pos_embed.{i}") for i in range(2)])
        self.dense = nn.Dense(2, 2)

    def construct(self, x):
        return self.dense(x + self.pos_embed[0] + self.pos_embed[1])


class _Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = _Tokens()


def test_tuple_parameters_registered_under_their_names():
    net = _Tokens()
    assert [k for k, _ in net.parameters_and_names()] == [
        "pos_embed.0", "pos_embed.1", "dense.weight", "dense.bias"]
    assert len(net.trainable_params()) == 4 and list(net.get_parameters())[1] is net.pos_embed[1]
    outer = _Outer()
    assert [p.name for p in outer.get_parameters()] == [
        "body.pos_embed.0", "body.pos_embed.1", "body.dense.weight", "body.dense.bias"]
    # their gradients flow like any parameter's
    from mindlite import ops
    grads = ops.GradOperation(get_by_list=True)(net, ParameterTuple(net.trainable_params()))(
        Tensor(np.ones((1, 2), np.float32)))
    assert len(grads) == 4 and float(np.abs(grads[0].asnumpy()).sum()) > 0


def test_unnamed_shared_and_duplicate_names():
    class W(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = nn.Dense(2, 2)
            self.weights = ParameterTuple(self.net.trainable_params())   # already held
            self.extra = ParameterTuple([_p(), _p()])

    w = W()
    assert [k for k, _ in w.parameters_and_names()] == [
        "net.weight", "net.bias", "Parameter$1", "Parameter$2"]

    class D(nn.Cell):
        def __init__(self):
            super().__init__()
            self.t = ParameterTuple([_p("a"), _p("a")])

    with pytest.raises(ValueError, match="two Parameters named 'a'"):
        D()


def test_optimizer_and_train_step_names_as_mindspore():
    net = nn.Dense(2, 3)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    names = [k for k, _ in step.parameters_and_names()]
    assert names[:2] == ["weight", "bias"]
    assert sorted(names[2:]) == sorted([
        "optimizer.global_step", "optimizer.learning_rate", "optimizer.momentum",
        "optimizer.moments.weight", "optimizer.moments.bias"])
    assert {k for k, _ in opt.parameters_and_names()} >= {"weight", "bias", "moments.weight"}
