// Registration of the convolution loop entry points (conv_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_conv_functions(PyObject* module);  // conv_bind.cc

}  // namespace mindlite
