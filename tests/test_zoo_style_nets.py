"""A small network written the way MindSpore's model zoos (mindcv) write theirs, run without
the zoo installed: what mindcv 0.3.0 needed from mindlite stays covered here
(tools/ms_compat/run_mindcv.py compares the zoo itself with MindSpore where both are present).

The net (written here, not taken from any zoo): a Conv-BN-ReLU stem with a 'same' max-pool,
a residual block ending in `out += identity`, ConvNeXt V2's global response norm
(ops.LpNorm), cosine window attention (ops.L2Normalize on q and k, a relative position bias
gathered by an nn.OneHot matrix times a table), a nearest-neighbour upsampled
branch (ops.ResizeNearestNeighbor), zero padding (ops.Pad), ops.Identity as a disabled
drop-path, and a step counter Parameter updated by `self.steps += 1`. Checked: checkpoint
round trip (strict load, same outputs), and eval-mode output and eval- and train-mode
gradients against the same network written in PyTorch (float64) from the same weights.
"""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops

torch = pytest.importorskip("torch")
TF = torch.nn.functional

C, WIN = 8, 4


class GRN(nn.Cell):
    def __init__(self, dim):
        super().__init__()
        self.gamma = Parameter(Tensor(np.linspace(-0.5, 0.5, dim).reshape(1, 1, 1, dim),
                                      ms.float32))
        self.beta = Parameter(Tensor(np.full((1, 1, 1, dim), 0.1), ms.float32))
        self.norm = ops.LpNorm(axis=[1, 2], p=2, keep_dims=True)

    def construct(self, x):                  # x: N H W C
        gx = self.norm(x)
        nx = gx / (ops.mean(gx, axis=-1, keep_dims=True) + 1e-6)
        return self.gamma * (x * nx) + self.beta + x


class CosineAttention(nn.Cell):
    def __init__(self, dim, window):
        super().__init__()
        self.qkv = nn.Dense(dim, dim * 3)
        self.proj = nn.Dense(dim, dim)
        self.logit_scale = Parameter(Tensor(np.log(10 * np.ones((1, 1, 1))), ms.float32))
        self.normalize = ops.L2Normalize(axis=-1, epsilon=1e-12)
        n = 2 * window - 1
        self.table = Parameter(Tensor(np.random.default_rng(3).standard_normal((n, 1)) * 0.1,
                                      ms.float32))
        coords = np.arange(window)
        rel = (coords[:, None] - coords[None, :] + window - 1).reshape(-1)
        one_hot = nn.OneHot(axis=-1, depth=n, dtype=ms.float32)
        self.index = Parameter(one_hot(Tensor(rel.astype(np.int32))), requires_grad=False)
        self.window = window

    def construct(self, x):                  # x: B L C
        b, length, dim = x.shape
        q, k, v = ops.split(self.qkv(x), dim, axis=-1)
        attn = ops.matmul(self.normalize(q), ops.transpose(self.normalize(k), (0, 2, 1)))
        attn = attn * ops.exp(ops.clamp(self.logit_scale, max=np.log(100.0)))
        bias = ops.reshape(ops.matmul(self.index, self.table), (length, length))
        attn = ops.softmax(attn + 16 * ops.sigmoid(bias), axis=-1)
        return self.proj(ops.matmul(attn, v))


class Block(nn.Cell):
    def __init__(self, dim):
        super().__init__()
        self.conv1 = nn.Conv2d(dim, dim, 3, padding=1, pad_mode="pad")
        self.bn1 = nn.BatchNorm2d(dim)
        self.conv2 = nn.Conv2d(dim, dim, 3, padding=1, pad_mode="pad")
        self.bn2 = nn.BatchNorm2d(dim)
        self.relu = nn.ReLU()
        self.drop_path = ops.Identity()

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.drop_path(self.bn2(self.conv2(out)))
        out += identity
        return self.relu(out)


class TinyZooNet(nn.Cell):
    def __init__(self, num_classes=5):
        super().__init__()
        self.stem = nn.SequentialCell([nn.Conv2d(3, C, 3, 2, pad_mode="pad", padding=1),
                                       nn.BatchNorm2d(C), nn.ReLU()])
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        self.block = Block(C)
        self.grn = GRN(C)
        self.attn = CosineAttention(C, WIN)
        self.down = nn.Conv2d(C, C, 1, 2)
        self.up = ops.ResizeNearestNeighbor((WIN, WIN))
        self.pad = ops.Pad(((0, 0), (0, 0), (1, 1), (1, 1)))
        self.head = nn.Dense(C, num_classes)
        self.steps = Parameter(Tensor(0, ms.int32), name="steps", requires_grad=False)

    def construct(self, x):
        if self.training:
            self.steps += 1
        x = self.block(self.pool(self.stem(x)))                      # N C 4 4
        x = x + self.up(self.down(x))                                # N C 4 4
        x = ops.transpose(self.grn(ops.transpose(x, (0, 2, 3, 1))), (0, 3, 1, 2))
        tokens = ops.transpose(ops.reshape(x, (x.shape[0], C, -1)), (0, 2, 1))
        rows = ops.reshape(tokens, (-1, WIN, C))                     # windows of one row
        x = ops.reshape(self.attn(rows), (x.shape[0], WIN, WIN, C))
        x = self.pad(ops.transpose(x, (0, 3, 1, 2)))                 # N C 6 6
        return self.head(ops.mean(x, axis=(2, 3)))


def _torch_forward(p, x, train):
    """The same network in PyTorch on the parameters p (name -> float64 tensor)."""
    def bn(h, name):
        if train:
            return TF.batch_norm(h, None, None, p[name + ".gamma"], p[name + ".beta"],
                                 training=True, eps=1e-5)
        return TF.batch_norm(h, p[name + ".moving_mean"], p[name + ".moving_variance"],
                             p[name + ".gamma"], p[name + ".beta"], training=False, eps=1e-5)

    def conv(h, name, **kw):
        out = TF.conv2d(h, p[name + ".weight"], **kw)
        return out
    h = TF.relu(bn(conv(x, "stem.0", stride=2, padding=1), "stem.1"))
    h = TF.max_pool2d(TF.pad(h, (0, 1, 0, 1), value=-np.inf), 3, 2)
    t = TF.relu(bn(conv(h, "block.conv1", padding=1), "block.bn1"))
    h = TF.relu(bn(conv(t, "block.conv2", padding=1), "block.bn2") + h)
    d = conv(h, "down", stride=2)
    h = h + d.repeat_interleave(2, 2).repeat_interleave(2, 3)
    g = h.permute(0, 2, 3, 1)
    gx = torch.sqrt((g * g).sum((1, 2), keepdim=True))
    g = p["grn.gamma"] * (g * (gx / (gx.mean(-1, keepdim=True) + 1e-6))) + p["grn.beta"] + g
    rows = g.reshape(-1, WIN, C)
    qkv = rows @ p["attn.qkv.weight"].T + p["attn.qkv.bias"]
    q, k, v = qkv.split(C, -1)
    q, k = TF.normalize(q, dim=-1, eps=1e-12), TF.normalize(k, dim=-1, eps=1e-12)
    attn = q @ k.transpose(1, 2) * torch.exp(torch.clamp(p["attn.logit_scale"],
                                                         max=float(np.log(100.0))))
    coords = np.arange(WIN)
    rel = torch.tensor((coords[:, None] - coords[None, :] + WIN - 1).reshape(-1))
    bias = p["attn.table"][rel].reshape(WIN, WIN)
    attn = torch.softmax(attn + 16 * torch.sigmoid(bias), -1)
    out = (attn @ v) @ p["attn.proj.weight"].T + p["attn.proj.bias"]
    out = TF.pad(out.reshape(x.shape[0], WIN, WIN, C).permute(0, 3, 1, 2), (1, 1, 1, 1))
    return out.mean((2, 3)) @ p["head.weight"].T + p["head.bias"]


def _case():
    ms.set_seed(1)
    net = TinyZooNet()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 16, 16)).astype(np.float32)
    y = rng.integers(0, 5, 2).astype(np.int32)
    return net, x, y


def _grads(net, x, y, train):
    net.set_train(train)
    ce = ops.SparseSoftmaxCrossEntropyWithLogits()
    weights = net.trainable_params()
    _, g = ms.value_and_grad(lambda a, b: ce(net(a), b), None, weights)(Tensor(x), Tensor(y))
    return {w.name: t.asnumpy() for w, t in zip(weights, g)}


def _torch_grads(net, x, y, train):
    p = {q.name: torch.tensor(q.asnumpy().astype(np.float64), requires_grad=q.requires_grad)
         for q in net.get_parameters() if q.dtype != ms.int32}
    logits = _torch_forward(p, torch.tensor(x, dtype=torch.float64), train)
    TF.cross_entropy(logits, torch.tensor(y, dtype=torch.long)).backward()
    return logits.detach().numpy(), {k: v.grad.numpy() for k, v in p.items()
                                     if v.grad is not None}


def test_checkpoint_round_trip(tmp_path):
    net, x, _ = _case()
    net.set_train(False)
    want = net(Tensor(x)).asnumpy()
    path = str(tmp_path / "zoo.ckpt")
    ms.save_checkpoint(net, path)
    ms.set_seed(7)
    other = TinyZooNet()
    not_loaded, unused = ms.load_param_into_net(other, ms.load_checkpoint(path),
                                                strict_load=True)
    assert not_loaded == [] and unused == []
    other.set_train(False)
    np.testing.assert_array_equal(other(Tensor(x)).asnumpy(), want)
    assert sorted(p.name for p in other.get_parameters()) == sorted(
        p.name for p in net.get_parameters())


@pytest.mark.parametrize("train", [False, True])
def test_output_and_gradients_match_pytorch(train):
    net, x, y = _case()
    net.set_train(False)
    out = net(Tensor(x)).asnumpy()
    grads = _grads(net, x, y, train)
    want_out, want = _torch_grads(net, x, y, train)
    if not train:
        np.testing.assert_allclose(out, want_out, rtol=1e-4, atol=1e-5)
    assert sorted(grads) == sorted(want)
    for name, g in grads.items():
        scale = np.abs(want[name]).max()
        assert np.abs(g - want[name]).max() <= 1e-3 * scale + 1e-6, name
    assert int(net.steps.asnumpy()) == (1 if train else 0) and net.steps.dtype == ms.int32
