"""C++ kernels (mindlite._C, csrc/kernels/optim_kernels.cc, entry points
csrc/bind/optim_bind.cc) for optim_ops: ApplyMomentum, SGD, Adam, AdamWeightDecay,
float32/float64, alloc="kernel" (they update the Parameters' own memory and return it).

One pass over the flat data of the variable, its state and the gradient, in optim_numpy.py's
operation order, so the updates are bitwise the numpy kernel's. The loops need every updated
array C-contiguous, aligned and writeable; otherwise (a strided or read-only variable) the
numpy kernel runs instead, and raises for read-only state before writing anything, as the
numba kernels do. Hyper-parameters go to C as the size-1 arrays they are (converted to the
variable's dtype there, as numpy's dtype.type(x)). They replace the numba kernels
(optim_numba.py, kept below as a fallback). benchmarks/hot_kernels.py --clock cpu --threads 1,
float32, µs of CPU per launch, numpy / numba / cpp, on the shared 2-core AVX2 VM:
  1000 elements: ApplyMomentum 11 / 8.1 / 1.4, SGD 20 / 11 / 1.0-2.9, Adam 36 / 22 / 2.1
  100k elements: ApplyMomentum 77 / 34 / 27, SGD 131 / 89 / 33, Adam 330 / 77 / 48
  4M elements (memory-bound): all four within 10% of numba, 2.4-7x faster than numpy.
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from . import optim_numpy as ref
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)


def _ok(*arrays):
    """Whether the C loops can update every array in place."""
    for a in arrays:
        f = a.flags
        if not (f.c_contiguous and f.writeable and f.aligned):
            return False
    return True


@register_kernel("ApplyMomentum", provider="cpp", dtypes=FLOATS, alloc="kernel")
def apply_momentum_cpp(var, accum, lr, grad, momentum, use_nesterov, use_locking,
                       gradient_scale):
    if not _ok(var, accum):
        return ref.apply_momentum_numpy(var, accum, lr, grad, momentum, use_nesterov,
                                        use_locking, gradient_scale)
    _C.apply_momentum(var, accum, lr, grad, momentum, use_nesterov, gradient_scale)
    return var


@register_kernel("SGD", provider="cpp", dtypes=FLOATS, alloc="kernel")
def sgd_cpp(param, grad, lr, accum, momentum, stat, dampening, weight_decay, nesterov):
    if not _ok(param, accum, stat):
        return ref.sgd_numpy(param, grad, lr, accum, momentum, stat, dampening, weight_decay,
                             nesterov)
    _C.sgd(param, grad, lr, accum, momentum, stat, dampening, weight_decay, nesterov)
    return param


@register_kernel("Adam", provider="cpp", dtypes=FLOATS, alloc="kernel")
def adam_cpp(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking,
             use_nesterov):
    if not _ok(var, m, v):
        return ref.adam_numpy(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                              grad, use_locking, use_nesterov)
    _C.adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov)
    return var, m, v


@register_kernel("AdamWeightDecay", provider="cpp", dtypes=FLOATS, alloc="kernel")
def adam_weight_decay_cpp(var, m, v, lr, beta1, beta2, epsilon, decay, grad, use_locking):
    if not _ok(var, m, v):
        return ref.adam_weight_decay_numpy(var, m, v, lr, beta1, beta2, epsilon, decay, grad,
                                           use_locking)
    _C.adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, grad)
    return var, m, v
