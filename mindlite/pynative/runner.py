"""Runners: what every repeated call of a cached op signature executes.

A runner is built once, at the end of a signature's first call, from that
call's OpRunInfo (which inputs are tensors, scalars to convert, casts) and its
KernelGraph (the selected kernel, the output abstract, the allocation plan held
by the runtime). A repeated call does: read the input arrays, allocate outputs
(pool for large ones), launch the kernel, wrap the result, and report to the grad
recorder if it is recording.
The common case -- Tensor inputs already of the kernel's dtype and Python scalars
(constants aside), one output allocated by the runtime -- gets a `_C.FastRunner`,
which does those steps in C (csrc/bind/fast_path.cc) when `Primitive.__call__`
finds it. The rest are Python closures over the same values.
"""
import numpy as np

from .. import _C
from ..common import abstract
from ..common.abstract import AbstractTensor
from ..common.tensor import Tensor
from ..runtime.memory import POOL_MIN_BYTES
from ..ir.rules import NON_DIFFERENTIABLE

_wrap = _C.wrap          # (arr, abs) -> Tensor
_recording = _C.grad_recording   # () -> the calling thread's grad recorder is open (no
                                 # lookup through the threading.local GRAD_EXECUTOR)


def record(grad, prim, args, result):
    if _recording():
        grad.record(prim, args, result)


def wrap_outputs(outputs, out_abs, dynamic):
    """Kernel output arrays -> Tensor or tuple of Tensors with their abstracts."""
    if isinstance(out_abs, AbstractTensor):
        return _wrap(outputs[0], abstract.abstract_of_array(outputs[0]) if dynamic else out_abs)
    return tuple(_wrap(o, abstract.abstract_of_array(o) if dynamic else a)
                 for o, a in zip(outputs, out_abs))


def constant_runner(value):
    """Constant folding: inference already knew the result (e.g. Shape)."""
    def run(args):
        return value
    return run


def const_prim_runner(outputs, out_abs):
    """Only constant inputs: computed once, a fresh copy per call (outputs are mutable)."""
    def run(args):
        return wrap_outputs([o.copy() for o in outputs], out_abs, False)
    return run


def make_runner(info, graph, runtime, grad):
    prim = info.prim
    kinds = info.kinds
    out_abs = info.output_abstract
    if graph.kernel.alloc == "kernel" or prim.dynamic_shape:
        return _kernel_alloc_runner(info, graph.launch, grad)
    positions = [i for i, k in enumerate(kinds) if k != "const"]
    if isinstance(out_abs, AbstractTensor) and 0 < len(positions) <= 8 \
            and all(kinds[i] == "scalar" or (kinds[i] == "tensor"
                                             and info.args[i]._abs.dtype is info.types[i])
                    for i in positions):
        large = out_abs.size * out_abs.np.itemsize >= POOL_MIN_BYTES
        launch = graph.launch
        # Shared by every thread: it records onto the calling thread's tapes while it records.
        differentiable = type(prim) not in NON_DIFFERENTIABLE
        return _C.FastRunner(getattr(launch, "c_kernel", launch),
                             runtime.allocator(out_abs) if large else None, out_abs, out_abs.np,
                             out_abs.shape, prim, differentiable, len(kinds), positions,
                             getattr(launch, "c_params", ()),
                             [info.types[i].np if kinds[i] == "scalar" else None
                              for i in positions], getattr(launch, "c_error", None))
    return _generic_runner(info, graph.launch, runtime, grad)


def input_reader(info):
    """A function args -> kernel input arrays, applying the casts decided on the first call."""
    plan = []
    for i, (kind, t, a) in enumerate(zip(info.kinds, info.types, info.args)):
        if kind == "const":
            continue
        if kind == "tensor":
            plan.append((i, kind, None if a._abs.dtype is t else t.np))
        elif kind == "scalar":
            plan.append((i, kind, t.np))
        else:
            plan.append((i, kind, None))

    def read(args):
        ins = []
        for i, kind, np_dtype in plan:
            a = args[i]
            if kind == "tensor":
                ins.append(a._arr if np_dtype is None else a._arr.astype(np_dtype))
            elif kind == "scalar":
                ins.append(np.asarray(a, dtype=np_dtype))
            else:
                ins.append([x._arr if isinstance(x, Tensor) else np.asarray(x) for x in a])
        return ins
    return read


def _generic_runner(info, launch, runtime, grad):
    prim = info.prim
    out_abs = info.output_abstract
    read = input_reader(info)
    outs_abs = (out_abs,) if isinstance(out_abs, AbstractTensor) else out_abs
    allocs = [runtime.allocator(a) for a in outs_abs]
    single = isinstance(out_abs, AbstractTensor)

    def run(args):
        outs = [alloc() for alloc in allocs]
        launch(*read(args), *outs)
        if single:
            result = _wrap(outs[0], out_abs)
        else:
            result = tuple(_wrap(o, a) for o, a in zip(outs, outs_abs))
        if _recording():
            grad.record(prim, args, result)
        return result
    return run


def _kernel_alloc_runner(info, launch, grad):
    """Kernels that return their outputs: views (Reshape) and dynamic shapes (Unique)."""
    prim = info.prim
    read = input_reader(info)
    out_abs = info.output_abstract
    dynamic = prim.dynamic_shape
    single = isinstance(out_abs, AbstractTensor)

    def run(args):
        outs = launch(*read(args))
        if single:
            result = _wrap(outs, abstract.abstract_of_array(outs) if dynamic else out_abs)
        else:
            result = wrap_outputs(outs, out_abs, dynamic)
        if _recording():
            grad.record(prim, args, result)
        return result
    return run
