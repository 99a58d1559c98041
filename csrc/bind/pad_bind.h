// Registration of PadV3's row gather (pad_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_pad_functions(PyObject* module);  // pad_bind.cc

}  // namespace mindlite
