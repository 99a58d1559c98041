// Fast-call entry points of the LayerNorm loops (kernels/layer_norm.h), called by
// mindlite/kernels/cpu/norm_cpp.py.
#pragma once

#include <Python.h>

namespace mindlite {

// Registers _C.layer_norm and _C.layer_norm_grad; false with an exception set.
bool add_norm_functions(PyObject* module);

}  // namespace mindlite
