// Registration of the BatchNorm entry points (batch_norm_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_batch_norm_functions(PyObject* module);  // batch_norm_bind.cc

}  // namespace mindlite
