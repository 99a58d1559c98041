"""Networks shared by the tests that export, convert, compile or run whole models (MINDIR,
ONNX, Lite, jit/GRAPH_MODE, the compiled runner): an MLP and LeNet, each built from its
arguments so one definition serves every test."""
from mindlite import nn


class MLP(nn.Cell):
    """Dense layers of `sizes` (sizes[0] inputs) with ReLU between them, none after the last."""

    def __init__(self, sizes=(8, 16, 4)):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(a, b) for a, b in zip(sizes[:-1], sizes[1:])])
        self.relu = nn.ReLU()

    def construct(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = self.relu(x)
        return x


class LeNet(nn.Cell):
    """LeNet-5 on 1-channel `image` x `image` inputs: two valid 5x5 convolutions, each with
    ReLU and 2x2 max pooling, then Dense layers fc1.. (`hidden` widths, then `classes`) with
    ReLU between them. The default is the classic 32x32 net with fc1, fc2 and fc3;
    `hidden=(120,)` gives fc1 and fc2 only."""

    def __init__(self, image=32, hidden=(120, 84), classes=10):
        super().__init__()
        if len(hidden) not in (1, 2):
            raise ValueError(f"LeNet: hidden must hold 1 or 2 widths, got {hidden}")
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        side = ((image - 4) // 2 - 4) // 2
        widths = (16 * side * side, *hidden, classes)
        self.fc1 = nn.Dense(widths[0], widths[1])
        self.fc2 = nn.Dense(widths[1], widths[2])
        self.fc3 = nn.Dense(widths[2], widths[3]) if len(hidden) == 2 else None

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.flatten(self.pool(self.relu(self.conv2(x))))
        x = self.fc2(self.relu(self.fc1(x)))
        if self.fc3 is None:
            return x
        return self.fc3(self.relu(x))
