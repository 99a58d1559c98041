"""Winograd against the direct engine on ResNet18's 3 x 3 stride-1 layer shapes (issue 33):
each shape timed with the direct engine (mode 0), F(2x2) (2), F(4x4) (4) and F(2x4) (24)
taking turns, one thread, thread CPU time (min over rounds), and, with --accuracy, each mode's
largest error
against the float64 reference in units of eps times the sum of the terms' magnitudes.

    python benchmarks/conv_winograd.py [--rounds 5] [--modes 0,2,4,24] [--uncached] [--accuracy]

--uncached turns the transformed-weight cache off: every call transforms the weights again,
as a training step's forward (its weights change every step) and input gradient do.
"""
import argparse
import time

import numpy as np

from mindlite import _C
from mindlite.kernels.cpu import conv_numpy as ref

SHAPES = [(1, 64, 56), (1, 128, 28), (1, 256, 14), (1, 512, 7),       # inference at 224
          (16, 64, 32), (16, 128, 16), (16, 256, 8), (16, 512, 4)]    # training planes


def timings(modes, rounds):
    rng = np.random.default_rng(0)
    for n, c, h in SHAPES:
        x = rng.standard_normal((n, c, h, h)).astype(np.float32)
        w = rng.standard_normal((c, c, 3, 3)).astype(np.float32)
        out = np.empty_like(x)
        reps = max(3, int(2e8 / (n * c * c * 9 * h * h)))
        best = {m: float("inf") for m in modes}
        for _ in range(rounds):
            for m in modes:
                _C.conv_winograd(m)
                _C.conv_forward(x, w, out, (1, 1), (1, 1), (1, 1, 1, 1), 1)
                t = time.thread_time()
                for _ in range(reps):
                    _C.conv_forward(x, w, out, (1, 1), (1, 1), (1, 1, 1, 1), 1)
                best[m] = min(best[m], (time.thread_time() - t) / reps)
        cols = "  ".join(f"mode {m}: {best[m] * 1e3:7.3f} ms ({best[modes[0]] / best[m]:.2f}x)"
                         for m in modes)
        print(f"{n:2d} x {c:3d} x {h:2d} x {h:<2d}  {cols}", flush=True)


def accuracy(modes):
    rng = np.random.default_rng(1)
    for n, c, h in SHAPES[:4]:
        x = rng.standard_normal((n, c, h, h))
        w = rng.standard_normal((c, c, 3, 3))
        want = np.empty(x.shape)
        bound = np.empty(x.shape)
        ref.conv2d_numpy(x, w, want, (1, 1), (1, 1), (1,) * 4, 1)
        ref.conv2d_numpy(np.abs(x), np.abs(w), bound, (1, 1), (1, 1), (1,) * 4, 1)
        errs = []
        for m in modes:
            _C.conv_winograd(m)
            got = np.empty(x.shape, np.float32)
            _C.conv_forward(x.astype(np.float32), w.astype(np.float32), got, (1, 1), (1, 1),
                            (1,) * 4, 1)
            errs.append(f"mode {m}: {(np.abs(got - want) / bound).max() / 2**-23:5.1f} eps, "
                        f"{np.abs(got - want).max() / np.abs(want).max():.1e} of max|y|")
        print(f"{c:3d} x {h:2d} x {h:<2d}  " + "  ".join(errs))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--modes", default="0,2,4,24")
    p.add_argument("--uncached", action="store_true")
    p.add_argument("--accuracy", action="store_true")
    args = p.parse_args()
    modes = [int(m) for m in args.modes.split(",")]
    _C.set_num_threads(1)
    was = _C.conv_winograd_cache(0 if args.uncached else 1 << 30)[2]
    try:
        if args.accuracy:
            accuracy(modes)
        else:
            timings(modes, args.rounds)
    finally:
        _C.conv_winograd(1)
        _C.conv_winograd_cache(was)


if __name__ == "__main__":
    main()
