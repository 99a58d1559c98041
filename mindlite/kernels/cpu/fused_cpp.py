"""C++ kernels of the fused primitives (csrc/kernels/fused_elemwise.cc, csrc/bind/fused_bind.cc).

FusedElemwise: the program runs block by block over the output through the same vector loops
as the unfused C++ kernels (so each element gets the value the unfused ops give it), with
every intermediate block in a small per-thread buffer: one pass over memory, split across the
thread pool for large outputs.

Inputs reach the loop as contiguous (the output's shape), scalar (one element, constants
included) or periodic (the output's trailing dims, e.g. a bias row: element i reads
x[i % x.size]); any other broadcast is made contiguous first. Programs are translated once
per (program, dtypes) into the step table `_C.fused_elemwise` reads (a bounded cache).

FusedMatMulBiasAdd, for the small matrices eager's MatMul runs in C++: `_C.matmul_bias_act`,
that MatMul loop then the bias (+ReLU) epilogue in place, one C call (no Python frame under
the fast runner or the graph runner).
"""
from collections import OrderedDict

import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C
from .math_cpp import _small_matmul

CACHE_SIZE = 256
_TABLES = OrderedDict()
_DT = {"float32": 0, "float64": 1}
_UNARY, _CAST, _BINARY = 0, 2, 1
_CONTIG, _SCALAR, _PERIODIC = 0, 1, 2


def _table(program, step_dtypes, n_inputs):
    """(steps int64 (nsteps, 5), constant arrays): constants become scalar inputs after the
    op's own inputs; step j's value is slot n_inputs + len(constants) + j."""
    # NOTE: keyed by identity (kernel params are bound once per signature, so the same tuples
    # come back on every call): hashing the nested program tuple cost more than the launch
    key = (id(program), id(step_dtypes), n_inputs)
    hit = _TABLES.get(key)
    if hit is not None and hit[3] is program and hit[4] is step_dtypes:
        return hit[:3]
    consts, rows = [], []
    refs_of = []
    for (name, refs, _), dt in zip(program, step_dtypes):
        slots = []
        for r in refs:
            if type(r) is not int and r[0] == "c":
                consts.append(np.array(r[1], dtype=dt))
                slots.append(("k", len(consts) - 1))
            else:
                slots.append(r)
        refs_of.append(slots)
    base = n_inputs + len(consts)

    def slot(r):
        if type(r) is int:
            return r
        return n_inputs + r[1] if r[0] == "k" else base + r[1]
    for (name, _, _), dt, slots in zip(program, step_dtypes, refs_of):
        if name == "Cast":
            rows.append((_CAST, 0, _DT[dt], slot(slots[0]), 0))
        elif len(slots) == 1:
            rows.append((_UNARY, _C.UNARY_OPS[name], _DT[dt], slot(slots[0]), 0))
        else:
            rows.append((_BINARY, _C.BINARY_OPS[name], _DT[dt], slot(slots[0]), slot(slots[1])))
    hit = (np.array(rows, dtype=np.int64).reshape(-1, 5), tuple(consts),
           np.array([(_SCALAR, 1)] * len(consts), dtype=np.int64).reshape(-1, 2))
    _TABLES[key] = hit + (program, step_dtypes)
    while len(_TABLES) > CACHE_SIZE:
        _TABLES.popitem(last=False)
    return hit


def _kind(x, shape):
    """(kind, period) of one input for an output of `shape`; (None, 0): make it contiguous."""
    if x.size == 1:
        return _SCALAR, 1
    if x.shape == shape and x.flags.c_contiguous:
        return _CONTIG, 0
    trail = x.shape
    while trail and trail[0] == 1:
        trail = trail[1:]
    if x.flags.c_contiguous and trail and shape[len(shape) - len(trail):] == trail:
        return _PERIODIC, x.size
    return None, 0


_PLANS = OrderedDict()


def _plan(steps, consts, const_kinds, inputs, shape, size):
    """(kinds array, indexes of inputs to make contiguous) for these input layouts (cached)."""
    key = (id(steps), shape, tuple([(x.shape, x.strides) for x in inputs]))
    hit = _PLANS.get(key)
    if hit is not None and hit[0] is steps:
        return hit[1], hit[2]
    kinds, dense = [], []
    for i, x in enumerate(inputs):
        k, period = _kind(x, shape)
        if k is None:
            k, period = _CONTIG, 0
            dense.append(i)
        kinds.append((k, period))
    kinds = np.array(kinds, dtype=np.int64).reshape(-1, 2)
    if consts:
        kinds = np.concatenate([kinds, const_kinds])
    _PLANS[key] = (steps, kinds, tuple(dense))
    while len(_PLANS) > CACHE_SIZE:
        _PLANS.popitem(last=False)
    return kinds, tuple(dense)


@register_kernel("FusedElemwise", provider="cpp", dtypes=(mstype.float32, mstype.float64))
def fused_elemwise_cpp(*arrays, program, step_dtypes):
    *inputs, out = arrays
    size = out.size
    if size == 0:
        return
    steps, consts, const_kinds = _table(program, step_dtypes, len(inputs))
    shape = out.shape
    kinds, dense = _plan(steps, consts, const_kinds, inputs, shape, size)
    for i in dense:
        inputs[i] = np.ascontiguousarray(np.broadcast_to(inputs[i], shape))
    _C.fused_elemwise(steps, tuple(inputs) + consts, kinds, out)


def _small(x, y, bias):
    """Where eager's MatMul runs the C++ loop (math_cpp._small_matmul): larger products go to
    BLAS in fused_numpy.py's kernel, with the epilogue in numpy."""
    return _small_matmul(x, y)


register_kernel("FusedMatMulBiasAdd", provider="cpp", dtypes=(mstype.float32, mstype.float64),
                when=_small)(_C.matmul_bias_act)
