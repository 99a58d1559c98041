"""Elementwise fusion and MatMul+BiasAdd+ReLU fusion: @jit graphs with the fusion passes vs the
same graphs unfused, eager, numpy and (if installed) PyTorch. Prints best-of-N times and ratios.

    python benchmarks/jit_fusion.py [--repeat 5] [--number 20]

"unfused" compiles the same function with the two fusion stages taken out of the pass
pipeline; both run through @jit's normal path (the graph runner where it applies).
"""
import argparse
import timeit

import numpy as np

import mindlite as ms
from mindlite import nn, ops
from mindlite.jit.passes import pipeline


def chain(x, y):
    a = x * 0.5 - y
    b = ops.exp(ops.neg(ops.square(a)))
    return ops.tanh(b) * x + 1.0


def arith(x, y):
    return ops.relu((x * 0.5 - y) * x + 1.0)


def arith_np(x, y):
    return np.maximum((x * np.float32(0.5) - y) * x + np.float32(1.0), 0)


def arith_torch(torch, x, y):
    return torch.relu((x * 0.5 - y) * x + 1.0)


def chain_np(x, y):
    a = x * np.float32(0.5) - y
    b = np.exp(-(a * a))
    return np.tanh(b) * x + np.float32(1.0)


def chain_torch(torch, x, y):
    a = x * 0.5 - y
    b = torch.exp(-(a * a))
    return torch.tanh(b) * x + 1.0


FUSIONS = ("matmul_biasadd_fusion", "elementwise_fusion")


def pair(fn, *args):
    """(fused, unfused) jit functions of fn, each compiled for args."""
    out = []
    for fuse in (True, False):
        jf = ms.jit(fn)
        saved = pipeline.PIPELINE
        if not fuse:
            pipeline.PIPELINE = [e for e in saved if isinstance(e, str) or e[0] not in FUSIONS]
        try:
            jf(*args)
        finally:
            pipeline.PIPELINE = saved
        out.append(jf)
    return out


def best(stmt, repeat, number):
    return min(timeit.repeat(stmt, repeat=repeat, number=number)) / number


def report(title, rows):
    base = rows[0][1]
    print(f"\n{title}")
    for name, t in rows:
        print(f"  {name:<18} {t * 1e6:10.1f} us   x{t / base:5.2f} of the fused graph")


def bench_chain(fns, title, shape, repeat, number):
    fn, fn_np, fn_torch = fns
    rng = np.random.default_rng(0)
    xn = rng.standard_normal(shape).astype(np.float32)
    yn = rng.standard_normal(shape[-1:]).astype(np.float32)
    x, y = ms.Tensor(xn), ms.Tensor(yn)
    fused, plain = pair(fn, x, y)
    rows = [("@jit fused", best(lambda: fused(x, y), repeat, number)),
            ("@jit unfused", best(lambda: plain(x, y), repeat, number)),
            ("eager", best(lambda: fn(x, y), repeat, number)),
            ("numpy", best(lambda: fn_np(xn, yn), repeat, number))]
    try:
        import torch
        xt, yt = torch.from_numpy(xn), torch.from_numpy(yn)
        rows.append(("torch", best(lambda: fn_torch(torch, xt, yt), repeat, number)))
    except ImportError:
        pass
    report(f"{title}, float32 {shape}", rows)


CHAIN = ((chain, chain_np, chain_torch), "8-op chain (x*0.5 - y, square, neg, exp, tanh, *x, +1)")
ARITH = ((arith, arith_np, arith_torch), "5-op arithmetic chain (relu((x*0.5 - y)*x + 1))")


def bench_dense(batch, width, repeat, number):
    dense = nn.Dense(width, width, activation="relu")
    x = ms.Tensor(np.random.default_rng(1).standard_normal((batch, width)).astype(np.float32))
    fused, plain = pair(type(dense).construct, dense, x)
    rows = [("@jit fused", best(lambda: fused(dense, x), repeat, number)),
            ("@jit unfused", best(lambda: plain(dense, x), repeat, number)),
            ("eager", best(lambda: dense(x), repeat, number))]
    report(f"nn.Dense({width}, {width}, relu), batch {batch}: MatMul+BiasAdd+ReLU", rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--number", type=int, default=20)
    a = ap.parse_args()
    for fns, title in (CHAIN, ARITH):
        bench_chain(fns, title, (1024, 1024), a.repeat, a.number)
        bench_chain(fns, title, (64, 64), a.repeat, a.number * 20)
        bench_chain(fns, title, (4, 4), a.repeat, a.number * 50)
    bench_dense(512, 1024, a.repeat, max(1, a.number // 4))
    bench_dense(1, 64, a.repeat, a.number * 50)


if __name__ == "__main__":
    main()
