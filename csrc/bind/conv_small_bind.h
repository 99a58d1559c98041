// Registration of the small-convolution entry points (conv_small_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_conv_small_functions(PyObject* module);  // conv_small_bind.cc

}  // namespace mindlite
