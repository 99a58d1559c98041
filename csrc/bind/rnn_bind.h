// Registration of the fused recurrent-layer entry points (rnn_bind.cc) into the _C module.
#pragma once

#include <Python.h>

namespace mindlite {

bool add_rnn_functions(PyObject* module);  // rnn_bind.cc

}  // namespace mindlite
