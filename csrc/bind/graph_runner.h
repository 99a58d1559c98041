// _C.GraphRunner: a lowered graph's whole step sequence run in C (graph_runner.cc); built by
// mindlite/jit/kernel_graph.py, its buffers planned by mindlite/jit/memory_plan.py.
#pragma once

#include <Python.h>

namespace mindlite {

// Registers mindlite._C.GraphRunner; false with an exception set.
bool add_graph_runner(PyObject* module);

}  // namespace mindlite
