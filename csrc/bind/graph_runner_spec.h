// The step spec of _C.GraphRunner (graph_runner.cc): one step as the runner holds it, and the
// readers that check the (kind, fn, ins, outs, params, on_error, kwnames[, name[, own]])
// tuples
// mindlite/jit/kernel_graph.py builds (graph_runner_spec.cc).
#pragma once

#include <Python.h>

#include <vector>

namespace mindlite {
namespace graph {

constexpr int kMaxArgs = 64;

struct Step {
  int kind;
  PyObject* fn;          // borrowed from the spec
  PyObject* ins_obj;     // the ins tuple (kind 2 builds its nested tuples from it)
  std::vector<int> ins;  // kinds 0/1: value indexes
  std::vector<int> outs;
  PyObject* params;      // tuple, passed after the outputs (kind 0)
  PyObject* kwnames;     // nullptr, or the names the last len(kwnames) params are passed by
  PyObject* on_error;    // nullptr or on_error(exc): raises the error to report instead
  PyObject* name;        // what the profiler calls the step (its op's name), or nullptr
  PyObject* own_fn;      // kind 1 writing inputs in place: own_fn(*Tensors at own) before
  std::vector<int> own;  // the kernel reads them (copy-on-write: pynative/inplace.py)
};

// `seq_obj`'s ints, each in [0, bound), appended to `out`; false with ValueError.
bool read_ints(PyObject* seq_obj, int bound, std::vector<int>* out, const char* what);

// Reads and checks one step tuple against `nvalues` values; false with TypeError/ValueError.
bool read_step(PyObject* t, int nvalues, Step* s);

}  // namespace graph
}  // namespace mindlite
