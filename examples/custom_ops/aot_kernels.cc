// AOT kernels for ops.Custom(func_type="aot"), written against MindSpore's custom-op C ABI, so
// the same file loads in MindSpore and in mindlite unchanged:
//
//   extern "C" int f(int nparam, void **params, int *ndims, int64_t **shapes,
//                    const char **dtypes, void *stream, void *extra);
//
// params holds the inputs then the outputs (C-contiguous buffers); ndims/shapes/dtypes
// describe each of them ("float32", "float64", "int32", ...). Return 0 on success; any
// other value is reported by the framework as an error naming the op.
// mindlite compiles this file with `g++ -O2 -shared -fPIC -std=c++17` on first use.
#include <cstdint>
#include <cstring>

namespace {

int64_t NumElements(int ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

bool SameShape(int nd0, const int64_t *s0, int nd1, const int64_t *s1) {
  if (nd0 != nd1) return false;
  for (int i = 0; i < nd0; ++i) {
    if (s0[i] != s1[i]) return false;
  }
  return true;
}

template <typename T>
void AddMul(const T *x, const T *y, T *sum, T *prod, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    sum[i] = x[i] + y[i];
    prod[i] = x[i] * y[i];
  }
}

}  // namespace

// (x, y) -> (x + y, x * y), x and y of one shape, float32 or float64. Returns 1 for a wrong
// parameter count, 2 for mismatched shapes, 3 for an unsupported dtype.
extern "C" int CustomAddMul(int nparam, void **params, int *ndims, int64_t **shapes,
                            const char **dtypes, void *stream, void *extra) {
  (void)stream;
  (void)extra;
  if (nparam != 4) return 1;
  for (int i = 1; i < 4; ++i) {
    if (!SameShape(ndims[0], shapes[0], ndims[i], shapes[i])) return 2;
    if (std::strcmp(dtypes[0], dtypes[i]) != 0) return 3;
  }
  int64_t n = NumElements(ndims[0], shapes[0]);
  if (std::strcmp(dtypes[0], "float32") == 0) {
    AddMul(static_cast<const float *>(params[0]), static_cast<const float *>(params[1]),
           static_cast<float *>(params[2]), static_cast<float *>(params[3]), n);
  } else if (std::strcmp(dtypes[0], "float64") == 0) {
    AddMul(static_cast<const double *>(params[0]), static_cast<const double *>(params[1]),
           static_cast<double *>(params[2]), static_cast<double *>(params[3]), n);
  } else {
    return 3;
  }
  return 0;
}
