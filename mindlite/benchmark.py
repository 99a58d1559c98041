"""Single-op latency of a mindlite primitive, with a per-stage breakdown (mindlite/profiler/).

    python -m mindlite.benchmark --op ReLU --shape 4,4 [--shape2 4,4] [--dtype float32]
                                 [--grad] [--compare torch,numpy] [--repeat N]

--op is a primitive name (ReLU, MatMul), matched case-insensitively, or a functional name
(relu, matmul, reduce_sum, sum), which times the primitive behind it. Builds ops.<Op>() and
random inputs (one per tensor input the primitive takes; the second has --shape2, default
--shape), times the cached call (median, p10, p90 µs over repeated batches,
time.perf_counter_ns), inside a recording gradient tape with --grad (inputs watched), compares
with the torch / numpy equivalents listed in COMPARE, then prints the profiler's breakdown
(mindlite/profiler/breakdown.py): the stages of a first call and of a cached call, each
ending with what the stages leave of the measured call, "Python glue (unattributed)" (for
the first call, by the frame it runs in), so the lines add up to the measured call.
The ratio column is mindlite's median time / the comparator's median time: lower is better,
below 1 mindlite is faster. A bad op, shape, dtype or compare name, or inputs that mindlite
or a comparator rejects, exits with code 2 and a message.
"""
import argparse
import functools
import inspect
import sys

import numpy as np

from . import ops
from .common import dtype as mstype
from .common.tensor import Tensor
from .ir.primitive import Primitive
from .profiler import format_breakdown, profile_call, time_samples
from .pynative.grad import GRAD_EXECUTOR


def _np_softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# op name -> (numpy function, torch function name / callable of the torch module)
COMPARE = {
    "ReLU": (lambda x: np.maximum(x, 0), lambda t: t.relu),
    "Add": (np.add, lambda t: t.add),
    "Sub": (np.subtract, lambda t: t.sub),
    "Mul": (np.multiply, lambda t: t.mul),
    "MatMul": (np.matmul, lambda t: t.matmul),
    "Sigmoid": (lambda x: 1 / (1 + np.exp(-x)), lambda t: t.sigmoid),
    "Exp": (np.exp, lambda t: t.exp),
    "Tanh": (np.tanh, lambda t: t.tanh),
    "Softmax": (_np_softmax, lambda t: (lambda x: t.softmax(x, -1))),
    "ReduceSum": (np.sum, lambda t: t.sum),
}


class UsageError(Exception):
    """A bad command line: reported with exit code 2."""


def parse_shape(text, flag):
    text = text.strip()
    if text in ("", "()", "scalar"):
        return ()
    try:
        shape = tuple(int(s) for s in text.split(","))
    except ValueError:
        raise UsageError(f"{flag} must be comma-separated non-negative ints such as 4,4, "
                         f"but got {text!r}") from None
    if any(d < 0 for d in shape):
        raise UsageError(f"{flag} must be comma-separated non-negative ints, but got {text!r}")
    return shape


def parse_dtype(name):
    t = getattr(mstype, name, None)
    if not isinstance(t, mstype.Type):
        raise UsageError(f"--dtype must be a mindlite dtype name (float32, int32, ...), but got "
                         f"{name!r}")
    return t


# functional names whose primitive's name is not the functional name itself
ALIASES = {"sum": "ReduceSum", "mean": "ReduceMean", "prod": "ReduceProd", "amax": "ReduceMax",
           "amin": "ReduceMin", "max_pool2d": "MaxPool", "avg_pool2d": "AvgPool"}


def _is_prim(obj):
    return isinstance(obj, type) and issubclass(obj, Primitive)


def _norm(name):
    return name.replace("_", "").lower()


def resolve_op(name):
    """The primitive class --op names: a primitive (any case) or a functional name."""
    cls = getattr(ops, name, None)
    if _is_prim(cls):
        return cls
    target = _norm(ALIASES.get(name.lower(), name))
    for attr in sorted(dir(ops)):
        cls = getattr(ops, attr, None)
        if _is_prim(cls) and _norm(attr) == target:
            return cls
    raise UsageError(f"unknown op {name!r}: --op must name a primitive of mindlite.ops "
                     f"(ReLU, Add, MatMul, ...) or a functional op (relu, add, matmul, ...)")


def make_prim(name):
    cls = resolve_op(name)
    try:
        return cls()
    except (TypeError, ValueError) as e:
        raise UsageError(f"cannot build ops.{cls.__name__}() without arguments: {e}") from None


def tensor_arity(prim):
    """How many tensor inputs to generate: input_names, else infer's required arguments."""
    if prim.input_names is not None:
        n = len(prim.input_names)
    else:
        params = list(inspect.signature(prim.infer).parameters.values())
        n = sum(p.default is inspect.Parameter.empty and p.kind in
                (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if any(i < n for i in prim.const_inputs):
        raise UsageError(f"op {prim.name!r} takes constant inputs (axis, shape...): the CLI "
                         f"only generates tensors; use mindlite.profiler.profile_call")
    return n


def random_array(shape, t, seed):
    rng = np.random.default_rng(seed)
    if t.np == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(t.np, np.unsignedinteger):
        return rng.integers(0, 10, shape).astype(t.np)
    if np.issubdtype(t.np, np.integer):
        return rng.integers(-5, 6, shape).astype(t.np)
    return rng.standard_normal(shape).astype(t.np)


def _stats(samples):
    n = len(samples)
    return (samples[n // 2] if n % 2 else (samples[n // 2 - 1] + samples[n // 2]) / 2,
            samples[int(0.1 * (n - 1))], samples[int(round(0.9 * (n - 1)))])


RATIO_NOTE = "ratio = mindlite time / comparator time (median; lower is better, < 1: faster)"


def _line(label, samples, base=None):
    med, p10, p90 = _stats(samples)
    ratio = f"   ratio {base / med:.2f}" if base is not None else ""
    return f"{label:<9} median {med:9.2f} µs   p10 {p10:9.2f}   p90 {p90:9.2f}{ratio}"


def comparators(op, arrays, names, grad):
    """[(label, call or a line saying why there is none)]; each call is tried once here, so
    inputs a comparator rejects are a usage error (exit 2), not a traceback mid-run."""
    out = []
    fns = COMPARE.get(op)
    for name in names:
        if fns is None:
            out.append((name, f"{name:<9} no equivalent listed for {op}"))
            continue
        if name == "numpy":
            f = fns[0]
            call = functools.partial(f, *arrays)
        else:
            try:
                import torch
            except ImportError:
                out.append((name, "torch     not installed"))
                continue
            f = fns[1](torch)
            ts = [torch.from_numpy(np.ascontiguousarray(a).copy()) for a in arrays]
            if grad and all(t.is_floating_point() for t in ts):
                ts = [t.requires_grad_(True) for t in ts]
            call = functools.partial(f, *ts)
        try:
            call()
        except Exception as e:
            shapes = " x ".join(str(a.shape) for a in arrays)
            raise UsageError(f"the {name} comparator of {op} rejects inputs of shape {shapes}: "
                             f"{type(e).__name__}: {e}") from None
        out.append((name, call))
    return out


def compare_lines(cmps, repeat, base):
    return [call if isinstance(call, str) else _line(name, time_samples(call, repeat), base)
            for name, call in cmps]


def run(argv=None):
    p = argparse.ArgumentParser(prog="python -m mindlite.benchmark",
                                description=__doc__.splitlines()[0])
    p.add_argument("--op", required=True,
                   help="a primitive of mindlite.ops (ReLU) or a functional name (relu)")
    p.add_argument("--shape", default="4,4", help="input shape, e.g. 4,4 ('' for 0-d)")
    p.add_argument("--shape2", default=None, help="second input's shape (default --shape)")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--grad", action="store_true", help="time inside a recording tape")
    p.add_argument("--compare", default="", help="comma-separated: torch,numpy")
    p.add_argument("--repeat", type=int, default=15, help="batches per measurement")
    args = p.parse_args(argv)
    try:
        if args.repeat < 1:
            raise UsageError(f"--repeat must be a positive int, but got {args.repeat}")
        names = [c for c in args.compare.split(",") if c]
        bad = [c for c in names if c not in ("torch", "numpy")]
        if bad:
            raise UsageError(f"--compare takes torch and/or numpy, but got {bad}")
        shape = parse_shape(args.shape, "--shape")
        shape2 = shape if args.shape2 is None else parse_shape(args.shape2, "--shape2")
        t = parse_dtype(args.dtype)
        prim = make_prim(args.op)
        n = tensor_arity(prim)
        arrays = [random_array(shape if i == 0 else shape2, t, i) for i in range(n)]
        inputs = [Tensor(a) for a in arrays]
        try:
            prim(*inputs)
        except (TypeError, ValueError) as e:
            raise UsageError(f"ops.{prim.name} rejects these inputs: {e}") from None
        cmps = comparators(prim.name, arrays, names, args.grad)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    shapes = " x ".join(str(a.shape) for a in arrays)
    print(f"{prim.name} {shapes} {t}{' (grad recorded)' if args.grad else ''}, "
          f"µs per call over {args.repeat} batches")
    tape = GRAD_EXECUTOR.open_tape() if args.grad else None
    try:
        if tape is not None:
            for x in inputs:
                tape.watch(x)
        samples = time_samples(lambda: prim(*inputs), args.repeat)
    finally:
        if tape is not None:
            GRAD_EXECUTOR.close_tape(tape)
            tape.nodes.clear()
    print(_line("mindlite", samples))
    base = _stats(samples)[0]
    for line in compare_lines(cmps, args.repeat, base):
        print(line)
    if any(not isinstance(call, str) for _, call in cmps):
        print(RATIO_NOTE)
    print()
    print(format_breakdown(profile_call(prim, *inputs, repeat=args.repeat, grad=args.grad)))
    return 0


def main():
    sys.exit(run())


if __name__ == "__main__":
    main()
