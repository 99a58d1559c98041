// Registration of the training kernels' fast-call entry points: losses (loss_bind.cc),
// optimizer updates (optim_bind.cc), arg- and logical reductions (arg_bind.cc).
#pragma once

#include <Python.h>

namespace mindlite {

// Each adds its module functions; false with an exception set.
bool add_loss_functions(PyObject* module);
bool add_optim_functions(PyObject* module);
bool add_arg_functions(PyObject* module);

// Runs f() with the GIL released when `release` (a launch that may use the thread pool: worth
// the switch), else with it held.
template <class F>
void run_released(bool release, F&& f) {
  if (release) {
    Py_BEGIN_ALLOW_THREADS
    f();
    Py_END_ALLOW_THREADS
  } else {
    f();
  }
}

}  // namespace mindlite
