// The BLAS thread control numpy's GEMMs run under: mindlite/kernels/cpu/_blas.py finds the
// OpenBLAS library numpy loaded and attaches it here, then runs small GEMMs on one thread.
//   _C.blas_attach(path) -> bool     dlopen(path, RTLD_NOLOAD) of an already loaded library
//                                    and look up openblas_set_num_threads_local (OpenBLAS
//                                    >= 0.3.27); False (nothing attached) when either fails
//   _C.blas_threads_local(n) -> int  sets OpenBLAS's thread count for the next GEMMs (n >= 0;
//                                    0: the library's global count), returns the previous one;
//                                    -1 and nothing done when unattached
//   _C.batch_gemm(a, b, out) -> bool
//                                    BatchMatMul's stacked products on the attached BLAS
//                                    (kernels/blas_gemm.h); False when it cannot read a / b
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

#include <algorithm>

#include "bind/numpy_api.h"
#include "kernels/blas_gemm.h"
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

// A (batches or 1, rows, cols) array as a GEMM operand (no copy), or false when BLAS cannot
// read it in place (negative or element strides other than the matrix's own, a misaligned
// stride). A dim of size 1 takes whatever stride suits.
bool as_operand(PyArrayObject* x, int64_t batches, GemmOperand* op) {
  const int64_t isz = PyArray_ITEMSIZE(x), rows = PyArray_DIM(x, 1), cols = PyArray_DIM(x, 2);
  const int64_t sb = PyArray_STRIDE(x, 0), sr = PyArray_STRIDE(x, 1), sc = PyArray_STRIDE(x, 2);
  op->data = static_cast<const char*>(PyArray_DATA(x));
  op->batch_stride = PyArray_DIM(x, 0) == 1 ? 0 : sb;
  if (PyArray_DIM(x, 0) != 1 && PyArray_DIM(x, 0) != batches) return false;
  if (rows == 0 || cols == 0) {  // nothing to read (k == 0: the product is zeros)
    op->trans = false;
    op->ld = std::max<int64_t>(cols, 1);
    return true;
  }
  if ((cols <= 1 || sc == isz) && (rows <= 1 || (sr > 0 && sr % isz == 0 && sr / isz >= cols))) {
    op->trans = false;
    op->ld = rows <= 1 ? std::max<int64_t>(cols, 1) : sr / isz;
    return true;
  }
  if ((rows <= 1 || sr == isz) && sc > 0 && sc % isz == 0 && sc / isz >= rows) {
    op->trans = true;  // stored as (cols x rows), rows ld apart
    op->ld = sc / isz;
    return true;
  }
  return false;
}

// _C.batch_gemm(a, b, out) -> bool: out = a @ b over the batch (kernels/blas_gemm.h) for
// float32 / float64 arrays a (B or 1, M, K), b (B or 1, K, N), out (B, M, N) C-contiguous and
// not overlapping them; False (nothing written) when BLAS cannot read a or b in place or none
// is attached. Runs without the GIL.
PyObject* py_batch_gemm(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 3 || !PyArray_Check(args[0]) || !PyArray_Check(args[1]) || !PyArray_Check(args[2])) {
    PyErr_SetString(PyExc_TypeError, "For 'BatchMatMul', batch_gemm takes (a, b, out) arrays");
    return nullptr;
  }
  auto* a = reinterpret_cast<PyArrayObject*>(args[0]);
  auto* b = reinterpret_cast<PyArrayObject*>(args[1]);
  auto* out = reinterpret_cast<PyArrayObject*>(args[2]);
  const int t = PyArray_TYPE(out);
  if (PyArray_NDIM(a) != 3 || PyArray_NDIM(b) != 3 || PyArray_NDIM(out) != 3 ||
      (t != NPY_FLOAT32 && t != NPY_FLOAT64) || PyArray_TYPE(a) != t || PyArray_TYPE(b) != t ||
      !PyArray_IS_C_CONTIGUOUS(out) || !PyArray_ISWRITEABLE(out)) {
    PyErr_SetString(PyExc_TypeError, "For 'BatchMatMul', batch_gemm takes 3-D float32 or "
                    "float64 arrays of one dtype, 'out' C-contiguous and writeable");
    return nullptr;
  }
  const int64_t batches = PyArray_DIM(out, 0), m = PyArray_DIM(out, 1), nn = PyArray_DIM(out, 2);
  const int64_t k = PyArray_DIM(a, 2);
  if (PyArray_DIM(a, 1) != m || PyArray_DIM(b, 1) != k || PyArray_DIM(b, 2) != nn) {
    PyErr_SetString(PyExc_ValueError, "For 'BatchMatMul', batch_gemm's shapes do not chain: "
                    "(B, M, K) @ (B, K, N) -> (B, M, N)");
    return nullptr;
  }
  GemmOperand oa, ob;
  if (!as_operand(a, batches, &oa) || !as_operand(b, batches, &ob)) Py_RETURN_FALSE;
  if (batches * m * nn == 0) Py_RETURN_TRUE;
  char* po = static_cast<char*>(PyArray_DATA(out));
  bool done;
  Py_BEGIN_ALLOW_THREADS
  done = batch_gemm(t == NPY_FLOAT32 ? 0 : 1, batches, m, nn, k, oa, ob, po);
  Py_END_ALLOW_THREADS
  return PyBool_FromLong(done);
}

PyMethodDef kMethods[] = {
    {"batch_gemm", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_batch_gemm)),
     METH_FASTCALL, "batch_gemm(a, b, out) -> bool: out = a @ b over the batch on BLAS, "
     "in place of the operands' layouts (kernels/blas_gemm.h)."},
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
