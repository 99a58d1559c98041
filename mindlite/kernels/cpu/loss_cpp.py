"""C++ kernels (mindlite._C, csrc/kernels/loss_kernels.cc, entry points csrc/bind/loss_bind.cc)
for loss_ops: SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits, NLLLoss and
NLLLossGrad, float32/float64.

Each registered callable is the _C builtin itself (no Python frame in the call): the entry
point checks every argument and the labels (the numpy kernel's ValueError for a label outside
[0, C), raised before anything is written), then runs. The cross-entropy loops make one pass
per row on the CPU's widest vectors (simd_math.h's exp, within ~2 ulp of np.exp), accumulate
sums in float64 and split rows over the thread pool above the parallel threshold; results are
the same at every thread count and match loss_numpy.py to rounding (NLL's unreduced loss and
NLLLossGrad bitwise). They replace the numba kernels (loss_numba.py, kept below as a fallback)
at every size measured. benchmarks/hot_kernels.py --clock cpu --threads 1, float32, µs of CPU
per launch, numpy / numba / cpp, on the shared 2-core AVX2 VM:
  SoftmaxCrossEntropyWithLogits 64x10: 55 / 6.0 / 3.9; 512x1000: 4114 / 3523 / 889
  SparseSoftmaxCrossEntropyWithLogits 512x1000: 2324 / 2832 / 621; gradient 2993 / 3575 / 808
  NLLLoss (mean) 512x1000: 73 / 8.8 / 3.2
Above the parallel threshold the rows also split over the pool's threads.
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)

register_kernel("SoftmaxCrossEntropyWithLogits", provider="cpp", dtypes=FLOATS)(
    _C.softmax_cross_entropy_with_logits_cpp)
register_kernel("SparseSoftmaxCrossEntropyWithLogits", provider="cpp", dtypes=FLOATS)(
    _C.sparse_softmax_cross_entropy_with_logits_cpp)
register_kernel("NLLLoss", provider="cpp", dtypes=FLOATS)(_C.nll_loss_cpp)
register_kernel("NLLLossGrad", provider="cpp", dtypes=FLOATS)(_C.nll_loss_grad_cpp)
