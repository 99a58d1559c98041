// Registration of the frozen-buffer entry points (frozen_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_frozen_functions(PyObject* module);  // frozen_bind.cc

}  // namespace mindlite
