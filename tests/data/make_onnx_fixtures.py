"""Write the MindSpore-made ONNX fixture of tests/test_onnx_import.py (run with MindSpore).

    cd /tmp && /opt/msvenv/bin/python /work/main/tests/data/make_onnx_fixtures.py \
        /work/main/tests/data

MindSpore 2.10 (CPU) exports a small CNN with mindspore.export(file_format="ONNX"), which
writes opset 11 and merges Conv + BiasAdd into Conv, MatMul + BiasAdd into Gemm:
ms_cnn.onnx (Conv2d with bias, BatchNorm2d in inference, ReLU, MaxPool2d, Flatten, Dense,
Softmax on 2x1x8x8 inputs), and stores the input and MindSpore's output in ms_cnn_onnx.npz.
"""
import os
import sys

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops


class CNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 4 * 4, 5)

    def construct(self, x):
        x = self.pool(self.relu(self.bn(self.conv(x))))
        return ops.softmax(self.fc(self.flatten(x)), -1)


def main(out_dir):
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    net = CNN()
    net.bn.moving_mean.set_data(Tensor(rng.uniform(-1, 1, 4).astype(np.float32)))
    net.bn.moving_variance.set_data(Tensor(rng.uniform(0.5, 2, 4).astype(np.float32)))
    net.set_train(False)
    x = rng.standard_normal((2, 1, 8, 8)).astype(np.float32)
    ms.export(net, Tensor(x), file_name=os.path.join(out_dir, "ms_cnn"), file_format="ONNX")
    y = net(Tensor(x)).asnumpy()
    np.savez(os.path.join(out_dir, "ms_cnn_onnx.npz"), x=x, y=y)


if __name__ == "__main__":
    main(sys.argv[1])
