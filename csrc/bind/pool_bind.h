// Registration of the max-pooling loop entry points (pool_bind.cc, pool_argmax_bind.cc) into
// the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_pool_functions(PyObject* module);         // pool_bind.cc
bool add_pool_argmax_functions(PyObject* module);  // pool_argmax_bind.cc

}  // namespace mindlite
