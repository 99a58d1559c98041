// Fast-call entry points of the BatchNorm kernels (kernels/batch_norm.h), called by
// mindlite/kernels/cpu/batch_norm_cpp.py:
//   _C.batch_norm(x, scale, bias, mean, variance, y, batch_mean, batch_var, act, is_training,
//                 epsilon, momentum)
//       x / y (N, C, S...) of one float dtype, every other array (C,); training writes the
//       moving mean / variance in place and the batch statistics to batch_mean / batch_var,
//       inference reads mean / variance; act 0 none, 1 ReLU, 2 ReLU6 applied to y
//   _C.batch_norm_grad(dy, x, y, scale, save_mean, save_var, dx, dscale, dbias, act,
//                      is_training, epsilon)
//       y: the forward's output (its activation's gradient is applied to dy first), or None
//       with act 0
// Every array must be C-contiguous and aligned (the outputs and the moving statistics also
// writeable); shapes and dtypes are checked before any memory is touched. The loops run
// without the GIL.
#include "bind/batch_norm_bind.h"

#include "bind/array_args.h"
#include "kernels/batch_norm.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

// x-like: C-contiguous float array of 2..5 dims; its (N, C, S) shape.
PyArrayObject* data_arg(Ctx* cx, const char* arg, PyObject* o, bool write, BnShape* sh) {
  PyArrayObject* a = float_typed(cx, arg, o);
  if (!a) return nullptr;
  const int nd = PyArray_NDIM(a);
  if (nd < 2 || nd > 5) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be 2-D to 5-D, but got %d-D", cx->fn,
                 arg, nd);
    return nullptr;
  }
  a = float_array(cx, arg, o, nd, write);
  if (!a) return nullptr;
  if (sh) {
    const npy_intp* d = PyArray_DIMS(a);
    int64_t s = 1;
    for (int i = 2; i < nd; ++i) s *= d[i];
    *sh = BnShape{d[0], d[1], s};
  }
  return a;
}

bool same_shape(const Ctx& cx, const char* arg, PyArrayObject* a, PyArrayObject* like) {
  return shape_is(cx, arg, a, PyArray_NDIM(like), PyArray_DIMS(like));
}

// A (C,) C-contiguous float array of the context's dtype.
PyArrayObject* vec_arg(Ctx* cx, const char* arg, PyObject* o, int64_t c, bool write) {
  PyArrayObject* a = float_array(cx, arg, o, 1, write);
  const npy_intp want[1] = {static_cast<npy_intp>(c)};
  return a && shape_is(*cx, arg, a, 1, want) ? a : nullptr;
}

bool act_arg(const Ctx& cx, PyObject* o, int64_t* act) {
  if (!int_arg(cx, "act", o, 0, act)) return false;
  if (*act > 2) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'act' must be 0, 1 or 2, but got %lld", cx.fn,
                 static_cast<long long>(*act));
    return false;
  }
  return true;
}

bool double_arg(const Ctx& cx, const char* arg, PyObject* o, double* v) {
  *v = PyFloat_AsDouble(o);
  if (*v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a float, but got %R", cx.fn, arg, o);
    return false;
  }
  return true;
}

PyObject* py_batch_norm(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.batch_norm"};
  if (!nargs_ok(cx, nargs, 12, "(x, scale, bias, mean, variance, y, batch_mean, batch_var, "
                "act, is_training, epsilon, momentum)")) {
    return nullptr;
  }
  BnShape sh;
  PyArrayObject* x = data_arg(&cx, "x", args[0], false, &sh);
  bool training = false;
  if (!x || !bool_arg(CallSite{cx.fn, "BatchNorm"}, "is_training", args[9], &training)) {
    return nullptr;
  }
  PyArrayObject* v[7] = {};
  static const char* const names[7] = {"scale", "bias", "mean", "variance", "y", "batch_mean",
                                       "batch_var"};
  for (int i = 0; i < 7; ++i) {
    if (i == 4) {
      v[i] = data_arg(&cx, "y", args[5], true, nullptr);
      if (!v[i] || !same_shape(cx, "y", v[i], x)) return nullptr;
      continue;
    }
    const bool write = i >= 5 || (training && (i == 2 || i == 3));
    v[i] = vec_arg(&cx, names[i], args[i + 1], sh.c, write);
    if (!v[i]) return nullptr;
  }
  int64_t act;
  double eps, momentum;
  if (!act_arg(cx, args[8], &act) || !double_arg(cx, "epsilon", args[10], &eps) ||
      !double_arg(cx, "momentum", args[11], &momentum)) {
    return nullptr;
  }
  if (training && sh.n * sh.s == 0) {
    PyErr_Format(PyExc_ValueError, "For '%s', training needs at least one value per channel",
                 cx.fn);
    return nullptr;
  }
  const int threads = batch_norm_threads(sh.n * sh.c * sh.s, sh.c);
  Py_BEGIN_ALLOW_THREADS
  MINDLITE_FLOAT_DISPATCH(cx.dt, {
    if (training) {
      batch_norm_train<T>(data<T>(x), data<T>(v[0]), data<T>(v[1]), data<T>(v[2]),
                          data<T>(v[3]), data<T>(v[4]), data<T>(v[5]), data<T>(v[6]), sh, eps,
                          momentum, static_cast<int>(act), threads);
    } else {
      batch_norm_infer<T>(data<T>(x), data<T>(v[0]), data<T>(v[1]), data<T>(v[2]),
                          data<T>(v[3]), data<T>(v[4]), sh, eps, static_cast<int>(act),
                          threads);
      for (int64_t c = 0; c < sh.c; ++c) {
        data<T>(v[5])[c] = data<T>(v[2])[c];
        data<T>(v[6])[c] = data<T>(v[3])[c];
      }
    }
  });
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

PyObject* py_batch_norm_grad(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.batch_norm_grad"};
  if (!nargs_ok(cx, nargs, 12, "(dy, x, y, scale, save_mean, save_var, dx, dscale, dbias, "
                "act, is_training, epsilon)")) {
    return nullptr;
  }
  BnShape sh;
  PyArrayObject* dy = data_arg(&cx, "dy", args[0], false, &sh);
  PyArrayObject* x = dy ? data_arg(&cx, "x", args[1], false, nullptr) : nullptr;
  int64_t act;
  if (!x || !same_shape(cx, "x", x, dy) || !act_arg(cx, args[9], &act)) return nullptr;
  PyArrayObject* y = nullptr;
  if (act) {
    y = data_arg(&cx, "y", args[2], false, nullptr);
    if (!y || !same_shape(cx, "y", y, dy)) return nullptr;
  }
  PyArrayObject* scale = vec_arg(&cx, "scale", args[3], sh.c, false);
  PyArrayObject* mean = scale ? vec_arg(&cx, "save_mean", args[4], sh.c, false) : nullptr;
  PyArrayObject* var = mean ? vec_arg(&cx, "save_var", args[5], sh.c, false) : nullptr;
  PyArrayObject* dx = var ? data_arg(&cx, "dx", args[6], true, nullptr) : nullptr;
  if (!dx || !same_shape(cx, "dx", dx, dy)) return nullptr;
  PyArrayObject* ds = vec_arg(&cx, "dscale", args[7], sh.c, true);
  PyArrayObject* db = ds ? vec_arg(&cx, "dbias", args[8], sh.c, true) : nullptr;
  bool training = false;
  double eps;
  if (!db || !bool_arg(CallSite{cx.fn, "BatchNormGrad"}, "is_training", args[10], &training) ||
      !double_arg(cx, "epsilon", args[11], &eps)) {
    return nullptr;
  }
  const int threads = batch_norm_threads(sh.n * sh.c * sh.s, sh.c);
  Py_BEGIN_ALLOW_THREADS
  MINDLITE_FLOAT_DISPATCH(cx.dt, batch_norm_grad<T>(
      data<T>(dy), data<T>(x), y ? data<T>(y) : nullptr, data<T>(scale), data<T>(mean),
      data<T>(var), data<T>(dx), data<T>(ds), data<T>(db), sh, eps, training,
      static_cast<int>(act), threads));
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"batch_norm", MINDLITE_FASTCALL(py_batch_norm),
     "batch_norm(x, scale, bias, mean, variance, y, batch_mean, batch_var, act, is_training, "
     "epsilon, momentum): BatchNorm (+ ReLU / ReLU6) of an (N, C, ...) array."},
    {"batch_norm_grad", MINDLITE_FASTCALL(py_batch_norm_grad),
     "batch_norm_grad(dy, x, y, scale, save_mean, save_var, dx, dscale, dbias, act, "
     "is_training, epsilon): BatchNormGrad (after the activation's gradient from y)."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_batch_norm_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
