// Registration of the fused inverted-residual block's entry point (inverted_residual_bind.cc)
// into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_inverted_residual_functions(PyObject* module);  // inverted_residual_bind.cc

}  // namespace mindlite
