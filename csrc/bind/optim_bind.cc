// Fast-call (METH_FASTCALL) entry points of the in-place optimizer updates
// (kernels/optim_kernels.h), called by kernels/cpu/optim_cpp.py:
//   _C.apply_momentum(var, accum, lr, grad, momentum, use_nesterov, gradient_scale)
//   _C.sgd(param, grad, lr, accum, momentum, stat, dampening, weight_decay, nesterov)
//   _C.adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov)
//   _C.adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, grad)
// The state arrays (var, accum, m, v, stat, param) are updated in place: they must be
// float32/float64 of one dtype and shape, C-contiguous, aligned and writeable (the caller
// routes any other layout to the numpy kernel). grad has their dtype and shape, any layout
// (copied when needed, or when it shares memory with a state array). Hyper-parameters are
// size-1 float arrays, converted to the state's dtype as numpy's dtype.type(x) does; the
// attributes are Python bools / floats. Everything is checked before any state is written:
// TypeError / ValueError "For 'mindlite._C.<fn>', ...".
#include <cmath>

#include "bind/array_args.h"
#include "bind/train_bind.h"
#include "kernels/optim_kernels.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// A state array: float of the context's dtype, `ref`'s shape (when given), C-contiguous,
// aligned, writeable.
PyArrayObject* state_arg(FloatCtx* cx, const char* arg, PyObject* o, PyArrayObject* ref) {
  PyArrayObject* a = float_typed(cx, arg, o);
  if (a && ref) {
    const int nd = PyArray_NDIM(ref);
    bool same = PyArray_NDIM(a) == nd;
    for (int d = 0; same && d < nd; ++d) same = PyArray_DIMS(a)[d] == PyArray_DIMS(ref)[d];
    if (!same) {
      PyErr_Format(PyExc_ValueError, "For '%s', '%s' shape must be %s (the variable's), but got "
                   "%s", cx->fn, arg, shape_str(nd, PyArray_DIMS(ref)).c_str(),
                   shape_str(PyArray_NDIM(a), PyArray_DIMS(a)).c_str());
      return nullptr;
    }
  }
  return a;
}

PyArrayObject* updated_arg(FloatCtx* cx, const char* arg, PyObject* o, PyArrayObject* ref) {
  PyArrayObject* a = state_arg(cx, arg, o, ref);
  if (!a) return nullptr;
  const char* why = !PyArray_IS_C_CONTIGUOUS(a) ? "C-contiguous"
                    : !PyArray_ISALIGNED(a) ? "aligned"
                    : !PyArray_ISWRITEABLE(a) ? "writeable (it is read-only)" : nullptr;
  if (!why) return a;
  PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be %s (it is updated in place)", cx->fn,
               arg, why);
  return nullptr;
}

// A size-1 float hyper-parameter as a double (float16/32/64 widen exactly).
bool hyper(const FloatCtx& cx, const char* arg, PyObject* o, double* v) {
  PyArrayObject* a = PyArray_Check(o) ? reinterpret_cast<PyArrayObject*>(o) : nullptr;
  const int tn = a ? PyArray_DESCR(a)->type_num : -1;
  if (!a || !(tn == NPY_FLOAT || tn == NPY_DOUBLE || tn == NPY_HALF) || PyArray_SIZE(a) != 1) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a size-1 float ndarray, but got %R",
                 cx.fn, arg, o);
    return false;
  }
  PyObject* s = PyArray_GETITEM(a, PyArray_BYTES(a));
  *v = s ? PyFloat_AsDouble(s) : -1.0;
  Py_XDECREF(s);
  return !PyErr_Occurred();
}

bool flag_arg(const FloatCtx& cx, const char* arg, PyObject* o, bool* v) {
  if (!PyBool_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a bool, but got %s", cx.fn, arg,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  *v = o == Py_True;
  return true;
}

bool float_attr(const FloatCtx& cx, const char* arg, PyObject* o, double* v) {
  if (!PyFloat_Check(o) && !(PyLong_Check(o) && !PyBool_Check(o))) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a float, but got %s", cx.fn, arg,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  *v = PyFloat_AsDouble(o);
  return !PyErr_Occurred();
}

// x as the state dtype T (numpy's dtype.type(x)), kept as a double.
double as_t(int dt, double x) {
  return dt == kF32 ? static_cast<double>(static_cast<float>(x)) : x;
}

// Checks grad against var, makes it dense and apart from the state, then runs the update.
PyObject* launch(const FloatCtx& cx, OptimArgs* a, PyObject* grad_o, PyArrayObject* var,
                 PyArrayObject* const* state, int ns) {
  FloatCtx gcx = cx;
  PyArrayObject* g = state_arg(&gcx, "grad", grad_o, var);
  if (!g) return nullptr;
  Py_INCREF(g);
  for (int i = 0; g && i < ns; ++i) {
    PyArrayObject* r = readable(g, state[i], false);
    Py_DECREF(g);
    g = r;
  }
  if (g && !PyArray_IS_C_CONTIGUOUS(g)) {
    PyArrayObject* c = reinterpret_cast<PyArrayObject*>(PyArray_NewCopy(g, NPY_CORDER));
    Py_DECREF(g);
    g = c;
  }
  if (!g) return nullptr;
  a->dt = cx.dt;
  a->n = PyArray_SIZE(var);
  a->grad = PyArray_BYTES(g);
  run_released(optim_parallel(a->n), [a] { run_optim(*a); });
  Py_DECREF(g);
  Py_RETURN_NONE;
}

PyObject* py_apply_momentum(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  FloatCtx cx{"mindlite._C.apply_momentum"};
  if (!nargs_ok(cx, nargs, 7, "(var, accum, lr, grad, momentum, use_nesterov, "
                "gradient_scale)")) {
    return nullptr;
  }
  PyArrayObject* var = updated_arg(&cx, "var", args[0], nullptr);
  PyArrayObject* acc = var ? updated_arg(&cx, "accum", args[1], var) : nullptr;
  OptimArgs a{kApplyMomentum};
  double lr, mom, scale;
  if (!acc || !hyper(cx, "lr", args[2], &lr) || !hyper(cx, "momentum", args[4], &mom) ||
      !flag_arg(cx, "use_nesterov", args[5], &a.flag) ||
      !float_attr(cx, "gradient_scale", args[6], &scale)) {
    return nullptr;
  }
  a.var = PyArray_BYTES(var);
  a.s1 = PyArray_BYTES(acc);
  a.h[0] = as_t(cx.dt, lr);
  a.h[1] = as_t(cx.dt, mom);
  a.h[2] = scale;
  a.flag2 = scale != 1.0;
  PyArrayObject* st[2] = {var, acc};
  return launch(cx, &a, args[3], var, st, 2);
}

PyObject* py_sgd(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  FloatCtx cx{"mindlite._C.sgd"};
  if (!nargs_ok(cx, nargs, 9, "(param, grad, lr, accum, momentum, stat, dampening, "
                "weight_decay, nesterov)")) {
    return nullptr;
  }
  PyArrayObject* p = updated_arg(&cx, "param", args[0], nullptr);
  PyArrayObject* acc = p ? updated_arg(&cx, "accum", args[3], p) : nullptr;
  PyArrayObject* stat = acc ? updated_arg(&cx, "stat", args[5], p) : nullptr;
  OptimArgs a{kSgd};
  double lr, mom, damp, wd;
  if (!stat || !hyper(cx, "lr", args[2], &lr) || !hyper(cx, "momentum", args[4], &mom) ||
      !float_attr(cx, "dampening", args[6], &damp) ||
      !float_attr(cx, "weight_decay", args[7], &wd) ||
      !flag_arg(cx, "nesterov", args[8], &a.flag)) {
    return nullptr;
  }
  a.var = PyArray_BYTES(p);
  a.s1 = PyArray_BYTES(acc);
  a.s2 = PyArray_BYTES(stat);
  a.h[0] = as_t(cx.dt, lr);
  a.h[1] = as_t(cx.dt, mom);
  a.h[2] = 1.0 - damp;
  a.h[3] = wd;
  PyArrayObject* st[3] = {p, acc, stat};
  return launch(cx, &a, args[1], p, st, 3);
}

// The Adam scalars in T arithmetic, as optim_numpy.py computes them.
template <class T>
void adam_hyper(const double* s, bool weight_decay, double* h) {
  const T one = T(1), b1 = T(s[weight_decay ? 1 : 3]), b2 = T(s[weight_decay ? 2 : 4]);
  if (weight_decay) {  // s: lr, beta1, beta2, epsilon, decay
    const double out[5] = {double(T(s[0])), double(one - b1), double(one - b2), double(T(s[3])),
                           double(T(s[4]))};
    for (int i = 0; i < 5; ++i) h[i] = out[i];
    return;
  }
  // s: beta1_power, beta2_power, lr, beta1, beta2, epsilon
  const T lr_t = T(s[2]) * std::sqrt(one - T(s[1])) / (one - T(s[0]));
  const double out[5] = {double(lr_t), double(b1), double(one - b1), double(one - b2),
                         double(T(s[5]))};
  for (int i = 0; i < 5; ++i) h[i] = out[i];
}

PyObject* adam_common(PyObject* const* args, Py_ssize_t nargs, bool wd) {
  FloatCtx cx{wd ? "mindlite._C.adam_weight_decay" : "mindlite._C.adam"};
  static const char* const kAdamArgs[6] = {"beta1_power", "beta2_power", "lr", "beta1", "beta2",
                                           "epsilon"};
  static const char* const kWdArgs[5] = {"lr", "beta1", "beta2", "epsilon", "decay"};
  const int nh = wd ? 5 : 6;
  if (!nargs_ok(cx, nargs, wd ? 9 : 11, wd ? "(var, m, v, lr, beta1, beta2, epsilon, decay, "
                "grad)" : "(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, "
                "grad, use_nesterov)")) {
    return nullptr;
  }
  PyArrayObject* var = updated_arg(&cx, "var", args[0], nullptr);
  PyArrayObject* m = var ? updated_arg(&cx, "m", args[1], var) : nullptr;
  PyArrayObject* v = m ? updated_arg(&cx, "v", args[2], var) : nullptr;
  if (!v) return nullptr;
  double s[6];
  for (int i = 0; i < nh; ++i) {
    if (!hyper(cx, wd ? kWdArgs[i] : kAdamArgs[i], args[3 + i], &s[i])) return nullptr;
  }
  OptimArgs a{wd ? kAdamWeightDecay : kAdam};
  if (!wd && !flag_arg(cx, "use_nesterov", args[10], &a.flag)) return nullptr;
  if (cx.dt == kF32) {
    adam_hyper<float>(s, wd, a.h);
  } else {
    adam_hyper<double>(s, wd, a.h);
  }
  a.var = PyArray_BYTES(var);
  a.s1 = PyArray_BYTES(m);
  a.s2 = PyArray_BYTES(v);
  PyArrayObject* st[3] = {var, m, v};
  return launch(cx, &a, args[3 + nh], var, st, 3);
}

PyObject* py_adam(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return adam_common(args, nargs, false);
}

PyObject* py_adam_weight_decay(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return adam_common(args, nargs, true);
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"apply_momentum", MINDLITE_FASTCALL(py_apply_momentum),
     "(var, accum, lr, grad, momentum, use_nesterov, gradient_scale): ApplyMomentum in place."},
    {"sgd", MINDLITE_FASTCALL(py_sgd),
     "(param, grad, lr, accum, momentum, stat, dampening, weight_decay, nesterov): SGD in "
     "place."},
    {"adam", MINDLITE_FASTCALL(py_adam),
     "(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov): "
     "Adam in place."},
    {"adam_weight_decay", MINDLITE_FASTCALL(py_adam_weight_decay),
     "(var, m, v, lr, beta1, beta2, epsilon, decay, grad): AdamWeightDecay in place."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_optim_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
