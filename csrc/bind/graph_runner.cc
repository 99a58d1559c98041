// _C.GraphRunner: runs a lowered graph's step sequence (mindlite/jit/kernel_graph.py) in C,
// one vectorcall per step and no Python frame between them (none at all where the kernels
// are C builtins). Values live in a list the caller owns (an arena: mindlite/jit/memory_plan.py
// fills it with views of planned buffers and constants); a value is an ndarray (a planned
// buffer, a view a kernel returned) or a Tensor (a graph input or Parameter, read live at each
// step so in-place updates are seen; a primitive call's result). Step kinds:
//   0 KERNEL   fn(in arrays..., out arrays..., params...)   outputs preallocated (planned);
//              params by keyword where the kernel takes them so (kwnames)
//   1 ALLOC    fn(in arrays..., params...) -> array or tuple (views, e.g. Reshape); a
//              step writing inputs in place first calls own_fn(*Tensors at own), which
//              may give them private arrays (copy-on-write), then reads the arrays
//   2 PRIM     fn(args...) -> Tensor or tuple                (the eager call: Tensors in)
// `ins` of kinds 0/1 are value indexes; of kind 2 value indexes or tuples of them (built as
// tuples of Tensors, as MakeTuple). A call returns a tuple of the output values as Tensors
// (planned arrays wrapped with their abstracts) and clears the transient values (step
// results that are not planned, the arguments) from the list, also after an error.
#include "bind/graph_runner.h"

#include <vector>

#include "bind/graph_runner_spec.h"

#include "bind/fast_path.h"
#include "bind/numpy_api.h"
#include "bind/profile.h"

namespace mindlite {
namespace {

using fast::TensorBase;
using graph::kMaxArgs;
using graph::read_ints;
using graph::read_step;
using graph::Step;

struct Plan {
  std::vector<Step> steps;
  std::vector<int> args, outputs, transient;
  int nvalues = 0;
};

struct GraphRunner {
  PyObject_HEAD
  PyObject* spec;        // the constructor's arguments: owns what Plan borrows
  PyObject* abstracts;   // tuple: per value its AbstractTensor (or None)
  Plan* plan;
};

PyTypeObject g_graph_runner = {PyVarObject_HEAD_INIT(nullptr, 0)};

// The ndarray value `i` holds (a Tensor's current array); borrowed, or nullptr with TypeError.
PyObject* array_at(PyObject* values, int i) {
  PyObject* v = PyList_GET_ITEM(values, i);
  if (fast::is_tensor(v)) v = reinterpret_cast<TensorBase*>(v)->arr;
  if (v && PyArray_Check(v)) return v;
  PyErr_Format(PyExc_TypeError, "GraphRunner: value %d must be an array or a Tensor holding "
               "one, but got %s", i, v ? Py_TYPE(v)->tp_name : "an uninitialised Tensor");
  return nullptr;
}

// Value `i` as a Tensor (arrays with an abstract wrapped; constants as they are); a new
// reference.
PyObject* tensor_at(GraphRunner* r, PyObject* values, int i) {
  PyObject* v = PyList_GET_ITEM(values, i);
  PyObject* abs = PyTuple_GET_ITEM(r->abstracts, i);
  if (abs != Py_None && PyArray_Check(v)) {
    Py_INCREF(v);
    return fast::new_tensor(v, abs);
  }
  Py_INCREF(v);
  return v;
}

PyObject* build_arg(GraphRunner* r, PyObject* values, PyObject* ref) {
  if (!PyTuple_Check(ref)) return tensor_at(r, values, static_cast<int>(PyLong_AsLong(ref)));
  const Py_ssize_t n = PyTuple_GET_SIZE(ref);
  PyObject* t = PyTuple_New(n);
  for (Py_ssize_t i = 0; t && i < n; ++i) {
    PyObject* a = build_arg(r, values, PyTuple_GET_ITEM(ref, i));
    if (!a) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, i, a);
  }
  return t;
}

// The kernel's exception handed to on_error (as kernel_def.guard reports it); always false.
bool report(const Step& s) {
  if (s.on_error && PyErr_ExceptionMatches(PyExc_Exception)) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb) PyException_SetTraceback(value, tb);
    PyObject* again = PyObject_CallOneArg(s.on_error, value);
    Py_XDECREF(again);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    if (again && !PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError, "GraphRunner: on_error returned instead of raising");
    }
  }
  return false;
}

// Stores `res` (stolen) as the step's output value(s).
bool store(const Step& s, PyObject* values, PyObject* res) {
  if (s.outs.size() == 1) {
    PyList_SetItem(values, s.outs[0], res);
    return true;
  }
  PyObject* seq = PySequence_Fast(res, "GraphRunner: a multi-output step must return a tuple");
  Py_DECREF(res);
  if (!seq) return false;
  if (static_cast<size_t>(PySequence_Fast_GET_SIZE(seq)) != s.outs.size()) {
    PyErr_Format(PyExc_RuntimeError, "GraphRunner: a step returned %zd outputs, the graph "
                 "expects %zu", PySequence_Fast_GET_SIZE(seq), s.outs.size());
    Py_DECREF(seq);
    return false;
  }
  for (size_t k = 0; k < s.outs.size(); ++k) {
    PyObject* o = PySequence_Fast_GET_ITEM(seq, k);
    Py_INCREF(o);
    PyList_SetItem(values, s.outs[k], o);
  }
  Py_DECREF(seq);
  return true;
}

bool run_step(GraphRunner* r, const Step& s, PyObject* values) {
  PyObject* argv[kMaxArgs] = {};
  size_t n = 0;
  if (s.kind == 2) {
    const Py_ssize_t m = PyTuple_GET_SIZE(s.ins_obj);
    if (m > kMaxArgs) {
      PyErr_SetString(PyExc_ValueError, "GraphRunner: too many primitive arguments");
      return false;
    }
    bool ok = true;
    for (Py_ssize_t i = 0; ok && i < m; ++i) {
      argv[n] = build_arg(r, values, PyTuple_GET_ITEM(s.ins_obj, i));
      ok = argv[n] != nullptr;
      n += ok;
    }
    PyObject* res = ok ? PyObject_Vectorcall(s.fn, argv, n, nullptr) : nullptr;
    for (size_t i = 0; i < n; ++i) Py_DECREF(argv[i]);
    return res && store(s, values, res);
  }
  if (s.own_fn) {
    for (int i : s.own) argv[n++] = tensor_at(r, values, i);
    PyObject* res = PyObject_Vectorcall(s.own_fn, argv, n, nullptr);
    for (size_t i = 0; i < n; ++i) Py_DECREF(argv[i]);
    n = 0;
    if (!res) return false;
    Py_DECREF(res);
  }
  // The arrays are held for the call: a kernel that releases the GIL must not see a
  // Parameter's array freed by another thread's set_data meanwhile.
  struct Held {
    PyObject** items;
    size_t n = 0;
    ~Held() {
      for (size_t i = 0; i < n; ++i) Py_DECREF(items[i]);
    }
  } held{argv};
  for (int i : s.ins) {
    if (!(argv[n] = array_at(values, i))) return false;
    Py_INCREF(argv[n]);
    held.n = ++n;
  }
  if (s.kind == 0) {
    for (int o : s.outs) {
      if (!(argv[n] = array_at(values, o))) return false;
      Py_INCREF(argv[n]);
      held.n = ++n;
    }
  }
  for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(s.params); ++j) {
    argv[n++] = PyTuple_GET_ITEM(s.params, j);
  }
  const size_t nkw = s.kwnames ? static_cast<size_t>(PyTuple_GET_SIZE(s.kwnames)) : 0;
  PyObject* res = PyObject_Vectorcall(s.fn, argv, n - nkw, s.kwnames);
  if (!res) return report(s);
  if (s.kind == 0) {
    Py_DECREF(res);
    return true;
  }
  return store(s, values, res);
}

PyObject* outputs(GraphRunner* r, PyObject* values) {
  const std::vector<int>& outs = r->plan->outputs;
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(outs.size()));
  for (size_t k = 0; t && k < outs.size(); ++k) {
    PyObject* o = nullptr;
    for (size_t j = 0; j < k && !o; ++j) {      // the same value twice: the same Tensor
      if (outs[j] == outs[k]) o = PyTuple_GET_ITEM(t, j);
    }
    if (o) {
      Py_INCREF(o);
    } else if (!(o = tensor_at(r, values, outs[k]))) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, k, o);
  }
  return t;
}

// The steps in order; kProfile (the op recorder is on, profile.h) records each kernel step
// (a PRIM step's primitive call records itself).
template <bool kProfile>
bool run_steps(GraphRunner* r, PyObject* values) {
  for (const Step& s : r->plan->steps) {
    uint64_t t0 = 0;
    if constexpr (kProfile) t0 = profile::ticks();
    if (!run_step(r, s, values)) return false;
    if constexpr (kProfile) {
      if (s.kind != 2) profile::record_step(s.name ? s.name : s.fn, t0);
    }
  }
  return true;
}

PyObject* run(GraphRunner* r, PyObject* args, PyObject* values) {
  const Plan& p = *r->plan;
  if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != static_cast<Py_ssize_t>(p.args.size())
      || !PyList_CheckExact(values) || PyList_GET_SIZE(values) != p.nvalues) {
    PyErr_Format(PyExc_TypeError, "GraphRunner(args, values): expected a tuple of %zu inputs "
                 "and a list of %d values", p.args.size(), p.nvalues);
    return nullptr;
  }
  for (size_t i = 0; i < p.args.size(); ++i) {
    PyObject* a = PyTuple_GET_ITEM(args, static_cast<Py_ssize_t>(i));
    Py_INCREF(a);
    PyList_SetItem(values, p.args[i], a);
  }
  PyObject* result = nullptr;
  const bool ok = __builtin_expect(profile::g_on, 0) ? run_steps<true>(r, values)
                                                     : run_steps<false>(r, values);
  if (ok) result = outputs(r, values);
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);            // clearing may run destructors
  for (int i : p.transient) {
    Py_INCREF(Py_None);
    PyList_SetItem(values, i, Py_None);
  }
  PyErr_Restore(type, value, tb);
  return result;
}

PyObject* runner_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if ((kwargs && PyDict_GET_SIZE(kwargs)) || PyTuple_GET_SIZE(args) != 2) {
    PyErr_SetString(PyExc_TypeError, "GraphRunner(args, values): two positional arguments");
    return nullptr;
  }
  return run(reinterpret_cast<GraphRunner*>(self), PyTuple_GET_ITEM(args, 0),
             PyTuple_GET_ITEM(args, 1));
}

int runner_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* r = reinterpret_cast<GraphRunner*>(self);
  Py_VISIT(r->spec);
  Py_VISIT(r->abstracts);
  return 0;
}

int runner_clear(PyObject* self) {
  auto* r = reinterpret_cast<GraphRunner*>(self);
  delete r->plan;                             // borrows from spec: dropped first
  r->plan = nullptr;
  Py_CLEAR(r->spec);
  Py_CLEAR(r->abstracts);
  return 0;
}

void runner_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  runner_clear(self);
  Py_TYPE(self)->tp_free(self);
}

// GraphRunner(steps, nvalues, args, outputs, abstracts, transient); a step is
// (kind, fn, ins, outs, params, on_error, kwnames).
PyObject* runner_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *steps, *argidx, *outs, *abstracts, *transient;
  int nvalues;
  static const char* kw[] = {"steps", "nvalues", "args", "outputs", "abstracts", "transient",
                             nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!iOOO!O:GraphRunner", const_cast<char**>(kw),
                                   &PyTuple_Type, &steps, &nvalues, &argidx, &outs,
                                   &PyTuple_Type, &abstracts, &transient)) {
    return nullptr;
  }
  if (nvalues < 0 || PyTuple_GET_SIZE(abstracts) != nvalues) {
    PyErr_SetString(PyExc_ValueError, "GraphRunner: 'abstracts' must hold one entry per value");
    return nullptr;
  }
  auto* plan = new Plan();
  plan->nvalues = nvalues;
  bool ok = read_ints(argidx, nvalues, &plan->args, "'args'") &&
            read_ints(outs, nvalues, &plan->outputs, "'outputs'") &&
            read_ints(transient, nvalues, &plan->transient, "'transient'");
  for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(steps); ++i) {
    plan->steps.emplace_back();
    ok = read_step(PyTuple_GET_ITEM(steps, i), nvalues, &plan->steps.back());
  }
  auto* r = ok ? reinterpret_cast<GraphRunner*>(type->tp_alloc(type, 0)) : nullptr;
  if (!r) {
    delete plan;
    return nullptr;
  }
  r->spec = PyTuple_Pack(1, steps);
  if (!r->spec) {
    Py_DECREF(r);
    return nullptr;
  }
  r->abstracts = abstracts;
  Py_INCREF(abstracts);
  r->plan = plan;
  return reinterpret_cast<PyObject*>(r);
}

}  // namespace

bool add_graph_runner(PyObject* module) {
  fast::init_type(&g_graph_runner, "mindlite._C.GraphRunner", sizeof(GraphRunner), false,
                  "A lowered graph's steps run in C: GraphRunner(steps, nvalues, args, outputs, "
                  "abstracts, transient)(args, values) -> tuple of output Tensors.",
                  runner_traverse, runner_clear, runner_dealloc);
  g_graph_runner.tp_call = runner_call;
  g_graph_runner.tp_new = runner_new;
  if (PyType_Ready(&g_graph_runner) < 0) return false;
  Py_INCREF(&g_graph_runner);
  if (PyModule_AddObject(module, "GraphRunner", reinterpret_cast<PyObject*>(&g_graph_runner)) <
      0) {
    Py_DECREF(&g_graph_runner);
    return false;
  }
  return true;
}

}  // namespace mindlite
