// _C.FastRunner: the runner the forward executor builds for calls of "runtime"-allocated
// single-output kernels whose Tensor inputs need no cast (see fast_path.cc for the call path).
// A call: convert Python scalars to 0-d arrays of their decided dtype, allocate the output
// (numpy for small, the runtime's pool allocator for large), vectorcall the kernel (which
// re-validates its arrays: nothing unchecked reaches a loop) with the kernel's bound params
// after the output, wrap a Tensor, and while the calling thread's grad recorder records, offer
// the op to that thread's open tapes (t_grad_tapes; the same rule as GradExecutor.record in
// pynative/grad.py, which Python runners call). A runner is shared by every thread: it holds
// no grad state of its own.
#include "bind/fast_runner.h"

#include <structmember.h>

namespace mindlite {
namespace fast {
namespace {

PyObject* g_tracked_name = nullptr;      // Tape.tracked: ids of tensors the tape follows
PyObject* g_nodes_name = nullptr;        // Tape.nodes: (prim, inputs, output) in record order

}  // namespace

// kernel(inputs..., out, params...); `stack` has room for the inputs and the output.
bool launch(FastRunner* r, PyObject** stack, PyObject* out) {
  const Py_ssize_t np = PyTuple_GET_SIZE(r->params);
  PyObject* full[kMaxFastInputs + 1 + kMaxParams];
  PyObject** argv = stack;
  stack[r->nin] = out;
  if (np) {
    for (int i = 0; i < r->nin; ++i) full[i] = stack[i];
    full[r->nin] = out;
    for (Py_ssize_t j = 0; j < np; ++j) full[r->nin + 1 + j] = PyTuple_GET_ITEM(r->params, j);
    argv = full;
  }
  PyObject* res = PyObject_Vectorcall(r->kernel, argv, r->nin + 1 + np, nullptr);
  if (res) {
    Py_DECREF(res);
    return true;
  }
  if (r->on_error && PyErr_ExceptionMatches(PyExc_Exception)) {   // as kernel_def.guard
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb) PyException_SetTraceback(value, tb);
    PyObject* again = PyObject_CallOneArg(r->on_error, value);   // raises the KernelError
    Py_XDECREF(again);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    if (again && !PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError, "FastRunner: on_error returned instead of raising");
    }
  }
  return false;
}

// GradExecutor.record for this op: each open tape that tracks one of the Tensor inputs keeps
// the node (prim, args, out) and starts tracking the output. `tapes` is held for the loop, and
// its size re-read, so nothing the loop calls can free or shrink it under us.
bool record(FastRunner* r, PyObject* tapes, PyObject* args, PyObject* out) {
  Py_INCREF(tapes);
  bool ok = true;
  for (Py_ssize_t k = 0; ok && k < PyList_GET_SIZE(tapes); ++k) {
    PyObject* tape = PyList_GET_ITEM(tapes, k);
    PyObject* tracked = PyObject_GetAttr(tape, g_tracked_name);
    if (!tracked) {
      ok = false;
      break;
    }
    int hit = 0;
    for (int i = 0; hit == 0 && i < r->nin; ++i) {
      PyObject* id = PyLong_FromVoidPtr(PyTuple_GET_ITEM(args, r->pos[i]));
      hit = id ? PySet_Contains(tracked, id) : -1;
      Py_XDECREF(id);
    }
    if (hit == 1) {
      PyObject* nodes = PyObject_GetAttr(tape, g_nodes_name);
      PyObject* node = nodes ? PyTuple_Pack(3, r->prim, args, out) : nullptr;
      PyObject* id = node ? PyLong_FromVoidPtr(out) : nullptr;
      hit = id && PyList_Append(nodes, node) == 0 && PySet_Add(tracked, id) == 0 ? 1 : -1;
      Py_XDECREF(id);
      Py_XDECREF(node);
      Py_XDECREF(nodes);
    }
    Py_DECREF(tracked);
    ok = hit >= 0;
  }
  Py_DECREF(tapes);
  return ok;
}

namespace {

// One call; kProfile (the recorder is on) also stores the tick after each stage in t[2..4]:
// a separate instantiation, so the unprofiled call carries no timing code.
template <bool kProfile>
PyObject* run_t(FastRunner* r, PyObject* args, uint64_t* t) {
  if (PyTuple_GET_SIZE(args) != r->nargs) {
    PyObject* name = prim_name(r->prim);
    PyErr_Format(PyExc_TypeError, "For '%S', the cached runner takes %d inputs, but got %zd",
                 name, r->nargs, PyTuple_GET_SIZE(args));
    Py_XDECREF(name);
    return nullptr;
  }
  PyObject* stack[kMaxFastInputs + 1];
  PyObject* owned[kMaxFastInputs];        // converted scalars, released after the launch
  int nowned = 0;
  struct Release {
    PyObject** items;
    int* n;
    ~Release() {
      for (int i = 0; i < *n; ++i) Py_DECREF(items[i]);
    }
  } release{owned, &nowned};
  for (int i = 0; i < r->nin; ++i) {
    PyObject* a = PyTuple_GET_ITEM(args, r->pos[i]);
    if (r->conv[i]) {              // as np.asarray(a, dtype) on the Python path
      Py_INCREF(r->conv[i]);
      PyObject* arr = PyArray_FromAny(a, r->conv[i], 0, 0, 0, nullptr);
      if (!arr) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {   // as forward.py's _scalar_array
          PyErr_Clear();
          PyObject* name = prim_name(r->prim);
          PyErr_Format(PyExc_ValueError, "For '%S', the scalar input %d (%R) does not fit the "
                       "dtype %S it is converted to", name, r->pos[i], a, r->conv[i]);
          Py_XDECREF(name);
        }
        return nullptr;
      }
      owned[nowned++] = arr;
      stack[i] = arr;
      continue;
    }
    PyObject* arr = is_tensor(a) ? reinterpret_cast<TensorBase*>(a)->arr : nullptr;
    if (!arr || !PyArray_Check(arr)) {
      PyObject* name = prim_name(r->prim);
      PyErr_Format(PyExc_TypeError, "For '%S', input %d must be a Tensor holding a numpy array, "
                   "but got %s", name, r->pos[i],
                   is_tensor(a) ? (arr ? Py_TYPE(arr)->tp_name : "an uninitialised Tensor")
                                : Py_TYPE(a)->tp_name);
      Py_XDECREF(name);
      return nullptr;
    }
    stack[i] = arr;
  }
  PyObject* out;
  if (r->alloc) {
    out = PyObject_CallNoArgs(r->alloc);
  } else {
    Py_INCREF(r->descr);
    out = PyArray_NewFromDescr(&PyArray_Type, r->descr, r->nd, r->shape, nullptr, nullptr, 0,
                               nullptr);
  }
  if (!out) return nullptr;
  if constexpr (kProfile) t[2] = profile::ticks();
  if (!launch(r, stack, out)) {
    Py_DECREF(out);
    return nullptr;
  }
  if constexpr (kProfile) t[3] = profile::ticks();
  PyObject* res = new_tensor(out, r->out_abs);
  if constexpr (kProfile) t[4] = profile::ticks();
  if (!res || !r->differentiable) return res;
  PyObject* tapes = t_grad_tapes;            // this thread's recorder (nullptr: not recording)
  if (!tapes) return res;
  if (!record(r, tapes, args, res)) {
    Py_DECREF(res);
    return nullptr;
  }
  return res;
}

}  // namespace

PyObject* run(FastRunner* r, PyObject* args) { return run_t<false>(r, args, nullptr); }

PyObject* run_profiled(FastRunner* r, PyObject* args, uint64_t* t) {
  return run_t<true>(r, args, t);
}

namespace {

int runner_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* r = reinterpret_cast<FastRunner*>(self);
  Py_VISIT(r->kernel);
  Py_VISIT(r->alloc);
  Py_VISIT(r->out_abs);
  Py_VISIT(r->prim);
  Py_VISIT(r->params);
  Py_VISIT(r->on_error);
  return 0;
}

int runner_clear(PyObject* self) {
  auto* r = reinterpret_cast<FastRunner*>(self);
  Py_CLEAR(r->kernel);
  Py_CLEAR(r->alloc);
  Py_CLEAR(r->descr);
  for (int i = 0; i < kMaxFastInputs; ++i) Py_CLEAR(r->conv[i]);
  Py_CLEAR(r->out_abs);
  Py_CLEAR(r->prim);
  Py_CLEAR(r->params);
  Py_CLEAR(r->on_error);
  return 0;
}

void runner_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  runner_clear(self);
  Py_TYPE(self)->tp_free(self);
}

PyObject* runner_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if ((kwargs && PyDict_GET_SIZE(kwargs)) || PyTuple_GET_SIZE(args) != 1 ||
      !PyTuple_Check(PyTuple_GET_ITEM(args, 0))) {
    PyErr_SetString(PyExc_TypeError, "FastRunner(args): expected one tuple of input Tensors");
    return nullptr;
  }
  return run(reinterpret_cast<FastRunner*>(self), PyTuple_GET_ITEM(args, 0));
}

// Reads `positions` (a sequence of ints in [0, nargs), at most kMaxFastInputs) into r.
bool read_positions(FastRunner* r, PyObject* positions, int nargs) {
  PyObject* seq = PySequence_Fast(positions, "FastRunner: 'positions' must be a sequence");
  if (!seq) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  bool ok = n >= 1 && n <= kMaxFastInputs;
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    ok = v >= 0 && v < nargs;
    r->pos[i] = static_cast<int>(v);
  }
  Py_DECREF(seq);
  if (!ok) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "FastRunner: 'positions' must hold 1 to %d input indexes "
                 "in [0, %d)", kMaxFastInputs, nargs);
    return false;
  }
  r->nin = static_cast<int>(n);
  r->nargs = nargs;
  return true;
}

// scalars[i] (aligned with r->pos): None for a Tensor input, else the numpy dtype the Python
// scalar there is converted to.
bool read_scalars(FastRunner* r, PyObject* scalars) {
  if (!scalars) return true;
  PyObject* seq = PySequence_Fast(scalars, "FastRunner: 'scalars' must be a sequence");
  if (!seq) return false;
  bool ok = PySequence_Fast_GET_SIZE(seq) == r->nin;
  for (int i = 0; ok && i < r->nin; ++i) {
    PyObject* d = PySequence_Fast_GET_ITEM(seq, i);
    ok = d == Py_None || PyArray_DescrConverter(d, &r->conv[i]) == NPY_SUCCEED;
  }
  Py_DECREF(seq);
  if (!ok && !PyErr_Occurred()) {
    PyErr_SetString(PyExc_ValueError, "FastRunner: 'scalars' must match 'positions'");
  }
  return ok;
}

// FastRunner(kernel, alloc, out_abs, np_dtype, shape, prim, differentiable, nargs, positions,
//            params=(), scalars=None, on_error=None)
PyObject* runner_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *kernel, *alloc, *out_abs, *dtype, *shape, *prim, *positions;
  PyObject *params = nullptr, *scalars = nullptr, *on_error = Py_None, *differentiable;
  int nargs;
  static const char* kw[] = {"kernel", "alloc", "out_abs", "np_dtype", "shape", "prim",
                             "differentiable", "nargs", "positions", "params", "scalars",
                             "on_error", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOO!iO|O!OO:FastRunner",
                                   const_cast<char**>(kw), &kernel, &alloc, &out_abs, &dtype,
                                   &shape, &prim, &PyBool_Type, &differentiable, &nargs,
                                   &positions, &PyTuple_Type, &params, &scalars, &on_error)) {
    return nullptr;
  }
  if (on_error != Py_None && !PyCallable_Check(on_error)) {
    PyErr_SetString(PyExc_TypeError, "FastRunner: 'on_error' must be callable or None");
    return nullptr;
  }
  if (!PyCallable_Check(kernel) || (alloc != Py_None && !PyCallable_Check(alloc))) {
    PyErr_SetString(PyExc_TypeError, "FastRunner: 'kernel' (and 'alloc' unless None) must be "
                    "callable");
    return nullptr;
  }
  if (params && PyTuple_GET_SIZE(params) > kMaxParams) {
    PyErr_Format(PyExc_ValueError, "FastRunner: at most %d params", kMaxParams);
    return nullptr;
  }
  PyArray_Descr* descr = nullptr;
  if (!PyArray_DescrConverter(dtype, &descr)) return nullptr;
  PyObject* seq = PySequence_Fast(shape, "FastRunner: 'shape' must be a sequence of ints");
  if (!seq) {
    Py_DECREF(descr);
    return nullptr;
  }
  const Py_ssize_t nd = PySequence_Fast_GET_SIZE(seq);
  auto* r = nd <= NPY_MAXDIMS ? reinterpret_cast<FastRunner*>(type->tp_alloc(type, 0)) : nullptr;
  if (!r) {
    if (nd > NPY_MAXDIMS) PyErr_SetString(PyExc_ValueError, "FastRunner: too many dimensions");
    Py_DECREF(seq);
    Py_DECREF(descr);
    return nullptr;
  }
  r->descr = descr;
  r->nd = static_cast<int>(nd);
  for (Py_ssize_t i = 0; i < nd; ++i) {
    r->shape[i] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq, i));
    if (r->shape[i] < 0) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "FastRunner: negative dimension");
      Py_DECREF(seq);
      Py_DECREF(r);
      return nullptr;
    }
  }
  Py_DECREF(seq);
  if (!read_positions(r, positions, nargs) || !read_scalars(r, scalars)) {
    Py_DECREF(r);
    return nullptr;
  }
  Py_INCREF(kernel);
  r->kernel = kernel;
  if (alloc != Py_None) {
    Py_INCREF(alloc);
    r->alloc = alloc;
  }
  Py_INCREF(out_abs);
  r->out_abs = out_abs;
  Py_INCREF(prim);
  r->prim = prim;
  r->differentiable = differentiable == Py_True;
  if (on_error != Py_None) {
    Py_INCREF(on_error);
    r->on_error = on_error;
  }
  r->params = params ? params : PyTuple_New(0);
  if (!r->params) {
    Py_DECREF(r);
    return nullptr;
  }
  if (params) Py_INCREF(params);
  return reinterpret_cast<PyObject*>(r);
}

PyMethodDef g_runner_methods[] = {
    {"stage_times",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(runner_stage_times)),
     METH_FASTCALL,
     "stage_times(args, n) -> (alloc_us, launch_us, wrap_us, record_us or None) per call."},
    {nullptr, nullptr, 0, nullptr}};

PyMemberDef g_runner_members[] = {
    {"kernel", T_OBJECT, offsetof(FastRunner, kernel), READONLY, "the launched kernel"},
    {"out_abs", T_OBJECT, offsetof(FastRunner, out_abs), READONLY, "output abstract"},
    {"prim", T_OBJECT, offsetof(FastRunner, prim), READONLY, "the primitive"},
    {"nargs", T_INT, offsetof(FastRunner, nargs), READONLY, "number of call inputs"},
    {"nin", T_INT, offsetof(FastRunner, nin), READONLY, "number of kernel inputs"},
    {nullptr, 0, 0, 0, nullptr}};


}  // namespace

PyTypeObject g_fast_runner = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject* fast_run(PyObject* runner, PyObject* args) {
  return run(reinterpret_cast<FastRunner*>(runner), args);
}

bool add_fast_runner(PyObject* module) {
  g_tracked_name = PyUnicode_InternFromString("tracked");
  g_nodes_name = PyUnicode_InternFromString("nodes");
  if (!g_tracked_name || !g_nodes_name) return false;
  init_type(&g_fast_runner, "mindlite._C.FastRunner", sizeof(FastRunner), false,
            "A cached runner executed in C: alloc, launch, wrap, record.", runner_traverse,
            runner_clear, runner_dealloc);
  g_fast_runner.tp_members = g_runner_members;
  g_fast_runner.tp_methods = g_runner_methods;
  g_fast_runner.tp_call = runner_call;
  g_fast_runner.tp_new = runner_new;
  if (PyType_Ready(&g_fast_runner) < 0) return false;
  Py_INCREF(&g_fast_runner);
  if (PyModule_AddObject(module, "FastRunner", reinterpret_cast<PyObject*>(&g_fast_runner)) < 0) {
    Py_DECREF(&g_fast_runner);
    return false;
  }
  return true;
}

}  // namespace fast
}  // namespace mindlite
