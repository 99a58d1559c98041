// The BLAS thread control numpy's GEMMs run under: mindlite/kernels/cpu/_blas.py finds the
// OpenBLAS library numpy loaded and attaches it here, then runs small GEMMs on one thread.
//   _C.blas_attach(path) -> bool     dlopen(path, RTLD_NOLOAD) of an already loaded library
//                                    and look up openblas_set_num_threads_local (OpenBLAS
//                                    >= 0.3.27); False (nothing attached) when either fails
//   _C.blas_threads_local(n) -> int  the calling thread's OpenBLAS thread count for its next
//                                    GEMMs (n >= 0; 0: the library's global count), returns
//                                    the previous one; -1 and nothing done when unattached
// NOTE: OpenBLAS threads a GEMM from M N K >= 2**19 on; its workers then spin for a while
// after each one, so a training step of small GEMMs keeps a second core busy spinning (on the
// 2-core machine: the main thread's CPU time per CNN step 1.6 ms -> 2.1-3.3 ms, the process's
// 4.3-6.8 ms). The thread-local setting leaves other threads, and the user's own numpy calls
// once restored, as they were.
#include "bind/blas_bind.h"

#include <dlfcn.h>

#include <atomic>

namespace mindlite {
namespace {

using SetLocalFn = int (*)(int);
std::atomic<SetLocalFn> g_set_local{nullptr};

PyObject* py_blas_attach(PyObject*, PyObject* path) {
  if (!PyUnicode_Check(path)) {
    PyErr_Format(PyExc_TypeError, "For 'mindlite._C.blas_attach', 'path' must be str, but got "
                 "%s", Py_TYPE(path)->tp_name);
    return nullptr;
  }
  const char* p = PyUnicode_AsUTF8(path);
  if (!p) return nullptr;
  // RTLD_NOLOAD: only a library this process already loaded (numpy's); the handle is kept
  // for the life of the process, as numpy keeps the library itself
  void* h = dlopen(p, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) Py_RETURN_FALSE;
  auto fn = reinterpret_cast<SetLocalFn>(dlsym(h, "openblas_set_num_threads_local"));
  if (!fn) {
    dlclose(h);
    Py_RETURN_FALSE;
  }
  g_set_local.store(fn);
  Py_RETURN_TRUE;
}

PyObject* py_blas_threads_local(PyObject*, PyObject* n) {
  const long k = PyLong_Check(n) ? PyLong_AsLong(n) : -1;
  if (k < 0 || k > 4096) {
    if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError, "For 'mindlite._C.blas_threads_local', 'n' must be an int "
                   "in [0, 4096], but got %R", n);
    }
    return nullptr;
  }
  const SetLocalFn fn = g_set_local.load(std::memory_order_relaxed);
  if (!fn) return PyLong_FromLong(-1);
  return PyLong_FromLong(fn(static_cast<int>(k)));
}

PyMethodDef kMethods[] = {
    {"blas_attach", py_blas_attach, METH_O,
     "blas_attach(path) -> bool: attach the loaded OpenBLAS at path (its thread control)."},
    {"blas_threads_local", py_blas_threads_local, METH_O,
     "blas_threads_local(n) -> previous: this thread's OpenBLAS threads (0: global); -1 when "
     "no OpenBLAS is attached."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_blas_functions(PyObject* module) {
  return PyModule_AddFunctions(module, kMethods) == 0;
}

}  // namespace mindlite
