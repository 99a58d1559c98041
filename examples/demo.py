"""mindlite demo: eager ops as in a notebook, then a small model fitted with value_and_grad.

    python examples/demo.py [--quick]
"""
import argparse
import time

import numpy as np

import mindlite as ms
from mindlite import Parameter, Tensor, ops


def eager_ops():
    x = Tensor(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32))
    print("x =", repr(x))
    print("relu(x) =\n", ops.ReLU()(x))
    print("x + 1 =\n", x + 1)
    print("x @ x.T =\n", ops.matmul(x, x.T))
    print("softmax(x).sum(-1) =", ops.softmax(x, -1).sum(axis=-1))
    try:
        x + Tensor(np.ones((4, 5), np.float32))
    except ValueError as e:
        print("a bad call raises at once:", str(e).split(". ")[0])


def fit_regression(steps):
    """Least squares y = x·w + b with plain gradient descent through value_and_grad."""
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal((256, 8)).astype(np.float32))
    true_w = rng.standard_normal((8, 1)).astype(np.float32)
    y = Tensor(x.asnumpy() @ true_w + 0.5)
    w = Parameter(np.zeros((8, 1), np.float32), name="w")
    b = Parameter(np.zeros((1,), np.float32), name="b")

    def loss_fn(x, y):
        err = ops.matmul(x, w) + b - y
        return (err * err).mean()

    step = ms.value_and_grad(loss_fn, None, [w, b])
    t0 = time.perf_counter()
    for i in range(steps):
        loss, (gw, gb) = step(x, y)
        w.set_data(w - 0.1 * gw)
        b.set_data(b - 0.1 * gb)
        if i % max(1, steps // 5) == 0:
            print(f"step {i:4d}  loss {float(loss):.6f}")
    dt = (time.perf_counter() - t0) / steps * 1e3
    print(f"final loss {float(loss):.2e}, |w - w*| = "
          f"{np.abs(w.asnumpy() - true_w).max():.2e}, b = {float(b.asnumpy()[0]):.4f}, "
          f"{dt:.3f} ms/step")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    print(f"mindlite {ms.__version__}")
    eager_ops()
    fit_regression(60 if args.quick else 200)


if __name__ == "__main__":
    main()
