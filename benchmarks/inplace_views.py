"""Copy-on-write versus copying views: the cost of the view ops and of the in-place writers.

Reshape, ExpandDims, Squeeze, Flatten and StopGradient return numpy views; in-place writers
(setitem, Assign, the optimizers) copy a buffer first only when a live view shares it
(mindlite/kernels/views.py). This prints, side by side in one run, the per-call time of
a small and a 2048x2048 float32 Reshape, what a copy of that input costs (what copying in
the view ops would add to every call), a small setitem, one ApplyMomentum call and one
nn.Momentum step over a 3-layer MLP. Run: python benchmarks/inplace_views.py
"""
import timeit

import numpy as np

import mindlite as ms
from mindlite import nn, ops


def per_call_us(fn, number):
    best = min(timeit.repeat(fn, number=number, repeat=5))
    return best / number * 1e6


def main():
    small = ms.Tensor(np.ones((4, 4), np.float32))
    big = ms.Tensor(np.ones((2048, 2048), np.float32))
    big_arr = big.asnumpy()
    rows = [
        ("Reshape 4x4 -> 16", per_call_us(lambda: ops.reshape(small, (16,)), 20000)),
        ("Reshape 2048x2048 -> 4M (view)", per_call_us(lambda: ops.reshape(big, (-1,)), 20000)),
        ("copy of a 2048x2048 float32 (np.copy)", per_call_us(lambda: big_arr.copy(), 50)),
    ]

    def setitem():
        small[0] = 1.0
    rows.append(("setitem t[0] = 1.0 on 4x4", per_call_us(setitem, 20000)))
    w = ms.Parameter(ms.Tensor(np.ones((256, 256), np.float32)), name="w")
    acc = ms.Parameter(ms.Tensor(np.zeros((256, 256), np.float32)), name="acc")
    g = ms.Tensor(np.full((256, 256), 1e-3, np.float32))
    lr, mom = ms.Tensor(0.01, ms.float32), ms.Tensor(0.9, ms.float32)
    apply = ops.ApplyMomentum()
    rows.append(("ApplyMomentum 256x256", per_call_us(lambda: apply(w, acc, lr, g, mom), 2000)))
    view = ops.reshape(w, (-1,))
    rows.append(("ApplyMomentum 256x256, a live view of w",
                 per_call_us(lambda: apply(w, acc, lr, g, mom), 2000)))
    del view
    net = nn.SequentialCell([nn.Dense(64, 128), nn.ReLU(), nn.Dense(128, 128), nn.ReLU(),
                             nn.Dense(128, 10)])
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    grads = tuple(ms.Tensor(np.full(p.shape, 1e-3, np.float32))
                  for p in net.trainable_params())
    rows.append(("nn.Momentum step, MLP 64-128-128-10", per_call_us(lambda: opt(grads), 2000)))
    width = max(len(r[0]) for r in rows)
    for name, us in rows:
        print(f"{name:<{width}}  {us:10.2f} us")


if __name__ == "__main__":
    main()
