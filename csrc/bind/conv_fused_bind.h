// Registration of FusedConv2DBiasAdd's entry point (conv_fused_bind.cc) into the _C module;
// call it after add_conv_small_functions (it calls _C.conv_small_forward).
#pragma once

#include <Python.h>

namespace mindlite {

bool add_conv_fused_functions(PyObject* module);  // conv_fused_bind.cc

}  // namespace mindlite
