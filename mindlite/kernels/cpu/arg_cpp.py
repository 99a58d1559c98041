"""C++ kernels (mindlite._C, csrc/kernels/arg_kernels.cc, entry points csrc/bind/arg_bind.cc)
for reduce_ops' arg- and logical reductions: Argmax, Argmin, ArgMaxWithValue,
ArgMinWithValue (float32/float64/int32/int64) and ReduceAll, ReduceAny (bool).

Each registered callable is the _C builtin itself: fn(x, out, axis) and
fn(x, out_index, out_values, axis, keep_dims) for the arg-reductions (axis one non-negative
int), fn(x, out, axis, keep_dims) for the logical ones (axis the sorted tuple kernel_params
gives). Same results as reduce_numpy.py (bitwise: indices and values are picked, not
computed): the index of the first extreme, the first NaN winning as in np.argmax. Float rows
are scanned once on the ISA's native vectors (four accumulators of each lane's running extreme
and where it first was, then a lane reduction); columns keep one running extreme per lane.
Inputs not in C order, or sharing memory with an output, are copied first. They replace the numba
kernels (reduce_numba.py, kept below as a fallback), which lost to numpy by up to 10x on
Argmax. benchmarks/hot_kernels.py --clock cpu --threads 1, float32, µs of CPU per launch,
numpy / numba / cpp, on the shared 2-core AVX2 VM:
  Argmax 512x1000 over rows 71 / 745 / 72 (numpy's own vector loop: even per thread; the pool's
  threads split larger launches), over columns 475 / 980 / 161; 64x10 4.4 / 5.5 / 0.7
  Argmax 4096x100 over rows 240 / 1651 / 166; ArgMaxWithValue 512x1000 rows 133 / 878 / 80
  ReduceAll / ReduceAny 64x10 6 / 3 / 0.3-0.8; 1000x1000 over columns 54-64 / 48-53 / 46-51
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

NUMBERS = (mstype.float32, mstype.float64, mstype.int32, mstype.int64)

register_kernel("Argmax", provider="cpp", dtypes=NUMBERS)(_C.argmax_cpp)
register_kernel("Argmin", provider="cpp", dtypes=NUMBERS)(_C.argmin_cpp)
register_kernel("ArgMaxWithValue", provider="cpp", dtypes=NUMBERS)(_C.arg_max_with_value_cpp)
register_kernel("ArgMinWithValue", provider="cpp", dtypes=NUMBERS)(_C.arg_min_with_value_cpp)
register_kernel("ReduceAll", provider="cpp", dtypes=(mstype.bool_,))(_C.reduce_all_cpp)
register_kernel("ReduceAny", provider="cpp", dtypes=(mstype.bool_,))(_C.reduce_any_cpp)
