// Reading a _C.GraphRunner spec: every step tuple checked before the runner keeps it (kinds,
// callables, value indexes in range, argument counts), so a bad spec is a TypeError or
// ValueError at construction, never a crash at run time.
#include "bind/graph_runner_spec.h"

namespace mindlite {
namespace graph {
namespace {

// Checks a kind-2 `ins` entry: a value index or a tuple of entries.
bool check_ref(PyObject* ref, int bound) {
  if (PyTuple_Check(ref)) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ref); ++i) {
      if (!check_ref(PyTuple_GET_ITEM(ref, i), bound)) return false;
    }
    return true;
  }
  long v = PyLong_Check(ref) ? PyLong_AsLong(ref) : -1;
  if (v < 0 || v >= bound) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "GraphRunner: a primitive step's input must be a value "
                 "index in [0, %d) or a tuple of them", bound);
    return false;
  }
  return true;
}

}  // namespace

bool read_ints(PyObject* seq_obj, int bound, std::vector<int>* out, const char* what) {
  PyObject* seq = PySequence_Fast(seq_obj, what);
  if (!seq) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    ok = !PyErr_Occurred() && v >= 0 && v < bound;
    out->push_back(static_cast<int>(v));
  }
  Py_DECREF(seq);
  if (!ok) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "GraphRunner: %s must hold value indexes in [0, %d)", what,
                 bound);
  }
  return ok;
}

bool read_step(PyObject* t, int nvalues, Step* s) {
  if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 7 || PyTuple_GET_SIZE(t) > 9) {
    PyErr_SetString(PyExc_TypeError, "GraphRunner: a step is (kind, fn, ins, outs, params, "
                    "on_error, kwnames[, name[, own]])");
    return false;
  }
  s->name = PyTuple_GET_SIZE(t) >= 8 && PyUnicode_Check(PyTuple_GET_ITEM(t, 7))
                ? PyTuple_GET_ITEM(t, 7) : nullptr;
  s->own_fn = nullptr;
  PyObject* own = PyTuple_GET_SIZE(t) == 9 ? PyTuple_GET_ITEM(t, 8) : Py_None;
  if (own != Py_None) {
    if (!PyTuple_Check(own) || PyTuple_GET_SIZE(own) != 2 ||
        !PyCallable_Check(PyTuple_GET_ITEM(own, 0))) {
      PyErr_SetString(PyExc_TypeError, "GraphRunner: a step's own is None or (fn, indexes)");
      return false;
    }
    s->own_fn = PyTuple_GET_ITEM(own, 0);
    if (!read_ints(PyTuple_GET_ITEM(own, 1), nvalues, &s->own, "a step's own indexes")) {
      return false;
    }
    if (s->own.size() > static_cast<size_t>(kMaxArgs)) {
      PyErr_SetString(PyExc_ValueError, "GraphRunner: too many own indexes");
      return false;
    }
  }
  s->kind = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(t, 0)));
  s->fn = PyTuple_GET_ITEM(t, 1);
  s->ins_obj = PyTuple_GET_ITEM(t, 2);
  s->params = PyTuple_GET_ITEM(t, 4);
  PyObject* on_error = PyTuple_GET_ITEM(t, 5);
  s->on_error = on_error == Py_None ? nullptr : on_error;
  PyObject* kwnames = PyTuple_GET_ITEM(t, 6);
  s->kwnames = kwnames == Py_None ? nullptr : kwnames;
  if (s->kwnames && (!PyTuple_Check(s->kwnames) ||
                     PyTuple_GET_SIZE(s->kwnames) > PyTuple_GET_SIZE(PyTuple_GET_ITEM(t, 4)))) {
    PyErr_SetString(PyExc_TypeError, "GraphRunner: a step's kwnames must be a tuple naming "
                    "its last params");
    return false;
  }
  if (PyErr_Occurred() || s->kind < 0 || s->kind > 2 || !PyCallable_Check(s->fn) ||
      !PyTuple_Check(s->ins_obj) || !PyTuple_Check(s->params)) {
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError, "GraphRunner: a step needs kind 0..2, a callable fn and "
                    "tuples ins / params");
    return false;
  }
  if (!read_ints(PyTuple_GET_ITEM(t, 3), nvalues, &s->outs, "a step's outs")) return false;
  if (s->kind == 2) return check_ref(s->ins_obj, nvalues);
  if (!read_ints(s->ins_obj, nvalues, &s->ins, "a step's ins")) return false;
  const size_t n = s->ins.size() + (s->kind == 0 ? s->outs.size() : 0) +
                   static_cast<size_t>(PyTuple_GET_SIZE(s->params));
  if (n > static_cast<size_t>(kMaxArgs)) {
    PyErr_Format(PyExc_ValueError, "GraphRunner: a kernel step takes at most %d arrays and "
                 "params", kMaxArgs);
    return false;
  }
  return true;
}

}  // namespace graph
}  // namespace mindlite
