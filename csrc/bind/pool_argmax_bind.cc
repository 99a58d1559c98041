// Fast-call (METH_FASTCALL) entry points of the max-pooling-with-argmax loops
// (kernels/pool_argmax.h); what kernels/cpu/pool_cpp.py calls for MaxPoolWithArgmaxV2 and its
// gradients:
//   _C.max_pool_argmax(x, out, argmax, kh, kw, sh, sw, dh, dw, top, left)
//   _C.max_pool_grad_argmax(grad, argmax, dx)        grad, argmax (N, C, OH, OW), dx of x
//   _C.max_pool_grad_grad_argmax(grad, argmax, y)    grad of x (N, C, H, W), y (N, C, OH, OW)
// Float arrays: 4-D, one float dtype (float32/float64), aligned and C-contiguous; argmax:
// int32/int64 of out's shape, aligned and C-contiguous; out, argmax (forward), dx and y
// writeable. kh, kw, sh, sw, dh, dw ints in [1, 2**40], top, left in [0, 2**40]; every
// position a window reads is bounds-checked, and the index arithmetic is checked not to
// overflow. The gradients check each argmax index against the plane, [0, H W): one outside
// raises ValueError (naming the op, the index and where it is) after the loops ran (their
// outputs are fresh buffers). Everything else is checked before any memory is touched:
// TypeError / ValueError "For 'mindlite._C.max_pool_argmax', 'arg' ...". The GIL is held.
#include "bind/array_args.h"
#include "bind/pool_bind.h"
#include "kernels/pool_argmax.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

// An int32/int64 4-D array of shape `want`, aligned, C-contiguous (writeable when `write`);
// *is64 says which. nullptr with TypeError / ValueError.
PyArrayObject* index_array(const Ctx& cx, const char* arg, PyObject* o, const npy_intp* want,
                           const char* what, bool write, bool* is64) {
  if (!PyArray_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a numpy.ndarray, but got %s", cx.fn,
                 arg, Py_TYPE(o)->tp_name);
    return nullptr;
  }
  PyArrayObject* a = reinterpret_cast<PyArrayObject*>(o);
  const int dt = array_dtype(a);
  if (dt != kI32 && dt != kI64) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' dtype must be int32 or int64, but got %R",
                 cx.fn, arg, reinterpret_cast<PyObject*>(PyArray_DESCR(a)));
    return nullptr;
  }
  *is64 = dt == kI64;
  const npy_intp* s = PyArray_DIMS(a);
  if (PyArray_NDIM(a) != 4 || s[0] != want[0] || s[1] != want[1] || s[2] != want[2] ||
      s[3] != want[3]) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' shape must be %s (the shape of %s), but got "
                 "%s", cx.fn, arg, shape_str(4, want).c_str(), what,
                 shape_str(PyArray_NDIM(a), s).c_str());
    return nullptr;
  }
  const char* why = !PyArray_IS_C_CONTIGUOUS(a) ? "C-contiguous"
                    : !PyArray_ISALIGNED(a) ? "aligned"
                    : write && !PyArray_ISWRITEABLE(a) ? "writeable (it is read-only)"
                    : nullptr;
  if (why) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be %s", cx.fn, arg, why);
    return nullptr;
  }
  return a;
}

// The windows' reach, (OH - 1) sh + (kh - 1) dh + top (and the width's), at most 2**62.
bool reach_ok(const Ctx& cx, const PoolGeom& g) {
  const int64_t o[2] = {g.oh, g.ow}, k[2] = {g.kh, g.kw}, s[2] = {g.sh, g.sw},
                d[2] = {g.dh, g.dw}, p[2] = {g.top, g.left};
  for (int i = 0; i < 2; ++i) {
    const __int128 reach = static_cast<__int128>(o[i]) * s[i] +
                           static_cast<__int128>(k[i] - 1) * d[i] + p[i];
    if (reach > (static_cast<__int128>(1) << 62)) {
      PyErr_Format(PyExc_ValueError, "For '%s', the windows reach too far: %lld outputs with "
                   "%s kernel %lld, stride %lld, dilation %lld", cx.fn,
                   static_cast<long long>(o[i]), i ? "column" : "row",
                   static_cast<long long>(k[i]), static_cast<long long>(s[i]),
                   static_cast<long long>(d[i]));
      return false;
    }
  }
  return true;
}

template <typename T>
void fwd(PyArrayObject* x, PyArrayObject* out, PyArrayObject* arg, bool is64,
         const PoolGeom& g) {
  if (is64) {
    max_pool_argmax<T, int64_t>(data<T>(x), data<T>(out), data<int64_t>(arg), g);
  } else {
    max_pool_argmax<T, int32_t>(data<T>(x), data<T>(out), data<int32_t>(arg), g);
  }
}

template <typename T, typename I>
int64_t grads_i(PyArrayObject* grad, PyArrayObject* arg, PyArrayObject* res, bool grad_is_x,
                const PoolGeom& g) {
  return grad_is_x ? max_pool_grad_grad_argmax<T, I>(data<T>(grad), data<I>(arg), data<T>(res), g)
                   : max_pool_grad_argmax<T, I>(data<T>(grad), data<I>(arg), data<T>(res), g);
}

template <typename T>
int64_t grads(PyArrayObject* grad, PyArrayObject* arg, PyArrayObject* res, bool is64,
              bool grad_is_x, const PoolGeom& g) {
  return is64 ? grads_i<T, int64_t>(grad, arg, res, grad_is_x, g)
              : grads_i<T, int32_t>(grad, arg, res, grad_is_x, g);
}

PyObject* py_max_pool_argmax(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.max_pool_argmax"};
  if (!nargs_ok(cx, nargs, 11, "(x, out, argmax, kh, kw, sh, sw, dh, dw, top, left)")) {
    return nullptr;
  }
  PyArrayObject* x = float_array(&cx, "x", args[0], 4, false);
  PyArrayObject* out = x ? float_array(&cx, "out", args[1], 4, true) : nullptr;
  if (!out) return nullptr;
  const npy_intp* s = PyArray_DIMS(x);
  const npy_intp* so = PyArray_DIMS(out);
  if (so[0] != s[0] || so[1] != s[1]) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'out' shape %s must have 'x' shape %s's N and C",
                 cx.fn, shape_str(4, so).c_str(), shape_str(4, s).c_str());
    return nullptr;
  }
  bool is64 = false;
  PyArrayObject* arg = index_array(cx, "argmax", args[2], so, "'out'", true, &is64);
  if (!arg) return nullptr;
  static const char* const kNames[8] = {"kh", "kw", "sh", "sw", "dh", "dw", "top", "left"};
  int64_t v[8];
  for (int i = 0; i < 8; ++i) {
    if (!int_arg(cx, kNames[i], args[3 + i], i < 6 ? 1 : 0, &v[i])) return nullptr;
  }
  const PoolGeom g{s[0] * s[1], s[2], s[3], so[2], so[3], v[0], v[1], v[2], v[3], v[4], v[5],
                   v[6], v[7]};
  if (!reach_ok(cx, g)) return nullptr;
  if (cx.dt == kF32) {
    fwd<float>(x, out, arg, is64, g);
  } else {
    fwd<double>(x, out, arg, is64, g);
  }
  Py_RETURN_NONE;
}

// (grad, argmax, res): `grad_is_x` says whether grad has x's shape (the grad-grad) or
// res has it (the grad). Runs the loop; ValueError for an index outside its plane.
PyObject* grad_common(Ctx* cx, const char* op, PyObject* const* args, Py_ssize_t nargs,
                      bool grad_is_x) {
  if (!nargs_ok(*cx, nargs, 3, grad_is_x ? "(grad, argmax, y)" : "(grad, argmax, dx)")) {
    return nullptr;
  }
  const char* res_name = grad_is_x ? "y" : "dx";
  PyArrayObject* grad = float_array(cx, "grad", args[0], 4, false);
  PyArrayObject* res = grad ? float_array(cx, res_name, args[2], 4, true) : nullptr;
  if (!res) return nullptr;
  PyArrayObject* xs = grad_is_x ? grad : res;   // x's shape
  PyArrayObject* os = grad_is_x ? res : grad;   // the pooling output's shape
  const npy_intp* sx = PyArray_DIMS(xs);
  const npy_intp* so = PyArray_DIMS(os);
  if (sx[0] != so[0] || sx[1] != so[1]) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'grad' shape %s and '%s' shape %s must have the "
                 "same N and C", cx->fn, shape_str(4, PyArray_DIMS(grad)).c_str(), res_name,
                 shape_str(4, PyArray_DIMS(res)).c_str());
    return nullptr;
  }
  bool is64 = false;
  PyArrayObject* arg = index_array(*cx, "argmax", args[1], so,
                                   grad_is_x ? "'y'" : "'grad'", false, &is64);
  if (!arg) return nullptr;
  const PoolGeom g{sx[0] * sx[1], sx[2], sx[3], so[2], so[3], 1, 1, 1, 1, 1, 1, 0, 0};
  const int64_t bad = cx->dt == kF32 ? grads<float>(grad, arg, res, is64, grad_is_x, g)
                                     : grads<double>(grad, arg, res, is64, grad_is_x, g);
  if (bad < 0) Py_RETURN_NONE;
  const long long val = is64 ? static_cast<long long>(data<int64_t>(arg)[bad])
                             : static_cast<long long>(data<int32_t>(arg)[bad]);
  const int64_t ohw = so[2] * so[3];
  const npy_intp at[4] = {bad / ohw / so[1], bad / ohw % so[1], bad % ohw / so[3],
                          bad % so[3]};
  PyErr_Format(PyExc_ValueError, "For '%s', 'argmax' must hold flat indices into an input "
               "plane, in [0, %lld) (H x W = %lld x %lld), but got %lld at %s", op,
               static_cast<long long>(sx[2] * sx[3]), static_cast<long long>(sx[2]),
               static_cast<long long>(sx[3]), val, shape_str(4, at).c_str());
  return nullptr;
}

PyObject* py_max_pool_grad_argmax(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.max_pool_grad_argmax"};
  return grad_common(&cx, "MaxPoolGradWithArgmaxV2", args, nargs, false);
}

PyObject* py_max_pool_grad_grad_argmax(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.max_pool_grad_grad_argmax"};
  return grad_common(&cx, "MaxPoolGradGradWithArgmax", args, nargs, true);
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"max_pool_argmax", MINDLITE_FASTCALL(py_max_pool_argmax),
     "max_pool_argmax(x, out, argmax, kh, kw, sh, sw, dh, dw, top, left): out = each window's "
     "first maximum (NaN is the maximum), argmax = its flat index in the input plane."},
    {"max_pool_grad_argmax", MINDLITE_FASTCALL(py_max_pool_grad_argmax),
     "max_pool_grad_argmax(grad, argmax, dx): dx = 0, then grad added at argmax in each "
     "plane."},
    {"max_pool_grad_grad_argmax", MINDLITE_FASTCALL(py_max_pool_grad_grad_argmax),
     "max_pool_grad_grad_argmax(grad, argmax, y): y = grad read at argmax in each plane."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_pool_argmax_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
