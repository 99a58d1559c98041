"""PyTorch nets for the Lite interop tests (tests/lite_nets.py): torchvision's ResNet18 and
MobileNetV2 written in plain torch (torchvision is not installable beside this torch), LeNet,
a transformer encoder block, and an op zoo (hardswish, depthwise and grouped convolutions, an
average pool that leaves its padding out, reflect padding, ConvTranspose, nearest resize,
split, expand, concat, strided slices, leaky ReLU, reductions). Imports torch."""
import torch
from torch import nn
from torch.nn import functional as F


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c1, self.c2 = nn.Conv2d(1, 6, 5), nn.Conv2d(6, 16, 5)
        self.f1, self.f2, self.f3 = nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.c1(x)), 2)
        x = F.max_pool2d(torch.relu(self.c2(x)), 2).flatten(1)
        return self.f3(torch.relu(self.f2(torch.relu(self.f1(x)))))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
        self.c2, self.b2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.b2(self.c2(torch.relu(self.b1(self.c1(x)))))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        torch.manual_seed(0)
        self.conv1, self.bn1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(3, 2, 1)
        layers, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(self.pool(torch.relu(self.bn1(self.conv1(x)))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def _cbr(cin, cout, k, stride, groups=1):
    return [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU6()]


class Inverted(nn.Module):
    def __init__(self, cin, cout, stride, t):
        super().__init__()
        h = cin * t
        layers = [] if t == 1 else _cbr(cin, h, 1, 1)
        layers += _cbr(h, h, 3, stride, h) + [nn.Conv2d(h, cout, 1, bias=False),
                                              nn.BatchNorm2d(cout)]
        self.conv, self.res = nn.Sequential(*layers), stride == 1 and cin == cout

    def forward(self, x):
        return x + self.conv(x) if self.res else self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        torch.manual_seed(0)
        cfg = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
               (6, 160, 3, 2), (6, 320, 1, 1)]
        layers, cin = _cbr(3, 32, 3, 2), 32
        for t, c, n, s in cfg:
            for i in range(n):
                layers.append(Inverted(cin, c, s if i == 0 else 1, t))
                cin = c
        self.features = nn.Sequential(*layers, *_cbr(cin, 1280, 1, 1))
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, classes))

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


class Encoder(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        torch.manual_seed(0)
        self.h, self.qkv, self.o = heads, nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 64), nn.Linear(64, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.h
        q, k, v = (z.reshape(b, t, h, d // h).transpose(1, 2)
                   for z in self.qkv(self.ln1(x)).chunk(3, -1))
        a = torch.softmax(q @ k.transpose(-1, -2) / (d // h) ** 0.5, -1)
        x = x + self.o((a @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.ff2(F.gelu(self.ff1(self.ln2(x))))


class Zoo(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c = nn.Conv2d(4, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.g = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.ct = nn.ConvTranspose2d(8, 4, 2, stride=2)

    def forward(self, x):
        y = F.hardswish(self.c(x))
        y = F.hardsigmoid(self.dw(y)) * y
        y = torch.sigmoid(self.g(y)) + torch.tanh(y)
        y = F.avg_pool2d(y, 3, 1, 1, count_include_pad=False)
        z = self.ct(F.pad(y, (1, 1, 1, 1), mode="reflect"))
        z = F.interpolate(z, scale_factor=0.5, mode="nearest")
        a, b = z.split([2, 2], 1)
        w = torch.cat([a * 2, b.mean((2, 3), keepdim=True).expand_as(b)], 1)
        return w[:, :, 1:-1, ::2].sum(1), F.leaky_relu(w, 0.1).max(-1)[0]


def randomize_bn(net, seed=0):
    """BatchNorm running statistics and affine parameters away from 0/1, so they matter."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                n = m.num_features
                m.running_mean.copy_(torch.rand(n, generator=g) * 0.2 - 0.1)
                m.running_var.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
                m.bias.copy_(torch.rand(n, generator=g) * 0.2 - 0.1)
    return net


class TinyCNN(nn.Module):
    """A small CNN with what real CNNs convert to: BatchNorm (folded), ReLU6, a depthwise
    convolution, a padded max pool, an average pool that leaves its padding out, hardswish,
    a residual add, a global average pool and a Linear."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.c1, self.b1 = nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8)
        self.dw, self.b2 = nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.BatchNorm2d(8)
        self.pw = nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        y = F.max_pool2d(F.relu6(self.b1(self.c1(x))), 3, 2, 1)
        z = F.hardswish(self.b2(self.dw(y)))
        y = y + self.pw(F.avg_pool2d(z, 3, 1, 1, count_include_pad=False))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))
