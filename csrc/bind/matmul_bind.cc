// Fast-call entry point of the small-matrix MatMul kernel:
//   _C.matmul(a, b, out, transpose_a=False, transpose_b=False)
// out = op(a) @ op(b); a, b 2-D float32/float64 of one dtype, out C-contiguous (M, N).
#include "bind/array_args.h"  // Python.h first
#include "bind/elementwise_bind.h"
#include "kernels/matmul.h"

#include <new>

namespace mindlite {
namespace {

const char* const kMatmulFn = "mindlite._C.matmul";

bool flag_arg(PyObject* o, const char* name, bool* value) {
  if (!PyBool_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a bool, but got %s", kMatmulFn, name,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  *value = o == Py_True;
  return true;
}

// Positional (a, b, out[, transpose_a[, transpose_b]]) and the two flags by keyword.
bool parse_args(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject* arr[3],
                bool* ta, bool* tb) {
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs < 3 || nargs > 5) {
    PyErr_Format(PyExc_TypeError, "For '%s', expected 3 to 5 positional arguments (a, b, out, "
                 "transpose_a, transpose_b), but got %zd", kMatmulFn, nargs);
    return false;
  }
  PyObject* flags[2] = {nargs > 3 ? args[3] : nullptr, nargs > 4 ? args[4] : nullptr};
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, i);
    int which = PyUnicode_CompareWithASCIIString(key, "transpose_a") == 0   ? 0
                : PyUnicode_CompareWithASCIIString(key, "transpose_b") == 0 ? 1
                                                                            : -1;
    if (which < 0 || flags[which] != nullptr) {
      PyErr_Format(PyExc_TypeError, "For '%s', unexpected or repeated keyword argument %R",
                   kMatmulFn, key);
      return false;
    }
    flags[which] = args[nargs + i];
  }
  for (int i = 0; i < 3; ++i) arr[i] = args[i];
  *ta = *tb = false;
  return (!flags[0] || flag_arg(flags[0], "transpose_a", ta)) &&
         (!flags[1] || flag_arg(flags[1], "transpose_b", tb));
}

PyObject* py_matmul(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* objs[3];
  bool ta, tb;
  if (!parse_args(args, nargs, kwnames, objs, &ta, &tb)) return nullptr;
  const CallSite cs{kMatmulFn, "MatMul"};
  PyArrayObject* a = as_array(cs, "a", objs[0]);
  PyArrayObject* b = a ? as_array(cs, "b", objs[1]) : nullptr;
  PyArrayObject* out = b ? as_array(cs, "out", objs[2]) : nullptr;
  if (!out) return nullptr;
  const bool floats[kNumDTypes] = {true, true, false, false, false};
  const int dt = array_dtype(a);
  if (dt != kF32 && dt != kF64) {
    dtype_error(cs, "a", a, floats);
    return nullptr;
  }
  bool want[kNumDTypes] = {};
  want[dt] = true;
  if (array_dtype(b) != dt || array_dtype(out) != dt) {
    bool bad_b = array_dtype(b) != dt;
    dtype_error(cs, bad_b ? "b" : "out", bad_b ? b : out, want);
    return nullptr;
  }
  if (!check_out(cs, out)) return nullptr;
  const char* names[3] = {"a", "b", "out"};
  PyArrayObject* arrs[3] = {a, b, out};
  for (int i = 0; i < 3; ++i) {
    if (PyArray_NDIM(arrs[i]) != 2) {
      PyErr_Format(PyExc_ValueError, "For '%s' (op 'MatMul'), '%s' must be 2-D, but got shape %s",
                   kMatmulFn, names[i],
                   shape_str(PyArray_NDIM(arrs[i]), PyArray_DIMS(arrs[i])).c_str());
      return nullptr;
    }
  }
  const npy_intp *sa = PyArray_DIMS(a), *sb = PyArray_DIMS(b), *so = PyArray_DIMS(out);
  const int64_t m = ta ? sa[1] : sa[0], k = ta ? sa[0] : sa[1];
  const int64_t kb = tb ? sb[1] : sb[0], n = tb ? sb[0] : sb[1];
  if (k != kb) {
    PyErr_Format(PyExc_ValueError, "For '%s' (op 'MatMul'), the contracted dims must match: 'a' "
                 "shape %s (transpose_a=%s) and 'b' shape %s (transpose_b=%s)", kMatmulFn,
                 shape_str(2, sa).c_str(), ta ? "True" : "False", shape_str(2, sb).c_str(),
                 tb ? "True" : "False");
    return nullptr;
  }
  if (so[0] != m || so[1] != n) {
    npy_intp want_shape[2] = {static_cast<npy_intp>(m), static_cast<npy_intp>(n)};
    PyErr_Format(PyExc_ValueError, "For '%s' (op 'MatMul'), 'out' shape must be %s, but got %s",
                 kMatmulFn, shape_str(2, want_shape).c_str(), shape_str(2, so).c_str());
    return nullptr;
  }
  PyArrayObject* ar = readable(a, out, false);
  if (!ar) return nullptr;
  PyArrayObject* br = readable(b, out, false);
  if (!br) {
    Py_DECREF(ar);
    return nullptr;
  }
  bool ok = true;
  try {
    run_matmul(dt, operand_of(ar, 0), operand_of(br, 0), ta, tb, PyArray_BYTES(out), m, n, k);
  } catch (const std::bad_alloc&) {  // packing buffers
    ok = false;
  }
  Py_DECREF(ar);
  Py_DECREF(br);
  if (!ok) return PyErr_NoMemory();
  Py_RETURN_NONE;
}

PyMethodDef g_methods[] = {
    {"matmul",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_matmul)),
     METH_FASTCALL | METH_KEYWORDS,
     "matmul(a, b, out, transpose_a=False, transpose_b=False): out = op(a) @ op(b) for small "
     "2-D float32/float64 matrices (no BLAS call)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_matmul_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
