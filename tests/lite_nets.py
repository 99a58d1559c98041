"""The real models the Lite tests convert both ways (tests/test_lite_models.py with mindlite
alone, tests/test_lite_real.py with real MindSpore Lite too):

    PyTorch, exported to ONNX (torch_nets; torchvision's architectures written in plain torch,
    torchvision not being installable beside this torch): LeNet, ResNet18, MobileNetV2, a
    transformer encoder block, an op zoo
    mindlite, exported to MINDIR (ms_nets): a ResNet-style net with a padded max pool, a
    MobileNetV2-style net (depthwise convolutions, ReLU6), a small transformer encoder
    (LayerNorm, GELU, attention with BatchMatMul and Softmax)

`onnx_file(net, x, path)` exports as MindSpore Lite's ONNX parser reads it (opset 11, no
MaxPool `dilations`); `randomize(net)` gives BatchNorm layers running statistics that matter.
"""
import numpy as np

import mindlite as ms
from mindlite import nn, ops


# ---- mindlite nets (MINDIR) -------------------------------------------------------------------
def _conv_bn(cin, cout, k, stride=1, group=1, act="relu"):
    layers = [nn.Conv2d(cin, cout, k, stride, pad_mode="pad", padding=(k - 1) // 2,
                        group=group, has_bias=False), nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU() if act == "relu" else nn.ReLU6())
    return nn.SequentialCell(layers)


class MsBasicBlock(nn.Cell):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.a = _conv_bn(cin, cout, 3, stride)
        self.b = _conv_bn(cout, cout, 3, act=None)
        self.down = _conv_bn(cin, cout, 1, stride, act=None) if stride != 1 or cin != cout \
            else None

    def construct(self, x):
        skip = x if self.down is None else self.down(x)
        return ops.relu(self.b(self.a(x)) + skip)


class MsResNet(nn.Cell):
    """ResNet-style: 7x7/2 stem, a 3x3/2 max pool padded by 1, two basic blocks, global
    average pool, Dense."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = _conv_bn(3, 16, 7, 2)
        self.pool = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)
        self.blocks = nn.SequentialCell([MsBasicBlock(16, 16, 1), MsBasicBlock(16, 32, 2)])
        self.fc = nn.Dense(32, classes)

    def construct(self, x):
        x = self.blocks(self.pool(self.stem(x)))
        return self.fc(ops.mean(x, (2, 3)))


class MsInverted(nn.Cell):
    def __init__(self, cin, cout, stride, t):
        super().__init__()
        h = cin * t
        self.conv = nn.SequentialCell([_conv_bn(cin, h, 1, act="relu6"),
                                       _conv_bn(h, h, 3, stride, group=h, act="relu6"),
                                       _conv_bn(h, cout, 1, act=None)])
        self.res = stride == 1 and cin == cout

    def construct(self, x):
        return x + self.conv(x) if self.res else self.conv(x)


class MsMobileNet(nn.Cell):
    """MobileNetV2-style: inverted residual blocks (1x1, depthwise 3x3, 1x1), ReLU6."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = _conv_bn(3, 16, 3, 2, act="relu6")
        self.blocks = nn.SequentialCell([MsInverted(16, 16, 1, 2), MsInverted(16, 24, 2, 4),
                                         MsInverted(24, 24, 1, 4)])
        self.head = _conv_bn(24, 64, 1, act="relu6")
        self.fc = nn.Dense(64, classes)

    def construct(self, x):
        x = self.head(self.blocks(self.stem(x)))
        return self.fc(x.mean((2, 3)))


class MsEncoder(nn.Cell):
    """A transformer encoder block: LayerNorm, multi-head attention (BatchMatMul, Softmax),
    GELU feed-forward (the tanh form and the erf form), residuals."""

    def __init__(self, d=32, heads=4, ff=64):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Dense(d, 3 * d)
        self.out = nn.Dense(d, d)
        self.ln1 = nn.LayerNorm((d,), epsilon=1e-5)
        self.ln2 = nn.LayerNorm((d,), epsilon=1e-5)
        self.ff1 = nn.Dense(d, ff)
        self.ff2 = nn.Dense(ff, d)
        self.gelu = nn.GELU()
        self.gelu_erf = nn.GELU(approximate=False)

    def construct(self, x):
        b, t, d = x.shape
        h = self.heads
        qkv = self.qkv(self.ln1(x).reshape(b * t, d)).reshape(b, t, 3, h, d // h)
        q = qkv[:, :, 0].transpose(0, 2, 1, 3)
        k = qkv[:, :, 1].transpose(0, 2, 1, 3)
        v = qkv[:, :, 2].transpose(0, 2, 1, 3)
        a = ops.softmax(ops.matmul(q, k.transpose(0, 1, 3, 2)) / (d // h) ** 0.5, -1)
        y = ops.matmul(a, v).transpose(0, 2, 1, 3).reshape(b * t, d)
        x = x + self.out(y).reshape(b, t, d)
        f = self.ff2(self.gelu(self.ff1(self.ln2(x).reshape(b * t, d))))
        return x + self.gelu_erf(f).reshape(b, t, d)


def randomize(net, seed=0):
    """BatchNorm running statistics and affine parameters away from 0/1, so they matter."""
    rng = np.random.default_rng(seed)
    for _, cell in net.cells_and_names():
        if isinstance(cell, nn.BatchNorm2d):
            n = cell.moving_mean.shape[0]
            cell.moving_mean.set_data(ms.Tensor(rng.uniform(-0.1, 0.1, n).astype(np.float32)))
            cell.moving_variance.set_data(ms.Tensor(rng.uniform(0.75, 1.25, n).astype(
                np.float32)))
            cell.gamma.set_data(ms.Tensor(rng.uniform(0.75, 1.25, n).astype(np.float32)))
            cell.beta.set_data(ms.Tensor(rng.uniform(-0.1, 0.1, n).astype(np.float32)))
    net.set_train(False)
    return net


def ms_nets():
    """{name: (net, input array)} of the mindlite nets, inference mode."""
    rng = np.random.default_rng(1)

    def rand(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    return {"ms_resnet": (randomize(MsResNet()), rand(2, 3, 32, 32)),
            "ms_mobilenet": (randomize(MsMobileNet()), rand(1, 3, 32, 32)),
            "ms_encoder": (randomize(MsEncoder()), rand(2, 5, 32))}


# ---- PyTorch nets (ONNX) ----------------------------------------------------------------------
def torch_nets(size=224):
    """{name: (torch net, input array)}: LeNet, ResNet18 and MobileNetV2 on size x size
    images, a transformer encoder block, an op zoo. Imports torch (the caller skips
    without it)."""
    from torch_nets import Encoder, LeNet, MobileNetV2, ResNet18, Zoo, randomize_bn
    rng = np.random.default_rng(0)

    def rand(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    return {"lenet": (LeNet().eval(), rand(1, 1, 32, 32)),
            "resnet18": (randomize_bn(ResNet18()).eval(), rand(1, 3, size, size)),
            "mobilenetv2": (randomize_bn(MobileNetV2()).eval(), rand(1, 3, size, size)),
            "encoder": (Encoder().eval(), rand(2, 5, 32)),
            "zoo": (Zoo().eval(), rand(1, 4, 8, 8))}


def onnx_file(net, x, path, opset=11):
    """Export a torch net to ONNX as MindSpore Lite's parser takes it (its MaxPool refuses a
    `dilations` attribute even when all 1s); returns torch's outputs."""
    import io
    import warnings

    import onnx
    import torch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = io.BytesIO()
        torch.onnx.export(net, (torch.from_numpy(x),), f, opset_version=opset, dynamo=False,
                          input_names=["x"])
    m = onnx.load_from_string(f.getvalue())
    for node in m.graph.node:
        if node.op_type == "MaxPool":
            for a in [a for a in node.attribute if a.name == "dilations"]:
                node.attribute.remove(a)
    onnx.save(m, path)
    with torch.no_grad():
        y = net(torch.from_numpy(x))
    return [t.numpy() for t in (y if isinstance(y, tuple) else (y,))]
