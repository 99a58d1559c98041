// Registration of the BLAS thread-control functions (blas_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_blas_functions(PyObject* module);  // blas_bind.cc

}  // namespace mindlite
