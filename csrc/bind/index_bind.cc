// Fast-call (METH_FASTCALL) entry point of BasicIndex's row layout, x[i] (`for row in x`);
// what kernels/cpu/index_cpp.py registers:
//   _C.basic_index_row(x, i, out)
// x: an ndarray of rank >= 1 (any strides); i: an int or 0-d integer array (the FastRunner
// passes the int64 it converted the Python int to) in [-d, d) for d = x.shape[0]; out: a
// writeable ndarray of x's dtype and shape x.shape[1:]. Everything is checked before
// anything is written: TypeError / ValueError "For 'BasicIndex', ...". A C-contiguous row
// into a C-contiguous out is one memcpy; anything else is numpy's PyArray_CopyInto of the row
// view. Runs with the GIL held.
#include "bind/index_bind.h"

#include <cstring>

#include "bind/numpy_api.h"

namespace mindlite {
namespace {

bool check_out(PyArrayObject* x, PyArrayObject* out) {
  const int nd = PyArray_NDIM(x);
  if (!PyArray_EquivTypes(PyArray_DESCR(x), PyArray_DESCR(out))) {
    PyErr_SetString(PyExc_TypeError, "For 'BasicIndex', 'out' must have the dtype of 'x'");
    return false;
  }
  bool same = PyArray_NDIM(out) == nd - 1;
  for (int k = 1; same && k < nd; ++k) same = PyArray_DIM(out, k - 1) == PyArray_DIM(x, k);
  if (!same) {
    PyErr_SetString(PyExc_ValueError, "For 'BasicIndex', 'out' must have the shape of a row "
                    "of 'x' (x.shape[1:])");
    return false;
  }
  if (!PyArray_ISWRITEABLE(out)) {
    PyErr_SetString(PyExc_ValueError, "For 'BasicIndex', 'out' must be writeable");
    return false;
  }
  return true;
}

PyObject* basic_index_row(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_Format(PyExc_TypeError, "For 'BasicIndex', the row kernel takes (x, index, out), "
                 "but got %zd arguments", nargs);
    return nullptr;
  }
  if (!PyArray_Check(args[0]) || !PyArray_Check(args[2])) {
    PyErr_SetString(PyExc_TypeError, "For 'BasicIndex', 'x' and 'out' must be numpy arrays");
    return nullptr;
  }
  auto* x = reinterpret_cast<PyArrayObject*>(args[0]);
  auto* out = reinterpret_cast<PyArrayObject*>(args[2]);
  if (PyArray_NDIM(x) < 1) {
    PyErr_SetString(PyExc_ValueError, "For 'BasicIndex', 'x' must have rank >= 1 to take a row");
    return nullptr;
  }
  const npy_intp d = PyArray_DIM(x, 0);
  Py_ssize_t i = PyNumber_AsSsize_t(args[1], nullptr);    // clamps on overflow
  if (i == -1 && PyErr_Occurred()) return nullptr;          // not an integer: TypeError
  if (i < -d || i >= d) {
    PyErr_Format(PyExc_ValueError, "For 'BasicIndex', index %zd is out of bounds for an axis "
                 "of size %zd", i, static_cast<Py_ssize_t>(d));
    return nullptr;
  }
  if (!check_out(x, out)) return nullptr;
  if (i < 0) i += d;
  char* row = PyArray_BYTES(x) + i * PyArray_STRIDE(x, 0);
  PyArray_Descr* descr = PyArray_DESCR(x);
  if (PyArray_IS_C_CONTIGUOUS(x) && PyArray_IS_C_CONTIGUOUS(out) && !PyDataType_REFCHK(descr)) {
    std::memcpy(PyArray_DATA(out), row, static_cast<size_t>(PyArray_NBYTES(out)));
    Py_RETURN_NONE;
  }
  Py_INCREF(descr);
  PyObject* view = PyArray_NewFromDescr(&PyArray_Type, descr, PyArray_NDIM(x) - 1,
                                        PyArray_DIMS(x) + 1, PyArray_STRIDES(x) + 1, row, 0,
                                        nullptr);
  if (!view) return nullptr;
  Py_INCREF(args[0]);
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(view), args[0]) < 0) {
    Py_DECREF(view);
    return nullptr;
  }
  const int rc = PyArray_CopyInto(out, reinterpret_cast<PyArrayObject*>(view));
  Py_DECREF(view);
  if (rc < 0) return nullptr;
  Py_RETURN_NONE;
}

PyMethodDef g_functions[] = {
    {"basic_index_row",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(basic_index_row)),
     METH_FASTCALL, "basic_index_row(x, i, out): out[...] = x[i] (BasicIndex's row layout)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_index_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_functions) == 0;
}

}  // namespace mindlite
