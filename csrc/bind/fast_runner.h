// FastRunner's layout and steps, shared by fast_runner.cc (the type and the call) and
// fast_runner_profile.cc (stage_times). See fast_runner.cc for what a call does.
#pragma once

#include "bind/fast_path.h"
#include "bind/numpy_api.h"
#include "bind/profile.h"

namespace mindlite {
namespace fast {

constexpr int kMaxFastInputs = 8;
constexpr int kMaxParams = 8;

struct FastRunner {
  PyObject_HEAD
  PyObject* kernel;     // kernel(in_0, ..., in_{n-1}, out)
  PyObject* alloc;      // () -> out array, or nullptr: numpy allocation from descr/shape
  PyArray_Descr* descr;
  int nd;
  npy_intp shape[NPY_MAXDIMS];
  PyObject* out_abs;
  PyObject* prim;
  PyObject* params;     // tuple of kernel params passed after the output (positional)
  PyObject* on_error;   // on_error(exc) raises the error to report instead, or nullptr
  int differentiable;   // 0: the primitive is not differentiable (never recorded)
  int nargs;            // len(args) of the call
  int nin;              // kernel inputs: the Tensors at args[pos[0..nin)] (constants skipped)
  int pos[kMaxFastInputs];
  PyArray_Descr* conv[kMaxFastInputs];   // dtype a scalar input becomes; nullptr: a Tensor
};

// kernel(inputs..., out, params...); `stack` has room for the inputs and the output.
bool launch(FastRunner* r, PyObject** stack, PyObject* out);
// GradExecutor.record's rule in C: offer (prim, args, out) to `tapes` (the calling thread's
// open tapes, t_grad_tapes).
bool record(FastRunner* r, PyObject* tapes, PyObject* args, PyObject* out);
// One call on a call's args tuple.
PyObject* run(FastRunner* r, PyObject* args);
// The same call with the ticks after allocation, launch and wrap in t[2..4] (profile.h).
PyObject* run_profiled(FastRunner* r, PyObject* args, uint64_t* t);
// runner.stage_times(args, n) (fast_runner_profile.cc).
PyObject* runner_stage_times(PyObject* self, PyObject* const* args, Py_ssize_t nargs);

}  // namespace fast
}  // namespace mindlite
