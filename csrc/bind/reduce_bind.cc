// Fast-call (METH_FASTCALL) entry points of the reduction and softmax kernels, each a builtin
// with its op bound (what kernels/cpu/reduce_cpp.py registers):
//   _C.REDUCE_KERNELS[op](x, out, axis, keep_dims)   op: ReduceSum/Mean/Max/Min/Prod
//       axis: sorted tuple (or list) of distinct non-negative ints < x.ndim; out C-contiguous,
//       x's dtype, shape x.shape reduced over axis (size-1 dims kept when keep_dims).
//   _C.SOFTMAX_KERNELS[op](x, out, axis)            op: Softmax, LogSoftmax
//   _C.SOFTMAX_KERNELS[op](y, dy, out, axis)        op: SoftmaxGrad, LogSoftmaxGrad
//       axis: int in [0, max(ndim, 1)); out C-contiguous, x's shape and dtype.
// Inputs may have any layout (copied first only when the kernel needs it). Every argument is
// checked before memory is touched; the GIL is released while a launch runs on the pool.
#include "bind/reduce_bind.h"

#include "bind/array_args.h"
#include "kernels/reduce.h"

namespace mindlite {
namespace {

const char* const kReduceFn = "mindlite._C.REDUCE_KERNELS";
const char* const kSoftmaxFn = "mindlite._C.SOFTMAX_KERNELS";
const char* const kReduceKernelNames[kNumReduce] = {
    "reduce_sum_cpp", "reduce_mean_cpp", "reduce_max_cpp", "reduce_min_cpp", "reduce_prod_cpp"};
const char* const kSoftmaxKernelNames[kNumSoftmax] = {
    "softmax_cpp", "log_softmax_cpp", "softmax_grad_cpp", "log_softmax_grad_cpp"};

bool check_dtype(const CallSite& cs, const char* arg, PyArrayObject* a, int want, bool (*ok)(
    int, int), int op) {
  const int dt = array_dtype(a);
  if (want >= 0 ? dt == want : (dt >= 0 && ok(op, dt))) return true;
  bool sup[kNumDTypes];
  for (int d = 0; d < kNumDTypes; ++d) sup[d] = want >= 0 ? d == want : ok(op, d);
  dtype_error(cs, arg, a, sup);
  return false;
}

bool same_shape(const CallSite& cs, const char* arg, PyArrayObject* a, const char* ref_arg,
                PyArrayObject* ref) {
  const int nd = PyArray_NDIM(ref);
  bool same = PyArray_NDIM(a) == nd;
  for (int d = 0; same && d < nd; ++d) same = PyArray_DIMS(a)[d] == PyArray_DIMS(ref)[d];
  if (same) return true;
  PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), '%s' shape must be '%s' shape %s, but got "
               "%s", cs.fn, cs.op, arg, ref_arg, shape_str(nd, PyArray_DIMS(ref)).c_str(),
               shape_str(PyArray_NDIM(a), PyArray_DIMS(a)).c_str());
  return false;
}

// One int in [0, limit): a non-negative axis.
bool axis_value(const CallSite& cs, PyObject* o, int limit, long* v) {
  if (!PyLong_Check(o) || PyBool_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), 'axis' must hold ints, but got %s",
                 cs.fn, cs.op, Py_TYPE(o)->tp_name);
    return false;
  }
  int overflow = 0;
  *v = PyLong_AsLongAndOverflow(o, &overflow);
  if (*v == -1 && PyErr_Occurred()) return false;
  if (overflow || *v < 0 || *v >= limit) {
    PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), 'axis' must be in [0, %d) (normalised "
                 "by inference), but got %R", cs.fn, cs.op, limit, o);
    return false;
  }
  return true;
}

void fill_empty(int op, int dt, PyArrayObject* out) {
  const int64_t n = PyArray_SIZE(out);
  const double v = op == kRProd ? 1.0 : (op == kRMean && dt <= kF64) ? Py_NAN : 0.0;
  char* o = PyArray_BYTES(out);
  for (int64_t i = 0; i < n; ++i) {
    switch (dt) {
      case kF32: reinterpret_cast<float*>(o)[i] = static_cast<float>(v); break;
      case kF64: reinterpret_cast<double*>(o)[i] = v; break;
      case kI32: reinterpret_cast<int32_t*>(o)[i] = static_cast<int32_t>(v); break;
      default: reinterpret_cast<int64_t*>(o)[i] = static_cast<int64_t>(v); break;
    }
  }
}

PyObject* reduce_impl(int op, PyObject* const* args) {
  const CallSite cs{kReduceFn, kReduceNames[op]};
  PyArrayObject* x = as_array(cs, "x", args[0]);
  if (!x) return nullptr;
  PyArrayObject* out = as_array(cs, "out", args[1]);
  if (!out) return nullptr;
  if (!check_dtype(cs, "x", x, -1, reduce_supported, op)) return nullptr;
  const int dt = array_dtype(x);
  if (!check_dtype(cs, "out", out, dt, nullptr, op) || !check_out(cs, out)) return nullptr;
  const int nd = PyArray_NDIM(x);
  const npy_intp* shape = PyArray_DIMS(x);
  PyObject* ax = args[2];
  bool reduced[NPY_MAXDIMS] = {};
  Py_ssize_t na;
  if (!axes_arg(cs, ax, nd, axis_value, reduced, &na)) return nullptr;
  bool keep;
  if (!bool_arg(cs, "keep_dims", args[3], &keep)) return nullptr;
  npy_intp want[NPY_MAXDIMS];
  int nw = 0;
  int64_t count = 1;
  for (int d = 0; d < nd; ++d) {
    if (reduced[d]) count *= shape[d];
    if (!reduced[d] || keep) want[nw++] = reduced[d] ? 1 : shape[d];
  }
  bool same = PyArray_NDIM(out) == nw;
  for (int d = 0; same && d < nw; ++d) same = PyArray_DIMS(out)[d] == want[d];
  if (!same) {
    PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), 'out' shape must be %s ('x' shape %s "
                 "reduced over 'axis' %R, keep_dims=%s), but got %s", cs.fn, cs.op,
                 shape_str(nw, want).c_str(), shape_str(nd, shape).c_str(), ax,
                 keep ? "True" : "False",
                 shape_str(PyArray_NDIM(out), PyArray_DIMS(out)).c_str());
    return nullptr;
  }
  if (PyArray_SIZE(out) == 0) Py_RETURN_NONE;
  if (count == 0) {
    if (op == kRMax || op == kRMin) {
      PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), the reduced axes of 'x' must not be "
                   "empty (no identity for the maximum or minimum), but got shape %s reduced "
                   "over %R", cs.fn, cs.op, shape_str(nd, shape).c_str(), ax);
      return nullptr;
    }
    fill_empty(op, dt, out);
    Py_RETURN_NONE;
  }
  PyArrayObject* xr = readable(x, out, false);
  if (!xr) return nullptr;
  ReducePlan p;
  for (int attempt = 0;; ++attempt) {
    if (reduce_plan(&p, op, dt, PyArray_BYTES(xr), nd, PyArray_DIMS(xr), PyArray_STRIDES(xr),
                    reduced, PyArray_BYTES(out))) {
      break;
    }
    PyArrayObject* c = attempt ? nullptr
                               : reinterpret_cast<PyArrayObject*>(PyArray_NewCopy(xr, NPY_KEEPORDER));
    Py_DECREF(xr);
    if (!c) {
      if (!PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "For '%s', no plan", cs.fn);
      return nullptr;
    }
    xr = c;
  }
  if (reduce_parallel(p)) {
    Py_BEGIN_ALLOW_THREADS
    run_reduce(p);
    Py_END_ALLOW_THREADS
  } else {
    run_reduce(p);
  }
  Py_DECREF(xr);
  Py_RETURN_NONE;
}

// A new reference to `a`'s values, C-contiguous, aligned, not overlapping out at all (the
// softmax loops recompute a row's last vector, so they never run in place).
PyArrayObject* dense(PyArrayObject* a, PyArrayObject* out) {
  PyArrayObject* r = readable(a, out, false);
  if (!r || PyArray_IS_C_CONTIGUOUS(r)) return r;
  PyArrayObject* c = reinterpret_cast<PyArrayObject*>(PyArray_NewCopy(r, NPY_CORDER));
  Py_DECREF(r);
  return c;
}

PyObject* softmax_impl(int op, PyObject* const* args) {
  const CallSite cs{kSoftmaxFn, kSoftmaxNames[op]};
  const bool grad = softmax_is_grad(op);
  const char* xname = grad ? "y" : "x";
  PyArrayObject* x = as_array(cs, xname, args[0]);
  if (!x) return nullptr;
  PyArrayObject* dy = grad ? as_array(cs, "dy", args[1]) : nullptr;
  if (grad && !dy) return nullptr;
  PyArrayObject* out = as_array(cs, "out", args[grad ? 2 : 1]);
  if (!out) return nullptr;
  if (!check_dtype(cs, xname, x, -1, softmax_supported, op)) return nullptr;
  const int dt = array_dtype(x);
  if ((dy && !check_dtype(cs, "dy", dy, dt, nullptr, op)) ||
      !check_dtype(cs, "out", out, dt, nullptr, op) || !check_out(cs, out) ||
      (dy && !same_shape(cs, "dy", dy, xname, x)) || !same_shape(cs, "out", out, xname, x)) {
    return nullptr;
  }
  const int nd = PyArray_NDIM(x);
  long axis;
  if (!axis_value(cs, args[grad ? 3 : 2], nd > 1 ? nd : 1, &axis)) return nullptr;
  if (PyArray_SIZE(x) == 0) Py_RETURN_NONE;
  const npy_intp* shape = PyArray_DIMS(x);
  int64_t O = 1, R = nd ? shape[axis] : 1, I = 1;
  for (int d = 0; d < nd; ++d) {
    if (d < axis) O *= shape[d];
    if (d > axis) I *= shape[d];
  }
  PyArrayObject* xr = dense(x, out);
  if (!xr) return nullptr;
  PyArrayObject* dr = dy ? dense(dy, out) : nullptr;
  if (dy && !dr) {
    Py_DECREF(xr);
    return nullptr;
  }
  const char* xp = PyArray_BYTES(xr);
  const char* dp = dr ? PyArray_BYTES(dr) : nullptr;
  char* op_out = PyArray_BYTES(out);
  if (softmax_parallel(O * R * I)) {
    Py_BEGIN_ALLOW_THREADS
    run_softmax(op, dt, xp, dp, op_out, O, R, I);
    Py_END_ALLOW_THREADS
  } else {
    run_softmax(op, dt, xp, dp, op_out, O, R, I);
  }
  Py_DECREF(xr);
  Py_XDECREF(dr);
  Py_RETURN_NONE;
}

// Bound builtins: `self` is the op code (a Python int made at import).
PyObject* py_reduce_bound(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const int op = static_cast<int>(PyLong_AsLong(self));
  if (nargs != 4) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), expected 4 arguments (x, out, axis, "
                 "keep_dims), but got %zd", kReduceFn, kReduceNames[op], nargs);
    return nullptr;
  }
  return reduce_impl(op, args);
}

PyObject* py_softmax_bound(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const int op = static_cast<int>(PyLong_AsLong(self));
  const bool grad = softmax_is_grad(op);
  if (nargs != (grad ? 4 : 3)) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), expected %d arguments (%s), but got %zd",
                 kSoftmaxFn, kSoftmaxNames[op], grad ? 4 : 3,
                 grad ? "y, dy, out, axis" : "x, out, axis", nargs);
    return nullptr;
  }
  return softmax_impl(op, args);
}

// Method definitions must outlive the builtins made from them.
PyMethodDef g_reduce_defs[kNumReduce];
PyMethodDef g_softmax_defs[kNumSoftmax];

using FastFn = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t);

bool add_kernel(PyObject* dict, PyMethodDef* def, const char* kernel_name, const char* op_name,
                int code, FastFn fn, const char* doc) {
  def->ml_name = kernel_name;
  def->ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(fn));
  def->ml_flags = METH_FASTCALL;
  def->ml_doc = doc;
  PyObject* self = PyLong_FromLong(code);
  if (!self) return false;
  PyObject* f = PyCFunction_NewEx(def, self, nullptr);
  Py_DECREF(self);
  if (!f) return false;
  const int rc = PyDict_SetItemString(dict, op_name, f);
  Py_DECREF(f);
  return rc == 0;
}

}  // namespace

bool add_reduce_functions(PyObject* module) {
  PyObject* rk = PyDict_New();
  PyObject* sk = PyDict_New();
  bool ok = rk && sk;
  for (int op = 0; ok && op < kNumReduce; ++op) {
    ok = add_kernel(rk, &g_reduce_defs[op], kReduceKernelNames[op], kReduceNames[op], op,
                    py_reduce_bound, "(x, out, axis, keep_dims): see mindlite._C reduce_bind");
  }
  for (int op = 0; ok && op < kNumSoftmax; ++op) {
    ok = add_kernel(sk, &g_softmax_defs[op], kSoftmaxKernelNames[op], kSoftmaxNames[op], op,
                    py_softmax_bound, softmax_is_grad(op) ? "(y, dy, out, axis)"
                                                          : "(x, out, axis)");
  }
  if (ok && PyModule_AddObject(module, "REDUCE_KERNELS", rk) == 0) {
    rk = nullptr;
    ok = PyModule_AddObject(module, "SOFTMAX_KERNELS", sk) == 0;
    if (ok) sk = nullptr;
  } else {
    ok = false;
  }
  Py_XDECREF(rk);
  Py_XDECREF(sk);
  return ok;
}

}  // namespace mindlite
