// _C.TensorBase, _C.PrimitiveBase, _C.FastRunner: the cached op call in C (fast_path.cc).
#pragma once

#include <Python.h>

namespace mindlite {

bool add_fast_path(PyObject* module);

}  // namespace mindlite
