"""A numba Custom op with a bprop, trained inside a small model.

    python examples/custom_ops/numba_custom_train.py

softsign(x) = x / (1 + |x|) is written as a numba kernel (JIT-compiled on first use and
cached on disk); its gradient 1 / (1 + |x|)^2 * dout is a second numba Custom used by the
bprop. The script checks the forward against numpy, the gradient against central finite
differences (float64), and that a Dense -> softsign -> Dense regression model trained with
value_and_grad + Adam lowers its loss.
"""
import numpy as np

import mindlite as ms
from mindlite import Tensor, nn, ops


def softsign_kernel(x, out):
    for i in np.ndindex(x.shape):
        out[i] = x[i] / (1.0 + abs(x[i]))


def softsign_grad_kernel(x, dout, dx):
    for i in np.ndindex(x.shape):
        d = 1.0 + abs(x[i])
        dx[i] = dout[i] / (d * d)


softsign_grad = ops.Custom(softsign_grad_kernel, func_type="numba")   # out: x's shape, dtype


def softsign_bprop(x, out, dout):
    return (softsign_grad(x, dout),)


softsign = ops.Custom(softsign_kernel, func_type="numba", bprop=softsign_bprop)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 16)
        self.fc2 = nn.Dense(16, 1)

    def construct(self, x):
        return self.fc2(softsign(self.fc1(x)))


def check(what, ok):
    print(f"[{'ok' if ok else 'FAIL'}] {what}")
    if not ok:
        raise SystemExit(1)


def finite_difference_check():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, (3, 4))
    w = rng.uniform(0.5, 1.5, (3, 4))

    def loss(a):
        return float((softsign(Tensor(a)).asnumpy() * w).sum())
    grad = ms.grad(lambda t: ops.sum(softsign(t) * Tensor(w)))(Tensor(x)).asnumpy()
    num = np.zeros_like(x)
    eps = 1e-6
    for i in np.ndindex(x.shape):
        p, m = x.copy(), x.copy()
        p[i] += eps
        m[i] -= eps
        num[i] = (loss(p) - loss(m)) / (2 * eps)
    check(f"gradient == finite differences (max err {abs(grad - num).max():.1e})",
          np.allclose(grad, num, rtol=1e-6, atol=1e-8))


def main():
    ms.set_seed(0)
    a = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    check("softsign(x) == numpy x / (1 + |x|)",
          np.allclose(softsign(Tensor(a)).asnumpy(), a / (1 + np.abs(a)), rtol=1e-6))
    finite_difference_check()

    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2] * x[:, 2:3]).astype(np.float32)
    net, loss_fn = Net(), nn.MSELoss()
    opt = nn.Adam(net.trainable_params(), learning_rate=0.02)

    def forward(xb, yb):
        return loss_fn(net(xb), yb)
    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    xt, yt = Tensor(x), Tensor(y)
    losses = []
    for _ in range(150):
        loss, grads = grad_fn(xt, yt)
        opt(grads)
        losses.append(float(loss.asnumpy()))
    print(f"loss: {losses[0]:.4f} -> {losses[-1]:.4f}")
    check("training through the numba Custom op lowers the loss by over 5x",
          losses[-1] < losses[0] / 5)
    print("numba_custom_train: all checks passed")


if __name__ == "__main__":
    main()
