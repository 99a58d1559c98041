// Registration of the fused-kernel entry points (fused_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_fused_functions(PyObject* module);  // fused_bind.cc

}  // namespace mindlite
