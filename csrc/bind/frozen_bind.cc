// Frozen arrays (runtime/frozen_buffer.h), what the Lite runtime holds its model constants in:
//   _C.frozen_copy(a) -> a read-only C-contiguous copy of the numpy array a (64-byte aligned),
//       in a frozen block: its base is a capsule that frees the block, not an array, so numpy
//       refuses `flags.writeable = True`, and kernels may trust its contents by id
//   _C.frozen_id(a) -> the frozen block's id when a's data is the start of one, else 0
#include "bind/frozen_bind.h"

#include "bind/numpy_api.h"
#include "runtime/frozen_buffer.h"

namespace mindlite {
namespace {

constexpr const char* kCapsule = "mindlite.frozen_block";

void free_block(PyObject* capsule) {
  frozen_free(PyCapsule_GetPointer(capsule, kCapsule));
}

PyObject* py_frozen_copy(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1 || !PyArray_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "For 'mindlite._C.frozen_copy', expected one numpy array");
    return nullptr;
  }
  auto* src = reinterpret_cast<PyArrayObject*>(args[0]);
  PyArray_Descr* descr = PyArray_DESCR(src);
  if (PyDataType_REFCHK(descr)) {
    PyErr_SetString(PyExc_TypeError, "For 'mindlite._C.frozen_copy', the array must not hold "
                    "Python objects");
    return nullptr;
  }
  const size_t bytes = static_cast<size_t>(PyArray_NBYTES(src));
  void* block = frozen_alloc(bytes);
  if (block == nullptr) return PyErr_NoMemory();
  PyObject* capsule = PyCapsule_New(block, kCapsule, free_block);
  if (capsule == nullptr) {
    frozen_free(block);
    return nullptr;
  }
  Py_INCREF(descr);                          // (NewFromDescr steals it)
  PyObject* arr = PyArray_NewFromDescr(&PyArray_Type, descr, PyArray_NDIM(src),
                                       PyArray_DIMS(src), nullptr, block,
                                       NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED |
                                           NPY_ARRAY_WRITEABLE, nullptr);
  if (arr == nullptr) {
    Py_DECREF(capsule);
    return nullptr;
  }
  auto* dst = reinterpret_cast<PyArrayObject*>(arr);
  if (PyArray_SetBaseObject(dst, capsule) < 0) {     // (steals the capsule, even on failure)
    Py_DECREF(arr);
    return nullptr;
  }
  if (PyArray_CopyInto(dst, src) < 0) {
    Py_DECREF(arr);
    return nullptr;
  }
  PyArray_CLEARFLAGS(dst, NPY_ARRAY_WRITEABLE);
  frozen_register(block, bytes);
  return arr;
}

PyObject* py_frozen_id(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1 || !PyArray_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "For 'mindlite._C.frozen_id', expected one numpy array");
    return nullptr;
  }
  auto* a = reinterpret_cast<PyArrayObject*>(args[0]);
  return PyLong_FromUnsignedLongLong(
      frozen_id(PyArray_DATA(a), static_cast<size_t>(PyArray_NBYTES(a))));
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"frozen_copy", MINDLITE_FASTCALL(py_frozen_copy),
     "frozen_copy(a) -> a read-only, C-contiguous, 64-byte-aligned copy of a whose contents "
     "can never change (kernels may cache what they derive from it)."},
    {"frozen_id", MINDLITE_FASTCALL(py_frozen_id),
     "frozen_id(a) -> the id of the frozen block a's data starts (0: not frozen)."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_frozen_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
