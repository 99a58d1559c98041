// Argument checks for the fast-call entry points (see array_args.h).
#include "bind/array_args.h"

namespace mindlite {

std::string shape_str(int nd, const npy_intp* shape) {
  std::string s = "(";
  for (int i = 0; i < nd; ++i) {
    if (i) s += ", ";
    s += std::to_string(static_cast<long long>(shape[i]));
  }
  if (nd == 1) s += ",";
  return s + ")";
}

PyArrayObject* as_array(const CallSite& cs, const char* arg, PyObject* o) {
  if (PyArray_Check(o)) return reinterpret_cast<PyArrayObject*>(o);
  PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), '%s' must be a numpy.ndarray, but got %s",
               cs.fn, cs.op, arg, Py_TYPE(o)->tp_name);
  return nullptr;
}

int array_dtype(PyArrayObject* a) {
  PyArray_Descr* d = PyArray_DESCR(a);
  if (!PyArray_ISNBO(d->byteorder)) return -1;
  switch (d->type_num) {
    case NPY_FLOAT: return kF32;
    case NPY_DOUBLE: return kF64;
    case NPY_BOOL: return kBool;
    case NPY_INT: case NPY_LONG: case NPY_LONGLONG: case NPY_SHORT: case NPY_BYTE: {
      npy_intp sz = PyArray_ITEMSIZE(a);
      return sz == 4 ? kI32 : sz == 8 ? kI64 : -1;
    }
    default: return -1;
  }
}

void dtype_error(const CallSite& cs, const char* arg, PyArrayObject* a, const bool* supported) {
  std::string names;
  for (int dt = 0; dt < kNumDTypes; ++dt) {
    if (!supported[dt]) continue;
    if (!names.empty()) names += ", ";
    names += kDTypeNames[dt];
  }
  PyObject* got = PyObject_Str(reinterpret_cast<PyObject*>(PyArray_DESCR(a)));
  const char* g = got ? PyUnicode_AsUTF8(got) : nullptr;
  PyErr_Clear();
  PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), '%s' dtype must be one of [%s] (native "
               "byte order), but got %s", cs.fn, cs.op, arg, names.c_str(), g ? g : "?");
  Py_XDECREF(got);
}

bool check_out(const CallSite& cs, PyArrayObject* out) {
  const char* why = !PyArray_ISWRITEABLE(out) ? "writeable (it is read-only)"
                    : !PyArray_IS_C_CONTIGUOUS(out) ? "C-contiguous"
                    : !PyArray_ISALIGNED(out) ? "aligned" : nullptr;
  if (why == nullptr) return true;
  PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), 'out' must be %s", cs.fn, cs.op, why);
  return false;
}

namespace {

// [lo, hi) bytes spanned by the array's elements; lo == hi when it has none.
void byte_extent(PyArrayObject* a, const char** lo, const char** hi) {
  const char* base = PyArray_BYTES(a);
  const int nd = PyArray_NDIM(a);
  const npy_intp* shape = PyArray_DIMS(a);
  const npy_intp* strides = PyArray_STRIDES(a);
  npy_intp l = 0, h = 0;
  for (int d = 0; d < nd; ++d) {
    if (shape[d] == 0) {
      *lo = *hi = base;
      return;
    }
    npy_intp ext = strides[d] * (shape[d] - 1);
    if (ext < 0) l += ext; else h += ext;
  }
  *lo = base + l;
  *hi = base + h + PyArray_ITEMSIZE(a);
}

}  // namespace

PyArrayObject* readable(PyArrayObject* a, PyArrayObject* out, bool same_ok) {
  bool copy = !PyArray_ISALIGNED(a);
  if (!copy && out != nullptr) {
    const char *alo, *ahi, *olo, *ohi;
    byte_extent(a, &alo, &ahi);
    byte_extent(out, &olo, &ohi);
    if (alo < ohi && olo < ahi) {
      bool same = same_ok && PyArray_BYTES(a) == PyArray_BYTES(out) &&
                  PyArray_IS_C_CONTIGUOUS(a) && PyArray_SIZE(a) == PyArray_SIZE(out) &&
                  PyArray_ITEMSIZE(a) == PyArray_ITEMSIZE(out);
      copy = !same;
    }
  }
  if (!copy) {
    Py_INCREF(a);
    return a;
  }
  return reinterpret_cast<PyArrayObject*>(PyArray_NewCopy(a, NPY_CORDER));
}

Operand operand_of(PyArrayObject* a, int64_t n) {
  return Operand{PyArray_BYTES(a), PyArray_NDIM(a), PyArray_DIMS(a), PyArray_STRIDES(a),
                 PyArray_IS_C_CONTIGUOUS(a) && PyArray_SIZE(a) == n};
}

int op_code(const CallSite& cs, PyObject* o, int count) {
  if (!PyLong_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'op' must be an int op code, but got %s", cs.fn,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  int overflow = 0;
  long v = PyLong_AsLongAndOverflow(o, &overflow);
  if (overflow || v < 0 || v >= count) {
    if (!PyErr_Occurred()) {
      PyErr_Format(PyExc_ValueError, "For '%s', 'op' must be an op code in [0, %d), but got %R",
                   cs.fn, count, o);
    }
    return -1;
  }
  return static_cast<int>(v);
}

bool bool_arg(const CallSite& cs, const char* arg, PyObject* o, bool* v) {
  if (!PyBool_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), '%s' must be a bool, but got %s", cs.fn,
                 cs.op, arg, Py_TYPE(o)->tp_name);
    return false;
  }
  *v = o == Py_True;
  return true;
}

bool axes_arg(const CallSite& cs, PyObject* ax, int nd, AxisReader read, bool* reduced,
              Py_ssize_t* count) {
  if (!PyTuple_Check(ax) && !PyList_Check(ax)) {
    PyErr_Format(PyExc_TypeError, "For '%s' (op '%s'), 'axis' must be a tuple of ints, but got "
                 "%s", cs.fn, cs.op, Py_TYPE(ax)->tp_name);
    return false;
  }
  const Py_ssize_t na = PySequence_Fast_GET_SIZE(ax);
  PyObject** items = PySequence_Fast_ITEMS(ax);
  long prev = -1;
  for (Py_ssize_t i = 0; i < na; ++i) {
    long v;
    if (!read(cs, items[i], nd, &v)) return false;
    if (v <= prev) {
      PyErr_Format(PyExc_ValueError, "For '%s' (op '%s'), 'axis' must be sorted and without "
                   "duplicates, but got %R", cs.fn, cs.op, ax);
      return false;
    }
    reduced[v] = true;
    prev = v;
  }
  *count = na;
  return true;
}

// ---- the float loop entry points ------------------------------------------------------------
bool nargs_ok(const FloatCtx& cx, Py_ssize_t nargs, Py_ssize_t want, const char* sig) {
  if (nargs == want) return true;
  PyErr_Format(PyExc_TypeError, "For '%s', expected %zd arguments %s, but got %zd", cx.fn, want,
               sig, nargs);
  return false;
}

PyArrayObject* float_typed(FloatCtx* cx, const char* arg, PyObject* o) {
  if (!PyArray_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a numpy.ndarray, but got %s", cx->fn,
                 arg, Py_TYPE(o)->tp_name);
    return nullptr;
  }
  PyArrayObject* a = reinterpret_cast<PyArrayObject*>(o);
  const int dt = array_dtype(a);
  if (cx->dt < 0 ? (dt != kF32 && dt != kF64) : dt != cx->dt) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' dtype must be %s (native byte order), but "
                 "got %R", cx->fn, arg, cx->dt < 0 ? "float32 or float64"
                 : kDTypeNames[cx->dt], reinterpret_cast<PyObject*>(PyArray_DESCR(a)));
    return nullptr;
  }
  cx->dt = dt;
  return a;
}

PyArrayObject* float_nd(FloatCtx* cx, const char* arg, PyObject* o, int nd) {
  PyArrayObject* a = float_typed(cx, arg, o);
  if (a && PyArray_NDIM(a) != nd) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be %d-D, but got shape %s", cx->fn, arg,
                 nd, shape_str(PyArray_NDIM(a), PyArray_DIMS(a)).c_str());
    return nullptr;
  }
  return a;
}

bool shape_is(const FloatCtx& cx, const char* arg, PyArrayObject* a, int nd,
              const npy_intp* want) {
  bool same = PyArray_NDIM(a) == nd;
  for (int d = 0; same && d < nd; ++d) same = PyArray_DIMS(a)[d] == want[d];
  if (same) return true;
  PyErr_Format(PyExc_ValueError, "For '%s', '%s' shape must be %s, but got %s", cx.fn, arg,
               shape_str(nd, want).c_str(), shape_str(PyArray_NDIM(a), PyArray_DIMS(a)).c_str());
  return false;
}

PyArrayObject* dense_in(PyArrayObject* a, PyArrayObject* o1, PyArrayObject* o2) {
  PyArrayObject* r = readable(a, o1, false);
  if (r && o2) {
    PyArrayObject* r2 = readable(r, o2, false);
    Py_DECREF(r);
    r = r2;
  }
  if (!r || PyArray_IS_C_CONTIGUOUS(r)) return r;
  PyArrayObject* c = reinterpret_cast<PyArrayObject*>(PyArray_NewCopy(r, NPY_CORDER));
  Py_DECREF(r);
  return c;
}

PyArrayObject* float_array(FloatCtx* cx, const char* arg, PyObject* o, int nd, bool write) {
  PyArrayObject* a = float_nd(cx, arg, o, nd);
  if (!a) return nullptr;
  const char* why = !PyArray_IS_C_CONTIGUOUS(a) ? "C-contiguous"
                    : !PyArray_ISALIGNED(a) ? "aligned"
                    : write && !PyArray_ISWRITEABLE(a) ? "writeable (it is read-only)"
                    : nullptr;
  if (why) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be %s", cx->fn, arg, why);
    return nullptr;
  }
  return a;
}

bool int_arg(const FloatCtx& cx, const char* arg, PyObject* o, int64_t lo, int64_t* v) {
  PyObject* i = PyNumber_Index(o);
  if (!i) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be an int, but got %s", cx.fn, arg,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  if (overflow || x < lo || x > (int64_t(1) << 40)) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be an int in [%lld, 2**40], but got %R",
                 cx.fn, arg, static_cast<long long>(lo), o);
    return false;
  }
  *v = x;
  return true;
}

}  // namespace mindlite
