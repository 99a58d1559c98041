// Registration of the fast-call kernel entry points into the _C module (called from module.cc).
#pragma once

#include <Python.h>

namespace mindlite {

bool add_elementwise_functions(PyObject* module);  // elementwise_bind.cc
bool add_matmul_functions(PyObject* module);       // matmul_bind.cc

}  // namespace mindlite
