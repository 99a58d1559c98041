"""Every numba kernel against the numpy reference kernel of the same op, at 4x4, 256x256 and
2048x2048 (float32; bool for ReduceAll/Any, int32 labels for the losses).

Each op runs through the normal call path with the provider requested on the primitive
(attr "kernel_provider", a strict request), so both sides pay the same framework overhead
and the difference is the kernel. The fastest of repeated batches (µs per call, mindlite.
profiler.time_samples; the minimum, as other load only ever adds time), the two providers timed
alternately. "n/a" where the numba kernel's `when`
predicate declines the inputs (it is never selected there); "first" is the provider ranked
first for float32 (a cpp kernel outranks both where one exists). Kernels that lose here are
registered below numpy (kernels/cpu/*_numba.py, priority -10) or limited by a `when`
predicate, so a plain call never picks them.
Usage: python benchmarks/numba_vs_numpy.py [--quick] [--op NAME]
"""
import argparse
import sys

import numpy as np

import mindlite as ms
from mindlite import ops
from mindlite.kernels import registry
from mindlite.profiler import time_samples

SIZES = [(4, 4), (256, 256), (2048, 2048)]


def _f32(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _labels(n, c, seed=1):
    return np.random.default_rng(seed).integers(0, c, n).astype(np.int32)


def _unary(prim_fn):
    return lambda shape: (prim_fn, [ms.Tensor(_f32(shape))])


def _bool(prim_fn):
    return lambda shape: (prim_fn, [ms.Tensor(_f32(shape) > 0)])


def _sce(shape):
    n, c = shape
    onehot = np.eye(c, dtype=np.float32)[_labels(n, c)]
    return ops.SoftmaxCrossEntropyWithLogits, [ms.Tensor(_f32(shape)), ms.Tensor(onehot)]


def _sparse(is_grad):
    def make(shape):
        n, c = shape
        return ((lambda: ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=is_grad)),
                [ms.Tensor(_f32(shape)), ms.Tensor(_labels(n, c))])
    return make


def _nll(shape):
    n, c = shape
    return ((lambda: ops.NLLLoss(reduction="mean")),
            [ms.Tensor(_f32(shape)), ms.Tensor(_labels(n, c)), ms.Tensor(np.ones(c, np.float32))])


def _param(shape, seed, value=None):
    a = _f32(shape, seed) if value is None else np.full(shape, value, np.float32)
    return ms.Parameter(ms.Tensor(a), name=f"p{seed}")


def _momentum(shape):
    return ops.ApplyMomentum, [_param(shape, 0), _param(shape, 1, 0.0), 0.01,
                               ms.Tensor(_f32(shape, 2)), 0.9]


def _sgd(shape):
    return ((lambda: ops.SGD()),
            [_param(shape, 0), ms.Tensor(_f32(shape, 2)), ms.Tensor(np.float32(0.01)),
             _param(shape, 1, 0.0), ms.Tensor(np.float32(0.9)), _param(shape, 3, 1.0)])


def _adam(shape):
    f = np.float32
    return ops.Adam, [_param(shape, 0), _param(shape, 1, 0.0), _param(shape, 2, 0.0),
                      f(0.9), f(0.999), f(0.001), f(0.9), f(0.999), f(1e-8),
                      ms.Tensor(_f32(shape, 3))]


def _adamw(shape):
    f = np.float32
    return ops.AdamWeightDecay, [_param(shape, 0), _param(shape, 1, 0.0), _param(shape, 2, 0.0),
                                 f(0.001), f(0.9), f(0.999), f(1e-8), f(0.01),
                                 ms.Tensor(_f32(shape, 3))]


def _axis(cls, *args, **kw):
    return lambda: _Bound(cls(**kw), args)


class _Bound:
    """A primitive with trailing constant inputs (axis)."""

    def __init__(self, prim, consts):
        self.prim, self.consts = prim, consts

    def add_prim_attr(self, name, value):
        self.prim.add_prim_attr(name, value)
        return self

    def __call__(self, *inputs):
        return self.prim(*inputs, *self.consts)


CASES = {
    "ReduceSum": _unary(_axis(ops.ReduceSum, 1)), "ReduceMean": _unary(_axis(ops.ReduceMean, 1)),
    "ReduceMax": _unary(_axis(ops.ReduceMax, 1)), "ReduceMin": _unary(_axis(ops.ReduceMin, 1)),
    "ReduceProd": _unary(_axis(ops.ReduceProd, 1)),
    "ReduceSum(all)": _unary(_axis(ops.ReduceSum, (0, 1))),
    "ReduceSum(axis 0)": _unary(_axis(ops.ReduceSum, 0)),
    "ReduceAll": _bool(_axis(ops.ReduceAll, 1)), "ReduceAny": _bool(_axis(ops.ReduceAny, 1)),
    "Argmax": _unary(lambda: ops.Argmax(axis=-1)), "Argmin": _unary(lambda: ops.Argmin(axis=-1)),
    "Argmax(axis 0)": _unary(lambda: ops.Argmax(axis=0)),
    "ArgMaxWithValue": _unary(lambda: ops.ArgMaxWithValue(axis=-1)),
    "ArgMinWithValue": _unary(lambda: ops.ArgMinWithValue(axis=-1)),
    "Softmax": _unary(lambda: ops.Softmax(axis=-1)),
    "LogSoftmax": _unary(lambda: ops.LogSoftmax(axis=-1)),
    "Softmax(axis 0)": _unary(lambda: ops.Softmax(axis=0)),
    "SoftmaxCrossEntropyWithLogits": _sce,
    "SparseSoftmaxCrossEntropyWithLogits": _sparse(False),
    "SparseSoftmaxCrossEntropyWithLogits(grad)": _sparse(True),
    "NLLLoss": _nll,
    "ApplyMomentum": _momentum, "SGD": _sgd, "Adam": _adam, "AdamWeightDecay": _adamw,
}


def _op_name(prim):
    return getattr(prim, "prim", prim).name


def measure(case, shape, repeat):
    """(numba µs or None, numpy µs, provider a plain call selects)."""
    make, inputs = CASES[case](shape)
    times = {}
    calls = {}
    for provider in ("numba", "numpy"):
        prim = make().add_prim_attr("kernel_provider", provider)
        try:
            prim(*inputs)
        except TypeError:             # the numba kernel's `when` declines these inputs
            continue
        calls[provider] = prim
    samples = {p: [] for p in calls}
    for _ in range(repeat):           # alternate, so load changes hit both sides alike
        for p, prim in calls.items():
            samples[p] += time_samples(lambda prim=prim: prim(*inputs), 1)
    for p, s in samples.items():
        times[p] = float(np.min(s))   # NOTE: the least-disturbed batch: the machine is shared
    return times.get("numba"), times["numpy"], _first_provider(_op_name(make()))


def _first_provider(op):
    """The highest-ranked float32 kernel's provider for `op` (what a plain call tries first)."""
    from mindlite.common import dtype as mstype
    for k in registry.kernels_for(op):
        if k.dtypes is None or mstype.float32 in k.dtypes:
            return k.provider
    return "?"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer batches")
    p.add_argument("--op", default=None, help="one case (a key of CASES)")
    args = p.parse_args(argv)
    repeat = 3 if args.quick else 7
    cases = [args.op] if args.op else list(CASES)
    print(f"{'op':<42}{'shape':>10}{'numba µs':>11}{'numpy µs':>11}{'numba/numpy':>12}"
          f"  first")
    for case in cases:
        for shape in SIZES:
            nb_us, np_us, first = measure(case, shape, repeat)
            shape_s = "x".join(map(str, shape))
            ratio = "-" if nb_us is None else f"{nb_us / np_us:.2f}"
            nb_s = "n/a" if nb_us is None else f"{nb_us:.1f}"
            print(f"{case:<42}{shape_s:>10}{nb_s:>11}{np_us:>11.1f}{ratio:>12}  {first}")
        sys.stdout.flush()
    print("numba/numpy: numba kernel time / numpy reference time (lower: numba faster); first: "
          "the provider ranked first for float32 (cpp kernels outrank both)")


if __name__ == "__main__":
    main()
