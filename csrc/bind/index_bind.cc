// Fast-call (METH_FASTCALL) entry point of BasicIndex (ops/operations/index_ops.py); what
// kernels/cpu/index_cpp.py registers:
//   _C.basic_index(x, i, out)                  the row layout x[i] (`for row in x`)
//   _C.basic_index(x, s_0, ..., s_k-1, out, items)   any layout
// items: BasicIndex.kernel_params' tuple of (kind, step, axis size) triples: kind -1 an int
// (takes a start in [-d, d)), -2 a new axis, -3 a whole axis, n >= 0 a slice of n elements
// with step != 0 (takes the first element's position, every element inside [0, d)); axes of x
// after the items are taken whole. x: an ndarray (any strides); the starts: ints or 0-d
// integer arrays (the FastRunner passes the int64s it converted Python ints to); out: a
// writeable ndarray of x's dtype and the indexed shape. Everything is checked before anything
// is written: TypeError / ValueError "For 'BasicIndex', ...". A C-contiguous row into a
// C-contiguous out is one memcpy; anything else is numpy's PyArray_CopyInto of a strided view
// of x. Runs with the GIL held.
#include "bind/index_bind.h"

#include <cstring>

#include "bind/numpy_api.h"

namespace mindlite {
namespace {

bool get_start(PyObject* o, Py_ssize_t* v) {
  *v = PyNumber_AsSsize_t(o, nullptr);        // clamps on overflow: then out of bounds
  return !(*v == -1 && PyErr_Occurred());    // not an integer: TypeError
}

bool out_ok(PyArrayObject* x, PyArrayObject* out, int nd, const npy_intp* dims) {
  if (!PyArray_EquivTypes(PyArray_DESCR(x), PyArray_DESCR(out))) {
    PyErr_SetString(PyExc_TypeError, "For 'BasicIndex', 'out' must have the dtype of 'x'");
    return false;
  }
  bool same = PyArray_NDIM(out) == nd;
  for (int k = 0; same && k < nd; ++k) same = PyArray_DIM(out, k) == dims[k];
  if (!same) {
    PyErr_SetString(PyExc_ValueError, "For 'BasicIndex', 'out' must have the indexed shape");
    return false;
  }
  if (!PyArray_ISWRITEABLE(out)) {
    PyErr_SetString(PyExc_ValueError, "For 'BasicIndex', 'out' must be writeable");
    return false;
  }
  return true;
}

// numpy's rule: (dims, strides) lay the elements out in C order without gaps.
bool c_contiguous(int nd, const npy_intp* dims, const npy_intp* strides, npy_intp itemsize) {
  npy_intp expected = itemsize;
  for (int k = nd - 1; k >= 0; --k) {
    if (dims[k] == 0) return true;
    if (dims[k] != 1 && strides[k] != expected) return false;
    expected *= dims[k];
  }
  return true;
}

// out[...] = the view of x at `data` with (nd, dims, strides).
PyObject* copy_view(PyArrayObject* x, PyArrayObject* out, char* data, int nd,
                    npy_intp* dims, npy_intp* strides) {
  PyArray_Descr* descr = PyArray_DESCR(x);
  if (PyArray_IS_C_CONTIGUOUS(out) && !PyDataType_REFCHK(descr) &&
      c_contiguous(nd, dims, strides, PyArray_ITEMSIZE(x))) {
    std::memcpy(PyArray_DATA(out), data, static_cast<size_t>(PyArray_NBYTES(out)));
    Py_RETURN_NONE;
  }
  Py_INCREF(descr);
  PyObject* view = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, strides, data, 0,
                                        nullptr);
  if (!view) return nullptr;
  Py_INCREF(x);
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(view),
                            reinterpret_cast<PyObject*>(x)) < 0) {
    Py_DECREF(view);
    return nullptr;
  }
  const int rc = PyArray_CopyInto(out, reinterpret_cast<PyArrayObject*>(view));
  Py_DECREF(view);
  if (rc < 0) return nullptr;
  Py_RETURN_NONE;
}

bool room(int nd) {
  if (nd < NPY_MAXDIMS) return true;
  PyErr_SetString(PyExc_ValueError, "For 'BasicIndex', the result would have too many "
                  "dimensions");
  return false;
}

bool bad_start(Py_ssize_t s, long long n, long long step, npy_intp d) {
  if (n < 0) return s < -d || s >= d;                       // an int
  if (n == 0) return false;
  const __int128 last = static_cast<__int128>(s) + static_cast<__int128>(n - 1) * step;
  return s < 0 || s >= d || last < 0 || last >= d;
}

PyObject* basic_index(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  const bool row = nargs == 3 && !PyTuple_Check(args[2]);
  if (nargs < 3 || (!row && !PyTuple_Check(args[nargs - 1]))) {
    PyErr_Format(PyExc_TypeError, "For 'BasicIndex', the kernel takes (x, index, out) or (x, "
                 "starts..., out, items), but got %zd arguments", nargs);
    return nullptr;
  }
  PyObject* out_obj = args[row ? 2 : nargs - 2];
  if (!PyArray_Check(args[0]) || !PyArray_Check(out_obj)) {
    PyErr_SetString(PyExc_TypeError, "For 'BasicIndex', 'x' and 'out' must be numpy arrays");
    return nullptr;
  }
  auto* x = reinterpret_cast<PyArrayObject*>(args[0]);
  auto* out = reinterpret_cast<PyArrayObject*>(out_obj);
  const int xnd = PyArray_NDIM(x);
  const npy_intp* xd = PyArray_DIMS(x);
  const npy_intp* xs = PyArray_STRIDES(x);
  npy_intp dims[NPY_MAXDIMS], strides[NPY_MAXDIMS];
  int nd = 0, axis = 0;
  Py_ssize_t k = 0;
  const Py_ssize_t nstarts = row ? 1 : nargs - 3;
  char* data = PyArray_BYTES(x);
  PyObject* items = row ? nullptr : args[nargs - 1];
  const Py_ssize_t nitems = row ? 1 : PyTuple_GET_SIZE(items);
  for (Py_ssize_t it = 0; it < nitems; ++it) {
    long long kind = -1, step = 0, d = 0;
    if (!row) {
      PyObject* t = PyTuple_GET_ITEM(items, it);
      if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3) {
        PyErr_SetString(PyExc_TypeError, "For 'BasicIndex', 'items' must hold (kind, step, "
                        "size) triples");
        return nullptr;
      }
      kind = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 0));
      step = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 1));
      d = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 2));
      if (PyErr_Occurred()) return nullptr;
    }
    if (kind == -2) {
      if (!room(nd)) return nullptr;
      dims[nd] = 1;
      strides[nd++] = 0;
      continue;
    }
    if (axis >= xnd || (!row && d != xd[axis]) || kind < -3 || (kind >= 0 && step == 0)) {
      PyErr_SetString(PyExc_ValueError, "For 'BasicIndex', 'items' do not match the shape of "
                      "'x'");
      return nullptr;
    }
    if (kind == -3) {
      if (!room(nd)) return nullptr;
      dims[nd] = xd[axis];
      strides[nd++] = xs[axis++];
      continue;
    }
    if (k >= nstarts) {
      PyErr_SetString(PyExc_ValueError, "For 'BasicIndex', fewer start values than the items "
                      "take");
      return nullptr;
    }
    Py_ssize_t s;
    if (!get_start(args[1 + k++], &s)) return nullptr;
    if (bad_start(s, kind, step, xd[axis])) {
      PyErr_Format(PyExc_ValueError, "For 'BasicIndex', start %zd is out of bounds for an axis "
                   "of size %zd", s, static_cast<Py_ssize_t>(xd[axis]));
      return nullptr;
    }
    if (kind == -1) {
      data += (s < 0 ? s + xd[axis] : s) * xs[axis];
    } else {
      if (!room(nd)) return nullptr;
      if (kind > 0) data += s * xs[axis];
      dims[nd] = kind;
      strides[nd++] = kind > 1 ? step * xs[axis] : xs[axis];   // |step| < d when kind > 1
    }
    ++axis;
  }
  if (k != nstarts) {
    PyErr_SetString(PyExc_ValueError, "For 'BasicIndex', more start values than the items "
                    "take");
    return nullptr;
  }
  for (; axis < xnd; ++axis) {
    if (!room(nd)) return nullptr;
    dims[nd] = xd[axis];
    strides[nd++] = xs[axis];
  }
  if (!out_ok(x, out, nd, dims)) return nullptr;
  return copy_view(x, out, data, nd, dims, strides);
}

PyMethodDef g_functions[] = {
    {"basic_index", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(basic_index)),
     METH_FASTCALL, "basic_index(x, starts..., out[, items]): out[...] = x at the index "
     "(BasicIndex; without items: the row x[i])."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_index_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_functions) == 0;
}

}  // namespace mindlite
