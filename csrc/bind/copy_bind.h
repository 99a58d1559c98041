// Registration of the strided copy (copy_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_copy_functions(PyObject* module);  // copy_bind.cc

}  // namespace mindlite
