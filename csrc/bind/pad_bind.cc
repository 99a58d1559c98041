// Fast-call entry point of PadV3's row gather (kernels/pad_rows.h), what
// kernels/cpu/pad_cpp.py calls:
//   _C.pad_rows(x, out, rows, cols, ks, ke, lo[, fill])
// x: C-contiguous, at least 2-D, seen as (A, H, W); out: C-contiguous, writeable, x's dtype, the
// same leading dims, last two (len(rows), len(cols)); rows / cols: 1-D C-contiguous int64 in
// [0, H) / [0, W); ks <= ke <= len(cols) with columns [ks - lo, ke - lo) inside [0, W).
// fill (constant mode): a one-element array of x's dtype, written where rows / cols hold -1.
// Everything is checked before anything is written (TypeError / ValueError "For 'PadV3', ...");
// runs without the GIL.
#include "bind/pad_bind.h"

#include "bind/numpy_api.h"
#include "kernels/pad_rows.h"

namespace mindlite {
namespace {

PyObject* fail(PyObject* type, const char* what) {
  PyErr_Format(type, "For 'PadV3', %s", what);
  return nullptr;
}

PyArrayObject* index_array(PyObject* o, int64_t limit, const char* name, bool fill) {
  if (!PyArray_Check(o)) return nullptr;
  auto* a = reinterpret_cast<PyArrayObject*>(o);
  if (PyArray_TYPE(a) != NPY_INT64 || PyArray_NDIM(a) != 1 || !PyArray_IS_C_CONTIGUOUS(a)) {
    PyErr_Format(PyExc_TypeError, "For 'PadV3', '%s' must be a 1-D C-contiguous int64 array",
                 name);
    return nullptr;
  }
  const auto* v = static_cast<const int64_t*>(PyArray_DATA(a));
  for (npy_intp k = 0; k < PyArray_DIM(a, 0); ++k) {
    if (v[k] < (fill ? -1 : 0) || v[k] >= limit) {
      PyErr_Format(PyExc_ValueError, "For 'PadV3', '%s' must index an axis of size %lld, but "
                   "holds %lld", name, static_cast<long long>(limit),
                   static_cast<long long>(v[k]));
      return nullptr;
    }
  }
  return a;
}

PyObject* pad_rows(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 7 && n != 8) {
    return fail(PyExc_TypeError, "pad_rows takes (x, out, rows, cols, ks, ke, lo[, fill])");
  }
  if (!PyArray_Check(args[0]) || !PyArray_Check(args[1])) {
    return fail(PyExc_TypeError, "'x' and 'out' must be numpy arrays");
  }
  auto* x = reinterpret_cast<PyArrayObject*>(args[0]);
  auto* out = reinterpret_cast<PyArrayObject*>(args[1]);
  const int nd = PyArray_NDIM(x);
  if (nd < 2 || PyArray_NDIM(out) != nd || !PyArray_IS_C_CONTIGUOUS(x) ||
      !PyArray_IS_C_CONTIGUOUS(out) || !PyArray_ISWRITEABLE(out)) {
    return fail(PyExc_ValueError, "'x' and 'out' must be C-contiguous arrays of one rank >= 2, "
                "'out' writeable");
  }
  if (!PyArray_EquivTypes(PyArray_DESCR(x), PyArray_DESCR(out)) ||
      PyDataType_REFCHK(PyArray_DESCR(x))) {
    return fail(PyExc_TypeError, "'out' must have the dtype of 'x' (not object)");
  }
  const int64_t isz = PyArray_ITEMSIZE(x);
  if (isz != 1 && isz != 2 && isz != 4 && isz != 8 && isz != 16) {
    return fail(PyExc_TypeError, "the element size must be 1, 2, 4, 8 or 16 bytes");
  }
  int64_t planes = 1;
  for (int d = 0; d < nd - 2; ++d) {
    if (PyArray_DIM(x, d) != PyArray_DIM(out, d)) {
      return fail(PyExc_ValueError, "'out' must have the leading dims of 'x'");
    }
    planes *= PyArray_DIM(x, d);
  }
  const char* fill = nullptr;
  if (n == 8) {
    if (!PyArray_Check(args[7]) || PyArray_SIZE(reinterpret_cast<PyArrayObject*>(args[7])) != 1 ||
        !PyArray_EquivTypes(PyArray_DESCR(reinterpret_cast<PyArrayObject*>(args[7])),
                            PyArray_DESCR(x))) {
      return fail(PyExc_TypeError, "'fill' must be a one-element array of the dtype of 'x'");
    }
    fill = static_cast<const char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(args[7])));
  }
  const int64_t h = PyArray_DIM(x, nd - 2), w = PyArray_DIM(x, nd - 1);
  PyArrayObject* rows = index_array(args[2], h, "rows", fill != nullptr);
  PyArrayObject* cols = rows ? index_array(args[3], w, "cols", fill != nullptr) : nullptr;
  if (!cols) {
    if (!PyErr_Occurred()) fail(PyExc_TypeError, "'rows' and 'cols' must be numpy arrays");
    return nullptr;
  }
  const int64_t ho = PyArray_DIM(rows, 0), wo = PyArray_DIM(cols, 0);
  if (PyArray_DIM(out, nd - 2) != ho || PyArray_DIM(out, nd - 1) != wo) {
    return fail(PyExc_ValueError, "'out' must end in (len(rows), len(cols))");
  }
  const long long ks = PyLong_AsLongLong(args[4]), ke = PyLong_AsLongLong(args[5]),
                  lo = PyLong_AsLongLong(args[6]);
  if (PyErr_Occurred()) return nullptr;
  if (ks < 0 || ke < ks || ke > wo || (ke > ks && (ks - lo < 0 || ke - lo > w))) {
    return fail(PyExc_ValueError, "the kept block [ks, ke) must lie in the output row and "
                "[ks - lo, ke - lo) in the input row");
  }
  if (PyArray_SIZE(x) == 0 && planes * ho * wo != 0) {
    return fail(PyExc_ValueError, "'x' is empty but 'out' is not");
  }
  const PadRowsPlan plan{planes, h, w, ho, wo,
                         static_cast<const int64_t*>(PyArray_DATA(rows)),
                         static_cast<const int64_t*>(PyArray_DATA(cols)), ks, ke, lo, isz,
                         fill};
  const char* px = static_cast<const char*>(PyArray_DATA(x));
  char* po = static_cast<char*>(PyArray_DATA(out));
  Py_BEGIN_ALLOW_THREADS
  run_pad_rows(plan, px, po);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

PyMethodDef g_functions[] = {
    {"pad_rows", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(pad_rows)),
     METH_FASTCALL, "pad_rows(x, out, rows, cols, ks, ke, lo[, fill]): PadV3's gather over the last "
     "two axes, any mode (kernels/pad_rows.h)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_pad_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_functions) == 0;
}

}  // namespace mindlite
