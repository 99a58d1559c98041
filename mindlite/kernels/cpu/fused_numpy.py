"""numpy reference kernels of the fused primitives (ops/operations/fused_ops.py).

FusedElemwise runs its steps one after another through each component op's own numpy
reference kernel (so it computes what the unfused ops' reference kernels compute, one
temporary per step); fused_numba.py's generated single-pass loop is the fast one.
FusedMatMulBiasAdd runs the MatMul kernel eager selects for these inputs, then adds the bias
and applies ReLU in place on the output: for float32/float64 with the C kernels eager's
BiasAdd and ReLU select (~0.5 µs at 64 x 128 where np.add and np.maximum take 2.4 and 3.9),
else with numpy.
"""
import numpy as np

from ...common import dtype as mstype
from ...common.abstract import abstract_tensor
from ._cext import _C
from ..registry import KERNELS, register_kernel


def _reference(name):
    return next(k.fn for k in KERNELS[name] if k.provider == "numpy")


def eval_program(inputs, program, step_dtypes):
    """The value of every step of `program` on the input arrays (reference kernels)."""
    values = []
    for (name, refs, extra), dt in zip(program, step_dtypes):
        args = [inputs[r] if type(r) is int else values[r[1]] if r[0] == "t"
                else np.asarray(r[1], dtype=dt) for r in refs]
        out = np.empty(np.broadcast_shapes(*(a.shape for a in args)), dtype=dt)
        with np.errstate(all="ignore"):
            if name == "Cast":
                _reference(name)(args[0], out, quiet=False)
            else:
                _reference(name)(*args, out)
        values.append(out)
    return values


@register_kernel("FusedElemwise", provider="numpy")
def fused_elemwise_numpy(*arrays, program, step_dtypes):
    *inputs, out = arrays
    out[...] = eval_program(inputs, program, step_dtypes)[-1]


_MATMUL_KERNELS = {}


def matmul_into(x, y, out, transpose_a, transpose_b):
    """out = op(x) @ op(y) by the built-in MatMul kernel eager selects for these inputs."""
    key = (x.dtype, x.shape, y.shape)
    fn = _MATMUL_KERNELS.get(key)
    if fn is None:
        dtype = mstype.from_numpy_dtype(x.dtype)
        abstracts = (abstract_tensor(dtype, x.shape), abstract_tensor(dtype, y.shape))
        builtin = [k for k in KERNELS["MatMul"] if k.builtin and k.kind == "function"
                   and k.alloc == "runtime"]
        kdef = next(k for k in builtin if k.supports(dtype, abstracts))
        fn = kdef.fn
        if len(_MATMUL_KERNELS) > 256:
            _MATMUL_KERNELS.clear()
        _MATMUL_KERNELS[key] = fn
    fn(x, y, out, transpose_a=transpose_a, transpose_b=transpose_b)


@register_kernel("FusedMatMulBiasAdd", provider="numpy")
def fused_matmul_bias_add_numpy(x, y, bias, out, transpose_a, transpose_b, relu):
    matmul_into(x, y, out, transpose_a, transpose_b)
    if out.dtype in _C_EPILOGUE and bias.dtype == out.dtype:
        _C.bias_add(out, bias, out, "NCHW")     # the channel axis of a 2-D output: its last
        if relu:
            _C_RELU(out, out)
        return
    np.add(out, bias, out=out)              # as BiasAdd's and ReLU's reference kernels
    if relu:
        np.maximum(out, 0, out=out)


_C_EPILOGUE = (np.dtype(np.float32), np.dtype(np.float64))
_C_RELU = _C.UNARY_KERNELS["ReLU"]
