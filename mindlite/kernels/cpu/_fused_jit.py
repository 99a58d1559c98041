"""Generated numba loops for FusedElemwise: the whole expression per output element, one
pass, no temporaries. Imported by fused_numba.py at the first launch (it imports numba).

A kernel is generated from (program, step dtypes, input kinds, rank) and compiled once;
generated kernels are kept in a bounded LRU (CACHE_SIZE). Inputs are passed as:
  's'  one element (any shape of size 1): read once, before the loop
  'f'  C-contiguous with the output's shape: read at the flat index
  'b'  anything else: a broadcast view of the output's shape, read at the N-d index
With no 'b' input the loop is one flat loop over the output (vectorizable); else a loop
nest of the output's rank. Every step's result is converted to its dtype (float32 math
stays float32), constants are typed globals, and error_model="numpy" gives IEEE results
(x/0 = inf, log(-1) = nan) instead of exceptions. The step formulas follow the reference
kernels: ReLU max(x, 0) with relu(nan) = nan and relu(-0.0) = +0.0, Sigmoid
e**min(x,0) / (1 + e**-|x|), Maximum / Minimum propagate NaN as numpy's.
"""
import threading
from collections import OrderedDict

import numba
import numpy as np

from ...common.signature import _hashable

CACHE_SIZE = 128
_CACHE = OrderedDict()
_LOCK = threading.Lock()


@numba.njit(inline="always")
def _max(a, b):
    return a if (a >= b or a != a) else b


@numba.njit(inline="always")
def _min(a, b):
    return a if (a <= b or a != a) else b


_BINARY = {"Add": "{0} + {1}", "Sub": "{0} - {1}", "Mul": "{0} * {1}", "Div": "{0} / {1}",
           "RealDiv": "{0} / {1}", "Maximum": "_max({0}, {1})", "Minimum": "_min({0}, {1})"}
_UNARY = {"Neg": "-{0}", "Square": "{0} * {0}", "Abs": "abs({0})", "Exp": "np.exp({0})",
          "Log": "np.log({0})", "Sqrt": "np.sqrt({0})", "Rsqrt": "{T}(1) / np.sqrt({0})",
          "Reciprocal": "{T}(1) / {0}", "Tanh": "np.tanh({0})", "Cast": "{0}",
          "ReLU": "{0} if ({0} > {T}(0) or {0} != {0}) else {T}(0)"}


def _step_lines(j, name, args, T):
    if name == "Sigmoid":
        a = args[0]
        return [f"e{j} = np.exp(-abs({a}))",
                f"t{j} = {T}(({T}(e{j}) if {a} < {T}(0) else {T}(1)) / ({T}(e{j}) + {T}(1)))"]
    template = _BINARY.get(name) or _UNARY[name]
    return [f"t{j} = {T}({template.format(*args, T=T)})"]


def _source(program, step_dtypes, kinds, rank):
    names = [f"x{i}" for i in range(len(kinds))]
    glob = {"np": np, "_max": _max, "_min": _min}
    idx = "i" if rank == 0 else ", ".join(f"i{d}" for d in range(rank))
    pre = []            # reads hoisted out of the loop
    body = []
    loads = {}
    for i, k in enumerate(kinds):
        if k == "s":
            pre.append(f"a{i} = x{i}[0]")
        else:
            body.append(f"a{i} = x{i}[{idx}]")
        loads[i] = f"a{i}"
    for j, ((name, refs, _), dt) in enumerate(zip(program, step_dtypes)):
        T = f"T{j}"
        glob[T] = getattr(np, dt)
        args = []
        for r in refs:
            if type(r) is int:
                args.append(loads[r])
            elif r[0] == "t":
                args.append(f"t{r[1]}")
            else:
                c = f"c{j}_{len(args)}"
                glob[c] = np.asarray(r[1], dtype=dt)[()]
                args.append(c)
        body.extend(_step_lines(j, name, args, T))
    body.append(f"out[{idx}] = t{len(program) - 1}")
    lines = [f"def kernel(out, {', '.join(names)}):"] + ["    " + p for p in pre]
    if rank == 0:
        lines.append("    for i in range(out.shape[0]):")
        depth = 2
    else:
        for d in range(rank):
            lines.append("    " * (d + 1) + f"for i{d} in range(out.shape[{d}]):")
        depth = rank + 1
    lines += ["    " * depth + b for b in body]
    return "\n".join(lines) + "\n", glob


def _compile(program, step_dtypes, kinds, rank):
    src, glob = _source(program, step_dtypes, kinds, rank)
    code = compile(src, f"<FusedElemwise {len(program)} steps>", "exec")
    exec(code, glob)
    return numba.njit(nogil=True, error_model="numpy")(glob["kernel"])


def get_kernel(program, step_dtypes, kinds, rank):
    key = (_hashable(program), step_dtypes, kinds, rank)     # -0.0 is not 0.0 here
    with _LOCK:
        fn = _CACHE.get(key)
        if fn is not None:
            _CACHE.move_to_end(key)
            return fn
    fn = _compile(program, step_dtypes, kinds, rank)
    with _LOCK:
        _CACHE[key] = fn
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return fn


def launch(inputs, out, program, step_dtypes):
    """out[...] = program(inputs), inputs broadcast to out's shape (out C-contiguous)."""
    if out.size == 0:
        return
    shape = out.shape
    kinds = []
    for x in inputs:
        if x.size == 1:
            kinds.append("s")
        elif x.shape == shape and x.flags.c_contiguous:
            kinds.append("f")
        else:
            kinds.append("b")
    kinds = tuple(kinds)
    if "b" not in kinds:
        args = [x.reshape(-1) for x in inputs]
        get_kernel(program, step_dtypes, kinds, 0)(out.reshape(-1), *args)
        return
    args = [x.reshape(-1) if k == "s" else np.broadcast_to(x, shape)
            for x, k in zip(inputs, kinds)]
    get_kernel(program, step_dtypes, kinds, len(shape))(out, *args)
