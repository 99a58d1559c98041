"""nn.Cell mechanics: registration, names, traversal, set_train, repr, custom bprop."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops


class Affine(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.weight = Parameter(np.ones((n,), np.float64))
        self.bias = Parameter(np.zeros((n,), np.float64), requires_grad=False)

    def construct(self, x):
        return x * self.weight + self.bias

    def extend_repr(self):
        return f"n={self.weight.shape[0]}"


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.seq = nn.SequentialCell([Affine(2), Affine(2)])
        self.head = Affine(2)

    def construct(self, x):
        return self.head(self.seq(x))


def test_parameter_names_follow_paths():
    net = Net()
    names = list(net.parameters_dict())
    assert names == ["seq.0.weight", "seq.0.bias", "seq.1.weight", "seq.1.bias", "head.weight",
                     "head.bias"]
    assert net.seq[0].weight.name == "seq.0.weight"
    assert [p.name for p in net.trainable_params()] == ["seq.0.weight", "seq.1.weight",
                                                        "head.weight"]
    assert [n for n, _ in net.cells_and_names()] == ["", "seq", "seq.0", "seq.1", "head"]


def test_set_train_recursive_and_training_default():
    net = Net()
    assert net.training is False
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    net.set_train(False)
    assert not net.seq[1].training


def test_repr():
    net = nn.SequentialCell([Affine(2), Affine(3)])
    assert repr(net) == "SequentialCell(\n  (0): Affine(n=2)\n  (1): Affine(n=3)\n)"


def test_call_and_shared_parameters_counted_once():
    a = Affine(2)
    seq = nn.SequentialCell([a, a])
    assert len(list(seq.get_parameters())) == 2
    out = seq(Tensor(np.array([1.0, 2.0])))
    assert np.allclose(out.asnumpy(), [1.0, 2.0])


def test_cell_list_and_errors():
    cl = nn.CellList([Affine(1)])
    cl.append(Affine(1))
    assert len(cl) == 2 and isinstance(cl[1], Affine)
    with pytest.raises(TypeError, match="CellList"):
        cl.append(3)
    with pytest.raises(TypeError, match="SequentialCell"):
        nn.SequentialCell([3])

    class Bad(nn.Cell):
        def __init__(self):
            self.w = Parameter(np.ones(2, np.float32))
    with pytest.raises(AttributeError, match="super"):
        Bad()


def test_plain_attribute_before_init_and_init_parameters_data():
    # MindSpore 2.10 accepts a plain attribute before super().__init__() (mindcv's SKNet sets
    # one), refuses a Parameter or Cell there; init_parameters_data maps each to its own
    class Early(nn.Cell):
        def __init__(self):
            self.k = 3
            super().__init__()
            self.w = Parameter(ms.common.initializer.initializer("ones", (2,), ms.float32))

    net = Early()
    assert net.k == 3 and "k" not in dict(net.parameters_and_names())
    pairs = net.init_parameters_data()
    assert [(a.name, a is b) for a, b in pairs.items()] == [("w", True)]
    np.testing.assert_array_equal(net.w.asnumpy(), [1.0, 1.0])


def test_custom_bprop_replaces_differentiation():
    class Scaled(nn.Cell):
        def construct(self, x):
            return x * 3

        def bprop(self, x, out, dout):
            return (dout * 100,)
    g = ms.grad(lambda x: Scaled()(x).sum())(Tensor(np.array([1.0, 2.0])))
    assert np.allclose(g.asnumpy(), [100.0, 100.0])


def test_grad_through_cell_weights():
    net = Affine(2)
    x = Tensor(np.array([3.0, 4.0]))
    (gw, gb) = ms.grad(lambda x: net(x).sum(), None, [net.weight, net.bias])(x)
    assert np.allclose(gw.asnumpy(), [3.0, 4.0]) and np.allclose(gb.asnumpy(), [0.0, 0.0])
    f = ms.value_and_grad(lambda x: ops.relu(net(x)).sum(), None, net.trainable_params())
    loss, (gw,) = f(x)
    assert float(loss) == pytest.approx(7.0)


def test_list_containers_name_appended_parameters_as_mindspore():
    # MindSpore 2.10's names (recorded there): a CellList assigned while empty gives its
    # appended elements no parent prefix, and later elements take a prefix read off the
    # first element's parameter names (mindcv's RegNet checkpoints carry such names)
    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList()
            for _ in range(2):
                self.blocks.append(nn.SequentialCell([nn.Dense(2, 2), nn.Dense(2, 2)]))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.stages = nn.CellList()
            for _ in range(3):
                self.stages.append(Block())
            self.seq = nn.SequentialCell(nn.Dense(2, 2))
            self.seq.append(nn.Dense(2, 2))
            self.lst = nn.CellList([Block(), Block()])
            self.lst.extend([nn.Dense(2, 2)])

    names = [p.name for p in Net().get_parameters() if p.name.endswith("weight")]
    assert names == [
        "0.blocks.0.0.weight", "0.blocks.0.1.weight", "0.blocks.1.0.weight",
        "0.blocks.1.1.weight", "0.blocks.0.1.blocks.0.0.weight",
        "0.blocks.0.1.blocks.0.1.weight", "0.blocks.0.1.blocks.1.0.weight",
        "0.blocks.0.1.blocks.1.1.weight", "0.blocks.0.2.blocks.0.0.weight",
        "0.blocks.0.2.blocks.0.1.weight", "0.blocks.0.2.blocks.1.0.weight",
        "0.blocks.0.2.blocks.1.1.weight", "seq.0.weight", "seq.1.weight",
        "lst.0.blocks.0.0.weight", "lst.0.blocks.0.1.weight", "lst.0.blocks.1.0.weight",
        "lst.0.blocks.1.1.weight", "lst.1.blocks.0.0.weight", "lst.1.blocks.0.1.weight",
        "lst.1.blocks.1.0.weight", "lst.1.blocks.1.1.weight", "lst.2.weight"]
