// Fast-call (METH_FASTCALL) entry points of the elementwise kernels:
//   _C.unary(op, x, out)        _C.binary(op, x, y, out)
//   _C.UNARY_OPS / _C.BINARY_OPS        name -> op code ("RealDiv" is Div)
//   _C.UNARY_KERNELS / _C.BINARY_KERNELS  name -> builtin with the op bound: fn(x, out) /
//                                          fn(x, y, out); what kernels/cpu/*_cpp.py register.
// The GIL is released while a large launch runs on the thread pool.
#include "bind/elementwise_bind.h"

#include "bind/array_args.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

const char* const kUnaryFn = "mindlite._C.unary";
const char* const kBinaryFn = "mindlite._C.binary";

PyObject* unary_impl(int op, PyObject* xo, PyObject* outo) {
  const CallSite cs{kUnaryFn, kUnaryNames[op]};
  PyArrayObject* x = as_array(cs, "x", xo);
  if (!x) return nullptr;
  PyArrayObject* out = as_array(cs, "out", outo);
  if (!out) return nullptr;
  const KernelTables& t = kernel_tables();
  int dt = array_dtype(x);
  if (dt < 0 || !t.unary[op][dt]) {
    bool sup[kNumDTypes];
    for (int d = 0; d < kNumDTypes; ++d) sup[d] = t.unary[op][d] != nullptr;
    dtype_error(cs, "x", x, sup);
    return nullptr;
  }
  if (array_dtype(out) != dt) {
    bool sup[kNumDTypes] = {};
    sup[dt] = true;
    dtype_error(cs, "out", out, sup);
    return nullptr;
  }
  if (!check_out(cs, out)) return nullptr;
  const int nd = PyArray_NDIM(out);
  const npy_intp* shape = PyArray_DIMS(out);
  bool same = PyArray_NDIM(x) == nd;
  for (int d = 0; same && d < nd; ++d) same = PyArray_DIMS(x)[d] == shape[d];
  if (!same) {
    PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), 'out' shape must be 'x' shape %s, but "
                 "got %s", cs.fn, cs.op, shape_str(PyArray_NDIM(x), PyArray_DIMS(x)).c_str(),
                 shape_str(nd, shape).c_str());
    return nullptr;
  }
  const int64_t n = PyArray_SIZE(out);
  PyArrayObject* xr = readable(x, out, true);
  if (!xr) return nullptr;
  const Operand xa = operand_of(xr, n);
  char* o = PyArray_BYTES(out);
  if (will_parallelize(n, unary_cost(op))) {
    Py_BEGIN_ALLOW_THREADS
    run_unary(op, dt, xa, o, nd, shape, n);
    Py_END_ALLOW_THREADS
  } else {
    run_unary(op, dt, xa, o, nd, shape, n);
  }
  Py_DECREF(xr);
  Py_RETURN_NONE;
}

bool broadcast_check(const CallSite& cs, PyArrayObject* x, PyArrayObject* y,
                     PyArrayObject* out) {
  const int nx = PyArray_NDIM(x), ny = PyArray_NDIM(y), no = PyArray_NDIM(out);
  const npy_intp *sx = PyArray_DIMS(x), *sy = PyArray_DIMS(y), *so = PyArray_DIMS(out);
  const int nb = nx > ny ? nx : ny;
  npy_intp bshape[NPY_MAXDIMS];
  for (int i = 0; i < nb; ++i) {
    npy_intp dx = i < nb - nx ? 1 : sx[i - (nb - nx)];
    npy_intp dy = i < nb - ny ? 1 : sy[i - (nb - ny)];
    if (dx != dy && dx != 1 && dy != 1) {
      PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), 'x' shape %s and 'y' shape %s are not "
                   "broadcastable", cs.fn, cs.op, shape_str(nx, sx).c_str(),
                   shape_str(ny, sy).c_str());
      return false;
    }
    bshape[i] = dx == 1 ? dy : dx;
  }
  bool same = no == nb;
  for (int i = 0; same && i < nb; ++i) same = so[i] == bshape[i];
  if (!same) {
    PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), 'out' shape must be the broadcast shape "
                 "%s of 'x' and 'y', but got %s", cs.fn, cs.op, shape_str(nb, bshape).c_str(),
                 shape_str(no, so).c_str());
    return false;
  }
  return true;
}

PyObject* binary_impl(int op, PyObject* xo, PyObject* yo, PyObject* outo) {
  const CallSite cs{kBinaryFn, kBinaryNames[op]};
  PyArrayObject* x = as_array(cs, "x", xo);
  if (!x) return nullptr;
  PyArrayObject* y = as_array(cs, "y", yo);
  if (!y) return nullptr;
  PyArrayObject* out = as_array(cs, "out", outo);
  if (!out) return nullptr;
  const KernelTables& t = kernel_tables();
  const int dt = array_dtype(x);
  if (dt < 0 || !t.binary[op][dt][kVV]) {
    bool sup[kNumDTypes];
    for (int d = 0; d < kNumDTypes; ++d) sup[d] = t.binary[op][d][kVV] != nullptr;
    dtype_error(cs, "x", x, sup);
    return nullptr;
  }
  bool want[kNumDTypes] = {};
  want[dt] = true;
  if (array_dtype(y) != dt) {
    dtype_error(cs, "y", y, want);
    return nullptr;
  }
  const int odt = is_bool_result(op) ? kBool : dt;
  if (array_dtype(out) != odt) {
    want[dt] = false;
    want[odt] = true;
    dtype_error(cs, "out", out, want);
    return nullptr;
  }
  if (!check_out(cs, out) || !broadcast_check(cs, x, y, out)) return nullptr;
  const int nd = PyArray_NDIM(out);
  const npy_intp* shape = PyArray_DIMS(out);
  const int64_t n = PyArray_SIZE(out);
  PyArrayObject* xr = readable(x, out, true);
  if (!xr) return nullptr;
  PyArrayObject* yr = readable(y, out, true);
  if (!yr) {
    Py_DECREF(xr);
    return nullptr;
  }
  const Operand xa = operand_of(xr, n), ya = operand_of(yr, n);
  char* o = PyArray_BYTES(out);
  if (will_parallelize(n, binary_cost(op))) {
    Py_BEGIN_ALLOW_THREADS
    run_binary(op, dt, xa, ya, o, nd, shape, n);
    Py_END_ALLOW_THREADS
  } else {
    run_binary(op, dt, xa, ya, o, nd, shape, n);
  }
  Py_DECREF(xr);
  Py_DECREF(yr);
  Py_RETURN_NONE;
}

PyObject* py_unary(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_Format(PyExc_TypeError, "For '%s', expected 3 arguments (op, x, out), but got %zd",
                 kUnaryFn, nargs);
    return nullptr;
  }
  int op = op_code(CallSite{kUnaryFn, ""}, args[0], kNumUnary);
  return op < 0 ? nullptr : unary_impl(op, args[1], args[2]);
}

PyObject* py_binary(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4) {
    PyErr_Format(PyExc_TypeError, "For '%s', expected 4 arguments (op, x, y, out), but got %zd",
                 kBinaryFn, nargs);
    return nullptr;
  }
  int op = op_code(CallSite{kBinaryFn, ""}, args[0], kNumBinary);
  return op < 0 ? nullptr : binary_impl(op, args[1], args[2], args[3]);
}

// Bound per-op builtins: `self` is the op code (a Python int made at import).
PyObject* py_unary_bound(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  int op = static_cast<int>(PyLong_AsLong(self));
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), expected 2 arguments (x, out), but got "
                 "%zd", kUnaryFn, kUnaryNames[op], nargs);
    return nullptr;
  }
  return unary_impl(op, args[0], args[1]);
}

PyObject* py_binary_bound(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  int op = static_cast<int>(PyLong_AsLong(self));
  if (nargs != 3) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), expected 3 arguments (x, y, out), but "
                 "got %zd", kBinaryFn, kBinaryNames[op], nargs);
    return nullptr;
  }
  return binary_impl(op, args[0], args[1], args[2]);
}

PyMethodDef g_methods[] = {
    {"unary", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_unary)),
     METH_FASTCALL, "unary(op, x, out): out[...] = UNARY_OPS op applied to x (any layout)."},
    {"binary", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_binary)),
     METH_FASTCALL,
     "binary(op, x, y, out): out = op(x, y) with numpy broadcasting; out has the broadcast "
     "shape, is C-contiguous, and has x's dtype (bool for comparisons and logical ops)."},
    {nullptr, nullptr, 0, nullptr}};

// Per-op method definitions must outlive the builtins made from them.
PyMethodDef g_unary_defs[kNumUnary];
PyMethodDef g_binary_defs[kNumBinary + 1];  // + RealDiv
std::string g_def_names[kNumUnary + kNumBinary + 1];

std::string snake_kernel_name(const char* op) {
  std::string s;
  for (const char* p = op; *p; ++p) {
    bool upper = *p >= 'A' && *p <= 'Z';
    bool prev_lower = p != op && ((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= '0' && p[-1] <= '9'));
    if (upper && prev_lower) s += '_';
    s += upper ? static_cast<char>(*p - 'A' + 'a') : *p;
  }
  return s + "_cpp";
}

bool add_bound(PyObject* kernels, PyObject* codes, PyMethodDef* def, std::string* name_store,
               const char* op_name, int code, bool unary) {
  *name_store = snake_kernel_name(op_name);
  def->ml_name = name_store->c_str();
  def->ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(
      unary ? py_unary_bound : py_binary_bound));
  def->ml_flags = METH_FASTCALL;
  def->ml_doc = unary ? "(x, out): the op bound to mindlite._C.unary"
                      : "(x, y, out): the op bound to mindlite._C.binary";
  PyObject* self = PyLong_FromLong(code);
  if (!self) return false;
  PyObject* fn = PyCFunction_NewEx(def, self, nullptr);
  Py_DECREF(self);
  if (!fn) return false;
  int rc = PyDict_SetItemString(kernels, op_name, fn);
  Py_DECREF(fn);
  PyObject* c = PyLong_FromLong(code);
  if (rc < 0 || !c) {
    Py_XDECREF(c);
    return false;
  }
  rc = PyDict_SetItemString(codes, op_name, c);
  Py_DECREF(c);
  return rc == 0;
}

bool add_dict(PyObject* module, const char* name, PyObject* dict) {
  if (!dict) return false;
  if (PyModule_AddObject(module, name, dict) < 0) {
    Py_DECREF(dict);
    return false;
  }
  return true;
}

}  // namespace

bool add_elementwise_functions(PyObject* module) {
  if (PyModule_AddFunctions(module, g_methods) < 0) return false;
  PyObject *uk = PyDict_New(), *uc = PyDict_New(), *bk = PyDict_New(), *bc = PyDict_New();
  bool ok = uk && uc && bk && bc;
  for (int op = 0; ok && op < kNumUnary; ++op) {
    ok = add_bound(uk, uc, &g_unary_defs[op], &g_def_names[op], kUnaryNames[op], op, true);
  }
  for (int op = 0; ok && op < kNumBinary; ++op) {
    ok = add_bound(bk, bc, &g_binary_defs[op], &g_def_names[kNumUnary + op], kBinaryNames[op],
                   op, false);
  }
  ok = ok && add_bound(bk, bc, &g_binary_defs[kNumBinary], &g_def_names[kNumUnary + kNumBinary],
                       "RealDiv", kDiv, false);
  if (!ok) {
    Py_XDECREF(uk);
    Py_XDECREF(uc);
    Py_XDECREF(bk);
    Py_XDECREF(bc);
    return false;
  }
  return add_dict(module, "UNARY_KERNELS", uk) && add_dict(module, "UNARY_OPS", uc) &&
         add_dict(module, "BINARY_KERNELS", bk) && add_dict(module, "BINARY_OPS", bc);
}

}  // namespace mindlite
