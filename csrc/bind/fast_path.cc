// The cached fast path of an op call, in C (MindSpore's Tensor_ / Primitive_ C++ bases):
//
//   _C.TensorBase     the two fields the hot path reads: _arr (ndarray), _abs (interned
//                     AbstractTensor, the signature). mindlite.Tensor subclasses it.
//   _C.PrimitiveBase  tp_call: build the signature key (inputs' _abs; Python int/float/bool
//                     scalars by type; constants in const positions by value when they are
//                     plain ints/None/int tuples), look the runner up in self._runners, run it
//                     (a _C.FastRunner, fast_runner.cc, without a Python frame). self._runners
//                     is a RunnerCache (a dict subclass, read here as a plain dict): its current
//                     generation only (bounds: mindlite/cache_limits.py). Anything else
//                     (a miss, a lazy Parameter, a numpy scalar, a float constant) goes to
//                     self._dispatch(args): the Python path with every layer of the pipeline
//                     (ops/primitive.py).
// The key format must match ops/primitive.py's signature_key; tests/test_fast_path.py checks.
#include "bind/fast_path.h"

#include <structmember.h>

#include "bind/numpy_api.h"
#include "bind/profile.h"

namespace mindlite {
namespace fast {

PyTypeObject g_tensor_base = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyTypeObject* g_tensor_type = nullptr;
MINDLITE_THREAD_LOCAL PyObject* t_grad_tapes = nullptr;

namespace {

struct PrimitiveBase {
  PyObject_HEAD
  PyObject* runners;
  unsigned long long const_mask;
};

PyObject* g_dispatch_name = nullptr;     // "_dispatch"

// ---- TensorBase -----------------------------------------------------------------------------
int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* t = reinterpret_cast<TensorBase*>(self);
  Py_VISIT(t->arr);
  Py_VISIT(t->abs);
  return 0;
}

int tensor_clear(PyObject* self) {
  auto* t = reinterpret_cast<TensorBase*>(self);
  Py_CLEAR(t->arr);
  Py_CLEAR(t->abs);
  return 0;
}

void tensor_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  tensor_clear(self);
  Py_TYPE(self)->tp_free(self);
}

PyMemberDef g_tensor_members[] = {
    {"_arr", T_OBJECT_EX, offsetof(TensorBase, arr), 0, "the data (numpy array), or None"},
    {"_abs", T_OBJECT_EX, offsetof(TensorBase, abs), 0, "interned AbstractTensor"},
    {nullptr, 0, 0, 0, nullptr}};

// ---- PrimitiveBase ----------------------------------------------------------------------------
// A constant that enters the key as itself: exact int, None, or a tuple of exact ints
// (bools and floats are tagged by signature_key on the Python path; see _hashable).
inline bool plain_const(PyObject* a) {
  if (a == Py_None || PyLong_CheckExact(a)) return true;
  if (!PyTuple_CheckExact(a)) return false;
  for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(a); i < n; ++i) {
    if (!PyLong_CheckExact(PyTuple_GET_ITEM(a, i))) return false;
  }
  return true;
}

// New reference to the signature key of `args`, or nullptr (no error set) when the call
// needs the Python path to build it.
PyObject* fast_key(unsigned long long const_mask, PyObject* args) {
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n == 0 || n > 64) return nullptr;
  PyObject* key = PyTuple_New(n);
  if (!key) {
    PyErr_Clear();
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* a = PyTuple_GET_ITEM(args, i);
    PyObject* item = nullptr;
    if ((const_mask >> i) & 1ULL) {
      if (plain_const(a)) item = a;
    } else if (is_tensor(a)) {
      item = reinterpret_cast<TensorBase*>(a)->abs;
    } else if (PyFloat_CheckExact(a) || PyLong_CheckExact(a) || PyBool_Check(a)) {
      item = reinterpret_cast<PyObject*>(Py_TYPE(a));   // signature_key: scalars by type
    }
    if (!item) {
      Py_DECREF(key);
      return nullptr;
    }
    Py_INCREF(item);
    PyTuple_SET_ITEM(key, i, item);
  }
  return key;
}

// The call; kProfile (the op recorder is on, profile.h) times its stages and records it: a
// separate instantiation, so the unprofiled call carries no timing code.
template <bool kProfile>
PyObject* prim_call_t(PyObject* self, PyObject* args, PyObject* kwargs) {
  uint64_t t[profile::kStamps];
  if constexpr (kProfile) t[0] = profile::ticks();
  auto* p = reinterpret_cast<PrimitiveBase*>(self);
  if (kwargs && PyDict_GET_SIZE(kwargs)) {
    PyObject* name = prim_name(self);
    PyErr_Format(PyExc_TypeError, "For '%S', inputs are positional; keyword arguments are not "
                 "accepted, but got %R", name, kwargs);
    Py_XDECREF(name);
    return nullptr;
  }
  if (p->runners && PyDict_Check(p->runners)) {   // a RunnerCache (dict subclass)
    PyObject* key = fast_key(p->const_mask, args);
    if (key) {
      PyObject* runner = PyDict_GetItemWithError(p->runners, key);
      Py_DECREF(key);
      if (runner) {
        Py_INCREF(runner);     // a context change may clear the cache while it runs
        PyObject* res;
        if constexpr (kProfile) {
          res = profile::run_runner(self, runner, args, t);
        } else {
          res = Py_TYPE(runner) == &g_fast_runner ? fast_run(runner, args)
                                                  : PyObject_CallOneArg(runner, args);
        }
        Py_DECREF(runner);
        return res;
      }
      if (PyErr_Occurred()) return nullptr;
    }
  }
  if constexpr (kProfile) return profile::run_dispatch(self, g_dispatch_name, args, t);
  return PyObject_CallMethodOneArg(self, g_dispatch_name, args);
}

PyObject* prim_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (__builtin_expect(profile::g_on, 0)) return prim_call_t<true>(self, args, kwargs);
  return prim_call_t<false>(self, args, kwargs);
}

int prim_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<PrimitiveBase*>(self)->runners);
  return 0;
}

int prim_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<PrimitiveBase*>(self)->runners);
  return 0;
}

void prim_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  prim_clear(self);
  Py_TYPE(self)->tp_free(self);
}

PyMemberDef g_prim_members[] = {
    {"_runners", T_OBJECT, offsetof(PrimitiveBase, runners), 0,
     "signature -> runner cache shared by equal primitives"},
    {"_const_mask", T_ULONGLONG, offsetof(PrimitiveBase, const_mask), 0,
     "bit i set: input i is a constant (enters the key by value)"},
    {nullptr, 0, 0, 0, nullptr}};

PyTypeObject g_prim_base = {PyVarObject_HEAD_INIT(nullptr, 0)};

// lookup_runner(prim, args) -> the cached runner Primitive.__call__ would run from C, or None
// (what mindlite.profiler times as the "key + runner lookup" stage).
PyObject* py_lookup_runner(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyObject_TypeCheck(args[0], &g_prim_base) || !PyTuple_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "lookup_runner(prim, args): expected a Primitive and a "
                    "tuple");
    return nullptr;
  }
  auto* p = reinterpret_cast<PrimitiveBase*>(args[0]);
  PyObject* key = p->runners && PyDict_Check(p->runners) ? fast_key(p->const_mask, args[1])
                                                              : nullptr;
  if (!key) Py_RETURN_NONE;
  PyObject* runner = PyDict_GetItemWithError(p->runners, key);
  Py_DECREF(key);
  if (!runner) {
    if (PyErr_Occurred()) return nullptr;
    Py_RETURN_NONE;
  }
  Py_INCREF(runner);
  return runner;
}

// ---- module functions -----------------------------------------------------------------------
PyObject* py_set_tensor_type(PyObject*, PyObject* type) {
  if (!PyType_Check(type) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type), &g_tensor_base)) {
    PyErr_SetString(PyExc_TypeError, "set_tensor_type: expected a subclass of TensorBase");
    return nullptr;
  }
  Py_INCREF(type);
  Py_XDECREF(reinterpret_cast<PyObject*>(g_tensor_type));
  g_tensor_type = reinterpret_cast<PyTypeObject*>(type);
  Py_RETURN_NONE;
}

// set_grad_tapes(tapes): the calling thread records onto `tapes` (its recorder's list of
// open Tapes) from now on; None: it stops recording.
PyObject* py_set_grad_tapes(PyObject*, PyObject* tapes) {
  if (tapes != Py_None && !PyList_CheckExact(tapes)) {
    PyErr_Format(PyExc_TypeError, "set_grad_tapes: expected the grad recorder's list of tapes "
                 "or None, but got %s", Py_TYPE(tapes)->tp_name);
    return nullptr;
  }
  PyObject* old = t_grad_tapes;
  if (tapes == Py_None) {
    t_grad_tapes = nullptr;
  } else {
    Py_INCREF(tapes);
    t_grad_tapes = tapes;
  }
  Py_XDECREF(old);
  Py_RETURN_NONE;
}

PyObject* py_grad_recording(PyObject*, PyObject*) {
  return PyBool_FromLong(t_grad_tapes != nullptr);
}

// wrap(arr, abs) -> Tensor: the output wrapper of the Python runners.
PyObject* py_wrap(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "wrap(arr, abs): expected 2 arguments, but got %zd", nargs);
    return nullptr;
  }
  Py_INCREF(args[0]);
  return new_tensor(args[0], args[1]);
}

PyMethodDef g_functions[] = {
    {"set_tensor_type", py_set_tensor_type, METH_O,
     "Register mindlite.Tensor: the type fast-path outputs are created as."},
    {"set_grad_tapes", py_set_grad_tapes, METH_O,
     "set_grad_tapes(tapes or None): the calling thread's open tapes while it records."},
    {"lookup_runner",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_lookup_runner)),
     METH_FASTCALL, "lookup_runner(prim, args): the runner the C call path finds, or None."},
    {"grad_recording", py_grad_recording, METH_NOARGS,
     "Whether the calling thread's grad recorder is open."},
    {"wrap", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_wrap)),
     METH_FASTCALL, "wrap(arr, abs) -> Tensor with those fields."},
    {nullptr, nullptr, 0, nullptr}};

bool ready(PyObject* module, PyTypeObject* type, const char* name) {
  if (PyType_Ready(type) < 0) return false;
  Py_INCREF(type);
  if (PyModule_AddObject(module, name, reinterpret_cast<PyObject*>(type)) < 0) {
    Py_DECREF(type);
    return false;
  }
  return true;
}

}  // namespace

PyObject* new_tensor(PyObject* arr, PyObject* abs) {
  if (!g_tensor_type) {
    Py_DECREF(arr);
    PyErr_SetString(PyExc_RuntimeError, "mindlite._C: the Tensor type is not registered");
    return nullptr;
  }
  PyObject* t = g_tensor_type->tp_alloc(g_tensor_type, 0);
  if (!t) {
    Py_DECREF(arr);
    return nullptr;
  }
  auto* tb = reinterpret_cast<TensorBase*>(t);
  tb->arr = arr;
  Py_INCREF(abs);
  tb->abs = abs;
  return t;
}

PyObject* prim_name(PyObject* prim) {
  PyObject* name = PyObject_GetAttrString(prim, "name");
  if (name && PyUnicode_Check(name)) return name;
  Py_XDECREF(name);
  PyErr_Clear();
  return PyObject_Repr(prim);
}


void init_type(PyTypeObject* type, const char* name, Py_ssize_t size, bool base,
               const char* doc, traverseproc traverse, inquiry clear, destructor dealloc) {
  type->tp_name = name;
  type->tp_basicsize = size;
  type->tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | (base ? Py_TPFLAGS_BASETYPE : 0);
  type->tp_doc = doc;
  type->tp_traverse = traverse;
  type->tp_clear = clear;
  type->tp_dealloc = dealloc;
}

}  // namespace fast

bool add_fast_path(PyObject* module) {
  using namespace fast;
  g_dispatch_name = PyUnicode_InternFromString("_dispatch");
  if (!g_dispatch_name) return false;
  init_type(&g_tensor_base, "mindlite._C.TensorBase", sizeof(TensorBase), true,
            "C base of mindlite.Tensor: the _arr and _abs fields.", tensor_traverse,
            tensor_clear, tensor_dealloc);
  g_tensor_base.tp_members = g_tensor_members;
  g_tensor_base.tp_new = PyType_GenericNew;
  init_type(&g_prim_base, "mindlite._C.PrimitiveBase", sizeof(PrimitiveBase), true,
            "C base of mindlite Primitive: the cached call (runner lookup).", prim_traverse,
            prim_clear, prim_dealloc);
  g_prim_base.tp_members = g_prim_members;
  g_prim_base.tp_call = prim_call;
  g_prim_base.tp_new = PyType_GenericNew;
  return ready(module, &g_tensor_base, "TensorBase") &&
         ready(module, &g_prim_base, "PrimitiveBase") && add_fast_runner(module) &&
         PyModule_AddFunctions(module, g_functions) == 0 &&
         profile::add_profiler_functions(module);
}

}  // namespace mindlite
