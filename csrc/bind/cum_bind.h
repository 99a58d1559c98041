// Registration of the CumSum / CumProd row loops (cum_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_cum_functions(PyObject* module);  // cum_bind.cc

}  // namespace mindlite
