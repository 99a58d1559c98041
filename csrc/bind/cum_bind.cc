// Fast-call entry point of the CumSum / CumProd row loops (kernels/cum_rows.h), what
// kernels/cpu/cum_cpp.py calls:
//   _C.cum_rows(x, out, prod, exclusive, reverse)
// x, out: C-contiguous arrays of one shape and dtype (float32, float64, int32 or int64), out
// writeable; the cumulative axis is the last. Checked before anything is written (TypeError /
// ValueError "For 'CumSum', ..."); runs without the GIL.
#include "bind/cum_bind.h"

#include "bind/numpy_api.h"
#include "kernels/cum_rows.h"

namespace mindlite {
namespace {

PyObject* fail(PyObject* type, const char* what) {
  PyErr_Format(type, "For 'CumSum', %s", what);
  return nullptr;
}

PyObject* cum_rows(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 5) return fail(PyExc_TypeError, "cum_rows takes (x, out, prod, exclusive, reverse)");
  if (!PyArray_Check(args[0]) || !PyArray_Check(args[1])) {
    return fail(PyExc_TypeError, "'x' and 'out' must be numpy arrays");
  }
  auto* x = reinterpret_cast<PyArrayObject*>(args[0]);
  auto* out = reinterpret_cast<PyArrayObject*>(args[1]);
  const int nd = PyArray_NDIM(x);
  if (nd < 1 || PyArray_NDIM(out) != nd || !PyArray_IS_C_CONTIGUOUS(x) ||
      !PyArray_IS_C_CONTIGUOUS(out) || !PyArray_ISWRITEABLE(out)) {
    return fail(PyExc_ValueError, "'x' and 'out' must be C-contiguous arrays of one rank >= 1, "
                "'out' writeable");
  }
  for (int d = 0; d < nd; ++d) {
    if (PyArray_DIM(x, d) != PyArray_DIM(out, d)) {
      return fail(PyExc_ValueError, "'out' must have the shape of 'x'");
    }
  }
  const int type = PyArray_TYPE(x);
  if (PyArray_TYPE(out) != type) return fail(PyExc_TypeError, "'out' must have x's dtype");
  int dt;
  switch (type) {
    case NPY_FLOAT32: dt = kCumF32; break;
    case NPY_FLOAT64: dt = kCumF64; break;
    case NPY_INT32: dt = kCumI32; break;
    case NPY_INT64: dt = kCumI64; break;
    default: return fail(PyExc_TypeError, "the dtype must be float32, float64, int32 or int64");
  }
  const int prod = PyObject_IsTrue(args[2]), exclusive = PyObject_IsTrue(args[3]),
            reverse = PyObject_IsTrue(args[4]);
  if (prod < 0 || exclusive < 0 || reverse < 0) return nullptr;
  const int64_t last = PyArray_DIM(x, nd - 1);
  const CumRowsPlan plan{last ? static_cast<int64_t>(PyArray_SIZE(x)) / last : 0, last, dt,
                         prod != 0, exclusive != 0, reverse != 0};
  const char* px = static_cast<const char*>(PyArray_DATA(x));
  char* po = static_cast<char*>(PyArray_DATA(out));
  Py_BEGIN_ALLOW_THREADS
  run_cum_rows(plan, px, po);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

PyMethodDef g_functions[] = {
    {"cum_rows", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(cum_rows)),
     METH_FASTCALL, "cum_rows(x, out, prod, exclusive, reverse): CumSum / CumProd along the "
     "last axis, rows split across the thread pool (kernels/cum_rows.h)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_cum_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_functions) == 0;
}

}  // namespace mindlite
