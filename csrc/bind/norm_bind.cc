// _C.layer_norm(x, gamma, beta, y, mean, variance, epsilon) and
// _C.layer_norm_grad(x, dy, variance, mean, gamma, dx, dgamma, dbeta, epsilon): the rows of a
// 2-D x (R, D) normalised over D with a gamma / beta of D (kernels/layer_norm.h). Arrays:
// float32 or float64, one dtype, aligned and C-contiguous; x / dy / y / dx (R, D), mean /
// variance (R,), gamma / beta / dgamma / dbeta (D,); outputs writeable. Every check runs
// before any memory is touched: TypeError / ValueError "For 'mindlite._C.layer_norm', ...".
#include "bind/norm_bind.h"

#include "bind/array_args.h"
#include "kernels/layer_norm.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

bool eps_arg(const Ctx& cx, PyObject* o, double* eps) {
  *eps = PyFloat_AsDouble(o);
  if (*eps == -1.0 && PyErr_Occurred()) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'epsilon' must be a float", cx.fn);
    return false;
  }
  if (!(*eps >= 0)) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'epsilon' must be >= 0, but got %g", cx.fn, *eps);
    return false;
  }
  return true;
}

// The arrays named in `names`, their dims (2: rows x cols, 'r': rows, 'c': cols) in `kinds`;
// outputs from index `first_out` on. False with an error.
bool arrays(Ctx* cx, PyObject* const* args, int n, const char* const* names, const char* kinds,
            int first_out, PyArrayObject** a, npy_intp* rows, npy_intp* cols) {
  for (int i = 0; i < n; ++i) {
    a[i] = float_array(cx, names[i], args[i], kinds[i] == '2' ? 2 : 1, i >= first_out);
    if (!a[i]) return false;
  }
  *rows = PyArray_DIM(a[0], 0);
  *cols = PyArray_DIM(a[0], 1);
  for (int i = 1; i < n; ++i) {
    const npy_intp two[2] = {*rows, *cols};
    const npy_intp one[1] = {kinds[i] == 'r' ? *rows : *cols};
    if (!(kinds[i] == '2' ? shape_is(*cx, names[i], a[i], 2, two)
                          : shape_is(*cx, names[i], a[i], 1, one))) {
      return false;
    }
  }
  return true;
}

PyObject* py_layer_norm(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.layer_norm"};
  if (!nargs_ok(cx, nargs, 7, "(x, gamma, beta, y, mean, variance, epsilon)")) return nullptr;
  static const char* const kNames[6] = {"x", "gamma", "beta", "y", "mean", "variance"};
  PyArrayObject* a[6];
  npy_intp rows, cols;
  double eps;
  if (!arrays(&cx, args, 6, kNames, "2cc2rr", 3, a, &rows, &cols) ||
      !eps_arg(cx, args[6], &eps)) {
    return nullptr;
  }
  MINDLITE_FLOAT_DISPATCH(cx.dt, layer_norm<T>(data<T>(a[0]), data<T>(a[1]), data<T>(a[2]),
                                               data<T>(a[3]), data<T>(a[4]), data<T>(a[5]),
                                               rows, cols, eps));
  Py_RETURN_NONE;
}

PyObject* py_layer_norm_grad(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.layer_norm_grad"};
  if (!nargs_ok(cx, nargs, 9,
                "(x, dy, variance, mean, gamma, dx, dgamma, dbeta, epsilon)")) {
    return nullptr;
  }
  static const char* const kNames[8] = {"x", "dy", "variance", "mean", "gamma", "dx",
                                        "dgamma", "dbeta"};
  PyArrayObject* a[8];
  npy_intp rows, cols;
  double eps;
  if (!arrays(&cx, args, 8, kNames, "22rrc2cc", 5, a, &rows, &cols) ||
      !eps_arg(cx, args[8], &eps)) {
    return nullptr;
  }
  MINDLITE_FLOAT_DISPATCH(cx.dt, layer_norm_grad<T>(data<T>(a[0]), data<T>(a[1]),
                                                    data<T>(a[2]), data<T>(a[3]),
                                                    data<T>(a[4]), data<T>(a[5]),
                                                    data<T>(a[6]), data<T>(a[7]), rows, cols,
                                                    eps));
  Py_RETURN_NONE;
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_norm_functions[] = {
    {"layer_norm", MINDLITE_FASTCALL(py_layer_norm),
     "layer_norm(x, gamma, beta, y, mean, variance, epsilon): LayerNorm of the rows of x."},
    {"layer_norm_grad", MINDLITE_FASTCALL(py_layer_norm_grad),
     "layer_norm_grad(x, dy, variance, mean, gamma, dx, dgamma, dbeta, epsilon): "
     "LayerNormGrad of the rows of x."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_norm_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_norm_functions) == 0;
}

}  // namespace mindlite
