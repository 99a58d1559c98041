// Registration of the reduction and softmax fast-call entry points (reduce_bind.cc).
#pragma once

#include <Python.h>

namespace mindlite {

// Adds _C.REDUCE_KERNELS and _C.SOFTMAX_KERNELS (see reduce_bind.cc); false with an exception.
bool add_reduce_functions(PyObject* module);

}  // namespace mindlite
