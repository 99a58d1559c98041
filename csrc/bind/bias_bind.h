// Registration of the BiasAdd / BiasAddGrad loop entry points (bias_bind.cc) into _C.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_bias_functions(PyObject* module);  // bias_bind.cc

}  // namespace mindlite
