// Registration of the uint8 bilinear resize (resize_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_resize_functions(PyObject* module);  // resize_bind.cc

}  // namespace mindlite
