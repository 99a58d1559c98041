// _C.guards_hold: the per-call staleness check of a compiled graph (mindlite/jit/guards.py)
// in C, since it runs before every @jit / GRAPH_MODE call.
#pragma once

#include <Python.h>

namespace mindlite {

// Registers mindlite._C.guards_hold; false with an exception set.
bool add_guard_functions(PyObject* module);

}  // namespace mindlite
