// Registration of the convolution engine's entry points (conv_engine_bind.cc) into the _C
// module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_conv_engine_functions(PyObject* module);  // conv_engine_bind.cc

}  // namespace mindlite
