// The BLAS thread control numpy's GEMMs run under: mindlite/kernels/cpu/_blas.py finds the
// OpenBLAS library numpy loaded and attaches it here, then runs small GEMMs on one thread.
//   _C.blas_attach(path) -> bool     dlopen(path, RTLD_NOLOAD) of an already loaded library
//                                    and look up openblas_set_num_threads_local (OpenBLAS
//                                    >= 0.3.27); False (nothing attached) when either fails
//   _C.blas_threads_local(n) -> int  sets OpenBLAS's thread count for the next GEMMs (n >= 0;
//                                    0: the library's global count), returns the previous one;
//                                    -1 and nothing done when unattached
//   _C.blas_single_enter() / _C.blas_single_exit()
//                                    bracket a GEMM that is to run on one thread (_blas.matmul):
//                                    counted, so concurrent callers restore the count once
// NOTE: in the pthreads OpenBLAS numpy ships (0.3.27 to 0.3.31 at least) the "_local" setter
// sets the PROCESS-wide count, not the calling thread's. Two threads each saving and restoring
// it around their GEMMs (numpy drops the GIL in them) interleave as set 1 / set 1 / restore 2 /
// restore 1 and leave it at 1 for good; the enter / exit pair keeps one count of GEMMs inside
// the bracket and restores the saved setting when the last one leaves (kernels/blas_threads.h:
// one count, under a mutex, shared with the recurrent layers' GEMMs, which run without the
// GIL). While any is inside, another thread's large GEMM also runs on one thread (same
// result: a GEMM never splits K).
// NOTE: OpenBLAS threads a GEMM from M N K >= 2**19 on; its workers then spin for a while
// after each one, so a training step of small GEMMs keeps a second core busy spinning (on the
// 2-core machine: the main thread's CPU time per CNN step 1.6 ms -> 2.1-3.3 ms, the process's
// 4.3-6.8 ms). The thread-local setting leaves other threads, and the user's own numpy calls
// once restored, as they were (see the NOTE above: where the setting is process-wide, other
// threads' GEMMs run single-threaded while one is inside the bracket).
#include "bind/blas_bind.h"

#include <dlfcn.h>

#include "kernels/blas_threads.h"

namespace mindlite {
namespace {

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
  auto fn = reinterpret_cast<BlasSetThreadsFn>(dlsym(h, "openblas_set_num_threads_local"));
  if (!fn) {
    dlclose(h);
    Py_RETURN_FALSE;
  }
  blas_threads_attach(fn);
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
  const BlasSetThreadsFn fn = blas_threads_fn();
  if (!fn) return PyLong_FromLong(-1);
  return PyLong_FromLong(fn(static_cast<int>(k)));
}

PyObject* py_blas_single_enter(PyObject*, PyObject*) {
  blas_single_enter();
  Py_RETURN_NONE;
}

PyObject* py_blas_single_exit(PyObject*, PyObject*) {
  blas_single_exit();
  Py_RETURN_NONE;
}

PyMethodDef kMethods[] = {
    {"blas_attach", py_blas_attach, METH_O,
     "blas_attach(path) -> bool: attach the loaded OpenBLAS at path (its thread control)."},
    {"blas_threads_local", py_blas_threads_local, METH_O,
     "blas_threads_local(n) -> previous: this thread's OpenBLAS threads (0: global); -1 when "
     "no OpenBLAS is attached."},
    {"blas_single_enter", py_blas_single_enter, METH_NOARGS,
     "blas_single_enter(): the next GEMMs run on one BLAS thread until the matching "
     "blas_single_exit() (counted across threads)."},
    {"blas_single_exit", py_blas_single_exit, METH_NOARGS,
     "blas_single_exit(): leave blas_single_enter's bracket; the last one out restores the "
     "thread count."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_blas_functions(PyObject* module) {
  return PyModule_AddFunctions(module, kMethods) == 0;
}

}  // namespace mindlite
