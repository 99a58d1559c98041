"""ONNX files written by torch.onnx.export (the TorchScript exporter, dynamo=False) load in
mindlite (mindlite/onnx/importer.py) and give torch's outputs: a CNN (Conv, BatchNorm,
pooling, GELU, Gemm) and an attention block (Embedding as Gather, Shape arithmetic,
Slice-based chunk, LayerNormalization, Gelu at opset 20)."""
import io

import numpy as np
import pytest

import mindlite as ms

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed")
torch = pytest.importorskip("torch", reason="torch is not installed")

from mindlite.onnx import OnnxGraphCell, load_onnx  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.c2 = torch.nn.Conv2d(4, 8, 3, stride=2)
        self.fc = torch.nn.Linear(8 * 3 * 3, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.c1(x))), 2)
        x = torch.nn.functional.avg_pool2d(torch.nn.functional.gelu(self.c2(x)), 1)
        return torch.log_softmax(self.fc(x.flatten(1)), -1)


class Attention(torch.nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.emb = torch.nn.Embedding(30, d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.ln = torch.nn.LayerNorm(d)
        self.ff = torch.nn.Sequential(torch.nn.Linear(d, 32), torch.nn.GELU(),
                                      torch.nn.Linear(32, d))

    def forward(self, idx):
        x = self.emb(idx)
        b, t, d = x.shape
        h = self.heads
        q, k, v = (z.reshape(b, t, h, d // h).transpose(1, 2)
                   for z in self.qkv(x).chunk(3, dim=-1))
        a = torch.softmax(q @ k.transpose(-2, -1) / (d // h) ** 0.5, -1)
        x = self.ln(x + self.out((a @ v).transpose(1, 2).reshape(b, t, d)))
        x = x + self.ff(x)
        return x[:, 0], x.mean(1)


def torch_export(net, x, opset):
    f = io.BytesIO()
    try:
        torch.onnx.export(net, (x,), f, opset_version=opset, dynamo=False, input_names=["x"])
    except Exception as e:          # an exporter this torch build lacks
        pytest.skip(f"torch.onnx.export (dynamo=False) is unavailable: {e}")
    return onnx.load_from_string(f.getvalue())


def compare(net, x, opset):
    torch.manual_seed(0)
    model = torch_export(net, x, opset)
    got = OnnxGraphCell(load_onnx(model))(ms.Tensor(x.numpy()))
    with torch.no_grad():
        want = net(x)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("opset", [13, 18])
def test_torch_cnn(opset):
    torch.manual_seed(0)
    net = CNN().eval()
    with torch.no_grad():
        net.bn.running_mean.uniform_(-1, 1)
        net.bn.running_var.uniform_(0.5, 2)
    compare(net, torch.randn(2, 1, 14, 14), opset)


@pytest.mark.parametrize("opset", [13, 17, 20])
def test_torch_attention(opset):
    torch.manual_seed(0)
    compare(Attention().eval(), torch.randint(0, 30, (2, 5)), opset)


def test_torch_dynamic_batch_with_input_shapes():
    """dynamic_axes leave the batch open; input_shapes fixes it so Reshape's target folds."""
    torch.manual_seed(0)
    net = Attention().eval()
    x = torch.randint(0, 30, (3, 5))
    f = io.BytesIO()
    try:
        torch.onnx.export(net, (x,), f, opset_version=13, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "batch"}})
    except Exception as e:
        pytest.skip(f"torch.onnx.export (dynamo=False) is unavailable: {e}")
    model = onnx.load_from_string(f.getvalue())
    with pytest.raises(ValueError, match="static"):
        load_onnx(model)
    cell = OnnxGraphCell(load_onnx(model, input_shapes={"x": [3, 5]}))
    got = cell(ms.Tensor(x.numpy()))
    with torch.no_grad():
        want = net(x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="does not fit"):
        load_onnx(model, input_shapes={"x": [3, 5, 1]})
    with pytest.raises(ValueError, match="not inputs"):
        load_onnx(model, input_shapes={"y": [3, 5]})
