"""Write the MindSpore-made MINDIR fixtures of tests/test_mindir_compat.py (run with MindSpore).

    cd /tmp && /opt/msvenv/bin/python /work/main/tests/data/make_mindir_fixtures.py \
        /work/main/tests/data

MindSpore 2.10 (CPU, GRAPH_MODE) exports small models with mindspore.export:
ms_mlp.mindir (Dense-ReLU-Dense), ms_lenet.mindir (a LeNet-5 shaped CNN on 16x16 inputs:
Conv2D, ReLU, MaxPool, Flatten, MatMul, BiasAdd, so every file stays under 100 KB),
ms_switch.mindir (an `if` on a tensor: Switch over two Partial branch graphs),
ms_loop.mindir (a `while` on a tensor using a weight), ms_ops.mindir (BatchNorm,
AvgPool, Transpose, LayerNorm, GeLU, Concat, Softmax, SumExt, ReduceMean, Muls; four
outputs) and ms_attn.mindir (an attention block on int token ids: Embedding, BatchMatMul,
Divs, Softmax, LayerNorm, ReLU6, reductions), and stores
each model's input(s) and MindSpore's output in ms_<name>.npz, so the tests check loading
and running without MindSpore.
"""
import os
import sys

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, 4)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16, 32)
        self.fc2 = nn.Dense(32, 16)
        self.fc3 = nn.Dense(16, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class Branch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sum = ops.ReduceSum()

    def construct(self, x, y):
        if self.sum(x) > 0:
            z = x * y
        else:
            z = x - y
        return z


class Loop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([0.5, 2.0], np.float32)), name="w")

    def construct(self, x, n):
        i = Tensor(0, ms.int32)
        while i < n:
            x = x * self.w + 1
            i = i + 1
        return x


class Ops(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.avg = nn.AvgPool2d(2, 2)
        self.ln = nn.LayerNorm((4,))
        self.gelu = nn.GELU()
        self.softmax = nn.Softmax(-1)

    def construct(self, x):
        x = self.avg(self.bn(self.conv(x)))
        x = self.gelu(self.ln(ops.transpose(x, (0, 2, 3, 1))))
        y = ops.concat((x, x * 2), -1)
        return self.softmax(y), y.sum(), y.mean(axis=1), ops.tanh(y) + ops.sigmoid(y)


class Attention(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.q = nn.Dense(8, 8)
        self.k = nn.Dense(8, 8)
        self.v = nn.Dense(8, 8)
        self.ln = nn.LayerNorm((8,))
        self.act = nn.ReLU6()
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.mix = ops.BatchMatMul()

    def construct(self, ids):
        x = self.emb(ids)
        b, s, d = x.shape
        h = x.reshape(b * s, d)
        q = self.q(h).reshape(b, s, d)
        k = self.k(h).reshape(b, s, d)
        v = self.v(h).reshape(b, s, d)
        out = self.mix(ops.softmax(self.scores(q, k) / 8 ** 0.5, -1), v)
        return self.act(self.ln(out + x)), ops.sigmoid(out).max(axis=-1), ops.exp(out).min()


def main(out_dir):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    rng = np.random.default_rng(0)
    os.chdir(out_dir)
    cases = {
        "mlp": (MLP(), [rng.standard_normal((2, 8)).astype(np.float32)]),
        "lenet": (LeNet(), [rng.standard_normal((2, 1, 16, 16)).astype(np.float32)]),
        "switch": (Branch(), [rng.standard_normal(3).astype(np.float32),
                              rng.standard_normal(3).astype(np.float32)]),
        "loop": (Loop(), [np.array([1.0, 2.0], np.float32), np.array(3, np.int32)]),
        "ops": (Ops(), [rng.standard_normal((2, 3, 8, 8)).astype(np.float32)]),
        "attn": (Attention(), [np.array([[1, 2, 3, 4], [5, 6, 7, 19]], np.int32)]),
    }
    cases["ops"][0].set_train(False)
    cases["attn"][0].set_train(False)
    for name, (net, inputs) in cases.items():
        tensors = [Tensor(x) for x in inputs]
        ms.export(net, *tensors, file_name=f"ms_{name}", file_format="MINDIR")
        arrays = {f"input{i}": x for i, x in enumerate(inputs)}
        out = net(*tensors)
        for i, o in enumerate(out if isinstance(out, tuple) else [out]):
            arrays["output" if i == 0 else f"output{i}"] = o.asnumpy()
        if name == "switch":
            neg = [-inputs[0], inputs[1]]
            arrays["neg_input0"] = neg[0]
            arrays["neg_output"] = net(*[Tensor(x) for x in neg]).asnumpy()
        np.savez(f"ms_{name}.npz", **arrays)
        os.chmod(f"ms_{name}.mindir", 0o644)
        print(name, os.path.getsize(f"ms_{name}.mindir"), "bytes")


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "."))
