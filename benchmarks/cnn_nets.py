"""ResNet18 and MobileNetV2 (torchvision's architectures) written twice: in mindlite (MindSpore's
nn API) and in plain PyTorch, with the same parameter names up to MindSpore's BatchNorm names,
so one set of weights drives both. Used by benchmarks/real_models.py.

    mindlite_net(name, num_classes=1000) -> nn.Cell
    torch_net(name, num_classes=1000) -> torch.nn.Module      (imports torch: child processes)
    to_torch_name(mindlite_name) -> the PyTorch state_dict key

torchvision itself is not installable beside torch 2.13 here, so the nets are spelled out:
ResNet18 = 7x7/2 stem conv + BN + ReLU, 3x3/2 max pool (padding 1), four stages of two
BasicBlocks (64, 128, 256, 512 channels; 1x1/2 conv + BN shortcut where the shape changes),
global average pool, Dense. MobileNetV2 (width 1.0) = 3x3/2 conv-BN-ReLU6, 17 inverted
residual blocks (1x1 expand, 3x3 depthwise, 1x1 project, each with BN; ReLU6 after the first
two), 1x1 conv to 1280, global average pool, Dense. MobileNetV2's classifier Dropout(0.2) is
left out, so the train steps of the two libraries compute the same values.
"""
import numpy as np

import mindlite as ms
from mindlite import nn, ops

_BN_NAMES = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean",
             "moving_variance": "running_var"}

MOBILENET_V2 = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1))           # (expand t, channels c, repeats n, s)


def to_torch_name(name):
    head, _, leaf = name.rpartition(".")
    return f"{head}.{_BN_NAMES.get(leaf, leaf)}"


# ---- mindlite ----------------------------------------------------------------------------------
def _ms_conv(cin, cout, k, stride=1, group=1):
    return nn.Conv2d(cin, cout, k, stride=stride, pad_mode="pad", padding=(k - 1) // 2,
                     group=group, has_bias=False)


def _ms_conv_bn(cin, cout, k, stride=1, group=1, act=None):
    layers = [_ms_conv(cin, cout, k, stride, group), nn.BatchNorm2d(cout)]
    if act is not None:
        layers.append(act())
    return nn.SequentialCell(layers)


class MsBasicBlock(nn.Cell):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = _ms_conv(cin, cout, 3, stride), nn.BatchNorm2d(cout)
        self.conv2, self.bn2 = _ms_conv(cout, cout, 3), nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.down = stride != 1 or cin != cout
        if self.down:
            self.downsample = _ms_conv_bn(cin, cout, 1, stride)

    def construct(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = self.downsample(x) if self.down else x
        return self.relu(out + identity)


class MsResNet18(nn.Cell):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv1, self.bn1, self.relu = _ms_conv(3, 64, 7, 2), nn.BatchNorm2d(64), nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)
        cin, stages = 64, []
        for i, c in enumerate((64, 128, 256, 512)):
            stages.append(nn.SequentialCell([MsBasicBlock(cin, c, 1 if i == 0 else 2),
                                             MsBasicBlock(c, c, 1)]))
            cin = c
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.mean = ops.ReduceMean(keep_dims=False)
        self.fc = nn.Dense(512, num_classes)

    def construct(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.mean(x, (2, 3)))


class MsInvertedResidual(nn.Cell):
    def __init__(self, cin, cout, stride, t):
        super().__init__()
        hidden = cin * t
        layers = [] if t == 1 else [_ms_conv_bn(cin, hidden, 1, act=nn.ReLU6)]
        layers += [_ms_conv_bn(hidden, hidden, 3, stride, hidden, act=nn.ReLU6),
                   _ms_conv(hidden, cout, 1), nn.BatchNorm2d(cout)]
        self.conv = nn.SequentialCell(layers)
        self.residual = stride == 1 and cin == cout

    def construct(self, x):
        return x + self.conv(x) if self.residual else self.conv(x)


class MsMobileNetV2(nn.Cell):
    def __init__(self, num_classes=1000):
        super().__init__()
        layers, cin = [_ms_conv_bn(3, 32, 3, 2, act=nn.ReLU6)], 32
        for t, c, n, s in MOBILENET_V2:
            for i in range(n):
                layers.append(MsInvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(_ms_conv_bn(cin, 1280, 1, act=nn.ReLU6))
        self.features = nn.SequentialCell(layers)
        self.mean = ops.ReduceMean(keep_dims=False)
        self.classifier = nn.Dense(1280, num_classes)

    def construct(self, x):
        return self.classifier(self.mean(self.features(x), (2, 3)))


def mindlite_net(name, num_classes=1000):
    return {"resnet18": MsResNet18, "mobilenet_v2": MsMobileNetV2}[name](num_classes)


def weights(net):
    """{mindlite parameter name: float32 array copy} of every parameter (BN statistics too)."""
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def load_weights(net, arrays):
    for p in net.get_parameters():
        p.set_data(ms.Tensor(np.ascontiguousarray(arrays[p.name])))


# ---- PyTorch -----------------------------------------------------------------------------------
def torch_net(name, num_classes=1000):
    import torch
    tnn = torch.nn

    def conv(cin, cout, k, stride=1, group=1):
        return tnn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=group, bias=False)

    def conv_bn(cin, cout, k, stride=1, group=1, act=None):
        layers = [conv(cin, cout, k, stride, group), tnn.BatchNorm2d(cout)]
        return tnn.Sequential(*layers, act()) if act else tnn.Sequential(*layers)

    class BasicBlock(tnn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1, self.bn1 = conv(cin, cout, 3, stride), tnn.BatchNorm2d(cout)
            self.conv2, self.bn2 = conv(cout, cout, 3), tnn.BatchNorm2d(cout)
            self.relu = tnn.ReLU()
            self.down = stride != 1 or cin != cout
            if self.down:
                self.downsample = conv_bn(cin, cout, 1, stride)

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + (self.downsample(x) if self.down else x))

    class ResNet18(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.bn1, self.relu = conv(3, 64, 7, 2), tnn.BatchNorm2d(64), tnn.ReLU()
            self.maxpool = tnn.MaxPool2d(3, 2, 1)
            cin = 64
            for i, c in enumerate((64, 128, 256, 512)):
                setattr(self, f"layer{i + 1}", tnn.Sequential(
                    BasicBlock(cin, c, 1 if i == 0 else 2), BasicBlock(c, c, 1)))
                cin = c
            self.fc = tnn.Linear(512, num_classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(x.mean((2, 3)))

    class InvertedResidual(tnn.Module):
        def __init__(self, cin, cout, stride, t):
            super().__init__()
            hidden = cin * t
            layers = [] if t == 1 else [conv_bn(cin, hidden, 1, act=tnn.ReLU6)]
            layers += [conv_bn(hidden, hidden, 3, stride, hidden, act=tnn.ReLU6),
                       conv(hidden, cout, 1), tnn.BatchNorm2d(cout)]
            self.conv = tnn.Sequential(*layers)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            return x + self.conv(x) if self.residual else self.conv(x)

    class MobileNetV2(tnn.Module):
        def __init__(self):
            super().__init__()
            layers, cin = [conv_bn(3, 32, 3, 2, act=tnn.ReLU6)], 32
            for t, c, n, s in MOBILENET_V2:
                for i in range(n):
                    layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                    cin = c
            layers.append(conv_bn(cin, 1280, 1, act=tnn.ReLU6))
            self.features = tnn.Sequential(*layers)
            self.classifier = tnn.Linear(1280, num_classes)

        def forward(self, x):
            return self.classifier(self.features(x).mean((2, 3)))

    return {"resnet18": ResNet18, "mobilenet_v2": MobileNetV2}[name]()


def load_torch_weights(net, arrays):
    """Copies mindlite-named arrays into the PyTorch twin; every tensor must be matched."""
    import torch
    state = net.state_dict()
    want = {k for k in state if not k.endswith("num_batches_tracked")}
    got = {to_torch_name(k): v for k, v in arrays.items()}
    if set(got) != want:
        raise ValueError(f"weights do not match: only mindlite {sorted(set(got) - want)[:5]}, "
                         f"only torch {sorted(want - set(got))[:5]}")
    with torch.no_grad():
        for k, v in got.items():
            state[k].copy_(torch.from_numpy(np.ascontiguousarray(v)))
