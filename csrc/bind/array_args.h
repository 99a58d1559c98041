// Argument checks shared by the fast-call kernel entry points (the elementwise, matmul, arg,
// reduce, loss, optim, conv and pool _bind.cc files). Every check runs before any memory is
// touched; a failed check sets a TypeError / ValueError naming the function, the op, the
// argument and what was wrong, and returns false / nullptr.
#pragma once

#include <string>

#include "bind/numpy_api.h"
#include "kernels/elementwise.h"

namespace mindlite {

static_assert(sizeof(npy_intp) == sizeof(int64_t), "npy_intp must be 64-bit");

// The context an error message names: "For 'mindlite._C.binary' (op 'Add'), ..."
struct CallSite {
  const char* fn;
  const char* op;
};

std::string shape_str(int nd, const npy_intp* shape);

// `o` must be an ndarray; returns it, or nullptr with TypeError.
PyArrayObject* as_array(const CallSite& cs, const char* arg, PyObject* o);

// The kernel dtype of `a` (native byte order float32/float64/int32/int64/bool), or -1.
int array_dtype(PyArrayObject* a);

// TypeError "'arg' dtype must be ..., but got ..." listing the dtypes the op supports.
void dtype_error(const CallSite& cs, const char* arg, PyArrayObject* a, const bool* supported);

// out must be writeable, C-contiguous and aligned (ValueError otherwise).
bool check_out(const CallSite& cs, PyArrayObject* out);

// A new reference to an array holding `a`'s values that is aligned and does not partially
// overlap `out` (a copy when needed); `same_ok`: `a` may be `out` element for element.
PyArrayObject* readable(PyArrayObject* a, PyArrayObject* out, bool same_ok);

Operand operand_of(PyArrayObject* a, int64_t n);

// Op code from a Python int in [0, count), or -1 with TypeError / ValueError.
int op_code(const CallSite& cs, PyObject* o, int count);

// `o` must be a bool (TypeError "'arg' must be a bool, but got ..." otherwise).
bool bool_arg(const CallSite& cs, const char* arg, PyObject* o, bool* v);

// Reads one axis in [0, nd) for axes_arg, in the caller's wording; false with an error set.
using AxisReader = bool (*)(const CallSite& cs, PyObject* o, int nd, long* v);

// 'axis': a tuple or list of sorted, distinct axes, each read by `read`; sets reduced[axis]
// (reduced[0, nd) false on entry) and *count. false with TypeError / ValueError.
bool axes_arg(const CallSite& cs, PyObject* ax, int nd, AxisReader read, bool* reduced,
              Py_ssize_t* count);

// ---- the float loop entry points (conv, pool, loss, optim _bind.cc) -----------------------
// Their context: the function named in errors and the float dtype the first array fixed.
struct FloatCtx {
  const char* fn;
  int dt = -1;  // kF32 / kF64 once the first array is checked
};

// TypeError unless nargs == want ("expected 4 arguments (x, xp, top, left), but got 3").
bool nargs_ok(const FloatCtx& cx, Py_ssize_t nargs, Py_ssize_t want, const char* sig);

// A float32/float64 ndarray (of the context's dtype once set; the first one checked sets it),
// any shape and layout; or nullptr with TypeError.
PyArrayObject* float_typed(FloatCtx* cx, const char* arg, PyObject* o);

// float_typed with nd dims (any layout); or nullptr with TypeError / ValueError.
PyArrayObject* float_nd(FloatCtx* cx, const char* arg, PyObject* o, int nd);

// An nd-D float32/float64 array (of the context's dtype once set), aligned and C-contiguous,
// writeable when `write`; or nullptr with TypeError / ValueError.
PyArrayObject* float_array(FloatCtx* cx, const char* arg, PyObject* o, int nd, bool write);

// `a` has shape want[0, nd); false with ValueError "'arg' shape must be ..., but got ...".
bool shape_is(const FloatCtx& cx, const char* arg, PyArrayObject* a, int nd,
              const npy_intp* want);

// A new reference: `a`'s values C-contiguous and aligned, sharing no memory with o1 / o2 (o2
// may be null); `a` itself when it already is all that. nullptr with an error.
PyArrayObject* dense_in(PyArrayObject* a, PyArrayObject* o1, PyArrayObject* o2);

// An int (any object with __index__) in [lo, 2**40].
bool int_arg(const FloatCtx& cx, const char* arg, PyObject* o, int64_t lo, int64_t* v);

template <typename T>
T* data(PyArrayObject* a) {
  return reinterpret_cast<T*>(PyArray_DATA(a));
}

// Runs `call` with T = float or double by the context's dtype.
#define MINDLITE_FLOAT_DISPATCH(dt, call) \
  do {                                    \
    if ((dt) == kF32) {                   \
      using T = float;                    \
      call;                               \
    } else {                              \
      using T = double;                   \
      call;                               \
    }                                     \
  } while (0)

}  // namespace mindlite
