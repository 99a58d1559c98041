// The cached op call in C (MindSpore's Tensor_ / Primitive_ bases), shared by fast_path.cc
// (TensorBase, PrimitiveBase: the key and the runner lookup) and fast_runner.cc (FastRunner).
#pragma once

#include <Python.h>

namespace mindlite {

bool add_fast_path(PyObject* module);     // registers all three types and the functions

namespace fast {

struct TensorBase {
  PyObject_HEAD
  PyObject* arr;
  PyObject* abs;
};

extern PyTypeObject g_tensor_base;
extern PyTypeObject* g_tensor_type;      // mindlite.Tensor, set by set_tensor_type
// The calling thread's grad recorder: its list of open tapes while it records, else nullptr
// (a strong reference, set by set_grad_tapes from pynative/grad.py). Per thread, as the
// recorder's Python state is: one thread's ops never reach another thread's tapes.
// NOTE: __thread (constant-initialised: no C++ TLS wrapper call) with initial-exec makes the
// read one %fs-relative load instead of a __tls_get_addr call (every cached op call reads
// it); it takes 8 bytes of the static TLS surplus glibc keeps for dlopen'ed libraries.
#if defined(__GNUC__)
#define MINDLITE_THREAD_LOCAL __thread __attribute__((tls_model("initial-exec")))
#else
#define MINDLITE_THREAD_LOCAL thread_local
#endif
extern MINDLITE_THREAD_LOCAL PyObject* t_grad_tapes;
extern PyTypeObject g_fast_runner;

inline bool is_tensor(PyObject* o) {
  return Py_TYPE(o) == g_tensor_type || PyObject_TypeCheck(o, &g_tensor_base);
}

// A new Tensor owning `arr` (stolen) with abstract `abs` (borrowed).
PyObject* new_tensor(PyObject* arr, PyObject* abs);

// The op name for error messages (the primitive's `name`, else its repr); a new reference.
PyObject* prim_name(PyObject* prim);

// Runs a FastRunner on a call's args tuple.
PyObject* fast_run(PyObject* runner, PyObject* args);

// Fills the common slots of a GC-tracked C type.
void init_type(PyTypeObject* type, const char* name, Py_ssize_t size, bool base,
               const char* doc, traverseproc traverse, inquiry clear, destructor dealloc);

bool add_fast_runner(PyObject* module);    // fast_runner.cc

}  // namespace fast
}  // namespace mindlite
