// Registration of BasicIndex's kernel entry point (index_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_index_functions(PyObject* module);  // index_bind.cc

}  // namespace mindlite
