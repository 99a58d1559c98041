// Fast-call (METH_FASTCALL) entry points of the arg- and logical reductions
// (kernels/arg_kernels.h), registered as-is by kernels/cpu/arg_cpp.py (params positionally):
//   _C.argmax_cpp(x, out, axis), _C.argmin_cpp(x, out, axis)
//   _C.arg_max_with_value_cpp(x, out_index, out_values, axis, keep_dims), and ..._min_...
//   _C.reduce_all_cpp(x, out, axis, keep_dims), _C.reduce_any_cpp(x, out, axis, keep_dims)
// Arg: x float32/float64/int32/int64 of any layout, axis an int in [0, max(ndim, 1)), not
// empty along axis unless the output is; indices int32 or int64. Logical: x bool of any
// layout, axis a sorted tuple of distinct ints in [0, ndim). Outputs C-contiguous, aligned,
// writeable, of the shape inference gives. x is copied to C order when it is not, or when it
// shares memory with an output (for the logical reductions also when the reduced axes are not
// adjacent: kept axes first). Every
// argument is checked before any output is written: TypeError / ValueError
// "For 'mindlite._C.<fn>', ...".
#include <cstring>

#include "bind/array_args.h"
#include "bind/train_bind.h"
#include "kernels/arg_kernels.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

PyArrayObject* out_arg(const CallSite& cs, const char* arg, PyObject* o, bool int_index, int dt,
                       int nd, const npy_intp* shape) {
  PyArrayObject* a = as_array(cs, arg, o);
  if (!a) return nullptr;
  const int odt = array_dtype(a);
  if (int_index ? (odt != kI32 && odt != kI64) : odt != dt) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), '%s' dtype must be %s, but got %R", cs.fn,
                 cs.op, arg, int_index ? "int32 or int64" : kDTypeNames[dt],
                 reinterpret_cast<PyObject*>(PyArray_DESCR(a)));
    return nullptr;
  }
  bool same = PyArray_NDIM(a) == nd;
  for (int d = 0; same && d < nd; ++d) same = PyArray_DIMS(a)[d] == shape[d];
  if (!same) {
    PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), '%s' shape must be %s, but got %s",
                 cs.fn, cs.op, arg, shape_str(nd, shape).c_str(),
                 shape_str(PyArray_NDIM(a), PyArray_DIMS(a)).c_str());
    return nullptr;
  }
  return check_out(cs, a) ? a : nullptr;
}

bool int_value(const CallSite& cs, const char* arg, PyObject* o, long lo, long hi, long* v);

// One entry of ReduceAll / ReduceAny's 'axis' tuple, an int in [0, nd) (axes_arg's reader).
bool axis_item(const CallSite& cs, PyObject* o, int nd, long* v) {
  return int_value(cs, "axis", o, 0, nd, v);
}

bool int_value(const CallSite& cs, const char* arg, PyObject* o, long lo, long hi, long* v) {
  if (!PyLong_Check(o) || PyBool_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), '%s' must be an int, but got %s", cs.fn,
                 cs.op, arg, Py_TYPE(o)->tp_name);
    return false;
  }
  int overflow = 0;
  *v = PyLong_AsLongAndOverflow(o, &overflow);
  if (*v == -1 && PyErr_Occurred()) return false;
  if (overflow || *v < lo || *v >= hi) {
    PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), '%s' must be in [%ld, %ld) (normalised "
                 "by inference), but got %R", cs.fn, cs.op, arg, lo, hi, o);
    return false;
  }
  return true;
}

template <class T>
void copy_value(char* dst, const char* src) {
  T v;
  std::memcpy(&v, src, sizeof v);
  std::memcpy(dst, &v, sizeof v);
}

PyObject* arg_impl(int op, bool with_values, PyObject* const* args, Py_ssize_t nargs) {
  const CallSite cs{with_values ? (op == kArgMax ? "mindlite._C.arg_max_with_value_cpp"
                                                 : "mindlite._C.arg_min_with_value_cpp")
                                : (op == kArgMax ? "mindlite._C.argmax_cpp"
                                                 : "mindlite._C.argmin_cpp"),
                    with_values ? (op == kArgMax ? "ArgMaxWithValue" : "ArgMinWithValue")
                                : kArgNames[op]};
  const Py_ssize_t want = with_values ? 5 : 3;
  if (nargs != want) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), expected %zd arguments %s, but got %zd",
                 cs.fn, cs.op, want, with_values ? "(x, out_index, out_values, axis, keep_dims)"
                 : "(x, out, axis)", nargs);
    return nullptr;
  }
  PyArrayObject* x = as_array(cs, "x", args[0]);
  if (!x) return nullptr;
  const int dt = array_dtype(x);
  if (dt < 0 || dt == kBool) {
    const bool sup[kNumDTypes] = {true, true, true, true, false};
    dtype_error(cs, "x", x, sup);
    return nullptr;
  }
  const int nd = PyArray_NDIM(x);
  const npy_intp* shape = PyArray_DIMS(x);
  long axis;
  bool keep = false;
  if (!int_value(cs, "axis", args[with_values ? 3 : 2], 0, nd > 1 ? nd : 1, &axis) ||
      (with_values && !bool_arg(cs, "keep_dims", args[4], &keep))) {
    return nullptr;
  }
  npy_intp oshape[NPY_MAXDIMS];
  int ond = 0;
  int64_t O = 1, R = nd ? shape[axis] : 1, I = 1;
  for (int d = 0; d < nd; ++d) {
    if (d < axis) O *= shape[d];
    if (d > axis) I *= shape[d];
    if (d != axis || keep) oshape[ond++] = d == axis ? 1 : shape[d];
  }
  PyArrayObject* idx = out_arg(cs, with_values ? "out_index" : "out", args[1], true, dt, ond,
                               oshape);
  PyArrayObject* vals = idx && with_values
                            ? out_arg(cs, "out_values", args[2], false, dt, ond, oshape)
                            : nullptr;
  if (!idx || (with_values && !vals)) return nullptr;
  if (O * I == 0) Py_RETURN_NONE;
  if (R == 0) {
    PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), 'x' must not be empty along 'axis' %ld, "
                 "but got shape %s", cs.fn, cs.op, axis, shape_str(nd, shape).c_str());
    return nullptr;
  }
  const bool idx64 = array_dtype(idx) == kI64;
  PyArrayObject* xr = dense_in(x, idx, vals);
  if (!xr) return nullptr;
  run_released(will_parallelize(O * R * I, 1), [&] {
    run_arg(op, dt, PyArray_BYTES(xr), O, R, I, PyArray_BYTES(idx), idx64,
            vals ? PyArray_BYTES(vals) : nullptr);
  });
  Py_DECREF(xr);
  Py_RETURN_NONE;
}

PyObject* logical_impl(int op, PyObject* const* args, Py_ssize_t nargs) {
  const CallSite cs{
      op == kReduceAll ? "mindlite._C.reduce_all_cpp" : "mindlite._C.reduce_any_cpp",
      kArgNames[op]};
  if (nargs != 4) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), expected 4 arguments (x, out, axis, "
                 "keep_dims), but got %zd", cs.fn, cs.op, nargs);
    return nullptr;
  }
  PyArrayObject* x = as_array(cs, "x", args[0]);
  if (!x) return nullptr;
  if (array_dtype(x) != kBool) {
    const bool sup[kNumDTypes] = {false, false, false, false, true};
    dtype_error(cs, "x", x, sup);
    return nullptr;
  }
  const int nd = PyArray_NDIM(x);
  const npy_intp* shape = PyArray_DIMS(x);
  PyObject* ax = args[2];
  bool reduced[NPY_MAXDIMS] = {};
  Py_ssize_t na;
  if (!axes_arg(cs, ax, nd, axis_item, reduced, &na)) return nullptr;
  bool keep;
  if (!bool_arg(cs, "keep_dims", args[3], &keep)) return nullptr;
  npy_intp oshape[NPY_MAXDIMS];
  int ond = 0;
  int64_t O = 1, R = 1, I = 1;
  int first = -1, last = -1;
  for (int d = 0; d < nd; ++d) {
    if (reduced[d]) {
      R *= shape[d];
      if (first < 0) first = d;
      last = d;
    }
    if (!reduced[d] || keep) oshape[ond++] = reduced[d] ? 1 : shape[d];
  }
  PyArrayObject* out = out_arg(cs, "out", args[1], false, kBool, ond, oshape);
  if (!out) return nullptr;
  if (PyArray_SIZE(out) == 0) Py_RETURN_NONE;
  const bool adjacent = first < 0 || last - first + 1 == static_cast<int>(na);
  PyArrayObject* xr;
  if (adjacent) {
    for (int d = 0; d < nd; ++d) {
      if (first >= 0 && d < first) O *= shape[d];
      if (first >= 0 && d > last) I *= shape[d];
      if (first < 0) O *= shape[d];
    }
    xr = dense_in(x, out, nullptr);
  } else {
    // kept axes first, then the reduced ones: (O, R, 1) in C order
    PyArray_Dims perm;
    npy_intp p[NPY_MAXDIMS];
    int k = 0;
    for (int d = 0; d < nd; ++d) {
      if (!reduced[d]) {
        p[k++] = d;
        O *= shape[d];
      }
    }
    for (int d = 0; d < nd; ++d) {
      if (reduced[d]) p[k++] = d;
    }
    perm.ptr = p;
    perm.len = nd;
    PyArrayObject* t = reinterpret_cast<PyArrayObject*>(PyArray_Transpose(x, &perm));
    xr = t ? reinterpret_cast<PyArrayObject*>(PyArray_NewCopy(t, NPY_CORDER)) : nullptr;
    Py_XDECREF(t);
  }
  if (!xr) return nullptr;
  run_released(will_parallelize(O * R * I, 1), [&] {
    run_logical(op, reinterpret_cast<const uint8_t*>(PyArray_BYTES(xr)), O, R, I,
                reinterpret_cast<uint8_t*>(PyArray_BYTES(out)));
  });
  Py_DECREF(xr);
  Py_RETURN_NONE;
}

PyObject* py_argmax(PyObject*, PyObject* const* a, Py_ssize_t n) {
  return arg_impl(kArgMax, false, a, n);
}
PyObject* py_argmin(PyObject*, PyObject* const* a, Py_ssize_t n) {
  return arg_impl(kArgMin, false, a, n);
}
PyObject* py_argmax_v(PyObject*, PyObject* const* a, Py_ssize_t n) {
  return arg_impl(kArgMax, true, a, n);
}
PyObject* py_argmin_v(PyObject*, PyObject* const* a, Py_ssize_t n) {
  return arg_impl(kArgMin, true, a, n);
}
PyObject* py_all(PyObject*, PyObject* const* a, Py_ssize_t n) {
  return logical_impl(kReduceAll, a, n);
}
PyObject* py_any(PyObject*, PyObject* const* a, Py_ssize_t n) {
  return logical_impl(kReduceAny, a, n);
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"argmax_cpp", MINDLITE_FASTCALL(py_argmax),
     "(x, out, axis): index of the first maximum along axis (the first NaN, as np.argmax)."},
    {"argmin_cpp", MINDLITE_FASTCALL(py_argmin),
     "(x, out, axis): index of the first minimum along axis (the first NaN, as np.argmin)."},
    {"arg_max_with_value_cpp", MINDLITE_FASTCALL(py_argmax_v),
     "(x, out_index, out_values, axis, keep_dims): the first maximum and where it is."},
    {"arg_min_with_value_cpp", MINDLITE_FASTCALL(py_argmin_v),
     "(x, out_index, out_values, axis, keep_dims): the first minimum and where it is."},
    {"reduce_all_cpp", MINDLITE_FASTCALL(py_all),
     "(x, out, axis, keep_dims): logical and of bool x over the axes."},
    {"reduce_any_cpp", MINDLITE_FASTCALL(py_any),
     "(x, out, axis, keep_dims): logical or of bool x over the axes."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_arg_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
