// Fast-call entry point of the strided copy (kernels/copy_rows.h), what
// kernels/cpu/copy_cpp.py calls:
//   _C.copy_strided(src, out, op)
// src: any numpy array (a transposed or sliced view); out: C-contiguous, writeable, src's shape
// and dtype (1, 2, 4, 8 or 16-byte elements, not object), not overlapping src. `op` names the
// primitive in errors. Everything is checked before anything is written (TypeError /
// ValueError "For '<op>', ..."); runs without the GIL.
#include "bind/copy_bind.h"

#include "bind/numpy_api.h"
#include "kernels/copy_rows.h"

namespace mindlite {
namespace {

// [lo, hi) bytes an array's elements touch.
void extent(PyArrayObject* a, intptr_t* lo, intptr_t* hi) {
  intptr_t b = reinterpret_cast<intptr_t>(PyArray_DATA(a)), e = b;
  for (int d = 0; d < PyArray_NDIM(a); ++d) {
    const intptr_t span = static_cast<intptr_t>(PyArray_STRIDE(a, d)) * (PyArray_DIM(a, d) - 1);
    if (span < 0) b += span; else e += span;
  }
  *lo = b;
  *hi = e + PyArray_ITEMSIZE(a);
}

PyObject* copy_strided(PyObject*, PyObject* const* args, Py_ssize_t n) {
  const char* op = n == 3 && PyUnicode_Check(args[2]) ? PyUnicode_AsUTF8(args[2]) : nullptr;
  if (op == nullptr) {
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError, "copy_strided takes (src, out, op: str)");
    return nullptr;
  }
  if (!PyArray_Check(args[0]) || !PyArray_Check(args[1])) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'src' and 'out' must be numpy arrays", op);
    return nullptr;
  }
  auto* src = reinterpret_cast<PyArrayObject*>(args[0]);
  auto* out = reinterpret_cast<PyArrayObject*>(args[1]);
  const int nd = PyArray_NDIM(src);
  if (PyArray_NDIM(out) != nd || !PyArray_IS_C_CONTIGUOUS(out) || !PyArray_ISWRITEABLE(out) ||
      nd > kCopyMaxDims) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'out' must be a writeable C-contiguous array of "
                 "the rank of 'src' (at most %d dims)", op, kCopyMaxDims);
    return nullptr;
  }
  if (!PyArray_EquivTypes(PyArray_DESCR(src), PyArray_DESCR(out)) ||
      PyDataType_REFCHK(PyArray_DESCR(src))) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'out' must have the dtype of 'src' (not object)",
                 op);
    return nullptr;
  }
  const int64_t isz = PyArray_ITEMSIZE(src);
  if (isz != 1 && isz != 2 && isz != 4 && isz != 8 && isz != 16) {
    PyErr_Format(PyExc_TypeError, "For '%s', the element size must be 1, 2, 4, 8 or 16 bytes, "
                 "but got %lld", op, static_cast<long long>(isz));
    return nullptr;
  }
  int64_t shape[kCopyMaxDims], strides[kCopyMaxDims];
  for (int d = 0; d < nd; ++d) {
    if (PyArray_DIM(src, d) != PyArray_DIM(out, d)) {
      PyErr_Format(PyExc_ValueError, "For '%s', 'out' must have the shape of 'src'", op);
      return nullptr;
    }
    shape[d] = PyArray_DIM(src, d);
    strides[d] = PyArray_STRIDE(src, d);
  }
  if (PyArray_SIZE(out) == 0) Py_RETURN_NONE;
  intptr_t slo, shi, olo, ohi;
  extent(src, &slo, &shi);
  extent(out, &olo, &ohi);
  if (slo < ohi && olo < shi) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'out' must not overlap 'src'", op);
    return nullptr;
  }
  CopyPlan plan;
  plan_copy(nd, shape, strides, isz, &plan);
  const char* ps = static_cast<const char*>(PyArray_DATA(src));
  char* po = static_cast<char*>(PyArray_DATA(out));
  Py_BEGIN_ALLOW_THREADS
  run_copy(plan, ps, po);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

PyMethodDef g_functions[] = {
    {"copy_strided",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(copy_strided)),
     METH_FASTCALL, "copy_strided(src, out, op): out (C-contiguous) = the strided array src, "
     "runs copied as blocks (kernels/copy_rows.h)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_copy_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_functions) == 0;
}

}  // namespace mindlite
