// Registration of the filter gradient's entry points (conv_filter_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_conv_filter_functions(PyObject* module);  // conv_filter_bind.cc

}  // namespace mindlite
