// _C.guards_hold(gone, lookups, attrs, containers, weights) -> bool: True when every guard a
// compiled graph baked in still holds (mindlite/jit/guards.py builds the tuples):
//   lookups     ((dict, key, expected), ...)     dict.get(key, gone) is expected
//   attrs       ((obj, name, expected), ...)     getattr(obj, name, gone) is expected
//   containers  ((obj, items), ...)              a list whose items are `items` (identity),
//                                                or a dict whose (key, value) pairs are
//                                                `items` (keys equal, values identical)
//   weights     ((tensor, abstract), ...)        the Tensor holds data, its _abs is abstract
// False says "not proven": the caller re-checks in Python (equal values, lazy weights).
#include "bind/guard_bind.h"

#include "bind/fast_path.h"

namespace mindlite {
namespace {

bool lookups_hold(PyObject* gone, PyObject* lookups, int* err) {
  const Py_ssize_t n = PyTuple_GET_SIZE(lookups);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* g = PyTuple_GET_ITEM(lookups, i);
    PyObject* d = PyTuple_GET_ITEM(g, 0);
    PyObject* got = PyDict_GetItemWithError(d, PyTuple_GET_ITEM(g, 1));
    if (!got) {
      if (PyErr_Occurred()) {
        *err = 1;
        return false;
      }
      got = gone;
    }
    if (got != PyTuple_GET_ITEM(g, 2)) return false;
  }
  return true;
}

bool attrs_hold(PyObject* gone, PyObject* attrs, int* err) {
  const Py_ssize_t n = PyTuple_GET_SIZE(attrs);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* g = PyTuple_GET_ITEM(attrs, i);
    PyObject* got = PyObject_GetAttr(PyTuple_GET_ITEM(g, 0), PyTuple_GET_ITEM(g, 1));
    if (!got) {
      if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
        *err = 1;
        return false;
      }
      PyErr_Clear();
      got = gone;
      Py_INCREF(got);
    }
    const bool same = got == PyTuple_GET_ITEM(g, 2);
    Py_DECREF(got);
    if (!same) return false;
  }
  return true;
}

bool container_holds(PyObject* obj, PyObject* items, int* err) {
  const Py_ssize_t n = PyTuple_GET_SIZE(items);
  if (PyList_CheckExact(obj)) {
    if (PyList_GET_SIZE(obj) != n) return false;
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (PyList_GET_ITEM(obj, i) != PyTuple_GET_ITEM(items, i)) return false;
    }
    return true;
  }
  if (!PyDict_Check(obj) || PyDict_Size(obj) != n) return false;
  Py_ssize_t pos = 0, i = 0;
  PyObject *key, *value;
  while (PyDict_Next(obj, &pos, &key, &value)) {      // insertion order, as the snapshot's
    PyObject* pair = PyTuple_GET_ITEM(items, i++);
    if (value != PyTuple_GET_ITEM(pair, 1)) return false;
    PyObject* want = PyTuple_GET_ITEM(pair, 0);
    if (key != want) {
      const int eq = PyObject_RichCompareBool(key, want, Py_EQ);
      if (eq < 0) *err = 1;
      if (eq != 1) return false;
    }
  }
  return true;
}

bool weights_hold(PyObject* weights) {
  const Py_ssize_t n = PyTuple_GET_SIZE(weights);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* g = PyTuple_GET_ITEM(weights, i);
    PyObject* t = PyTuple_GET_ITEM(g, 0);
    if (!fast::is_tensor(t)) return false;
    auto* tb = reinterpret_cast<fast::TensorBase*>(t);
    if (!tb->arr || tb->arr == Py_None || tb->abs != PyTuple_GET_ITEM(g, 1)) return false;
  }
  return true;
}

PyObject* py_guards_hold(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError, "guards_hold takes (gone, lookups, attrs, containers, "
                    "weights)");
    return nullptr;
  }
  for (int i = 1; i < 5; ++i) {
    if (!PyTuple_CheckExact(args[i])) {
      PyErr_Format(PyExc_TypeError, "guards_hold: argument %d must be a tuple", i);
      return nullptr;
    }
  }
  int err = 0;
  bool ok = lookups_hold(args[0], args[1], &err) && !err && attrs_hold(args[0], args[2], &err);
  const Py_ssize_t nc = PyTuple_GET_SIZE(args[3]);
  for (Py_ssize_t i = 0; ok && !err && i < nc; ++i) {
    PyObject* g = PyTuple_GET_ITEM(args[3], i);
    ok = container_holds(PyTuple_GET_ITEM(g, 0), PyTuple_GET_ITEM(g, 1), &err);
  }
  if (err) return nullptr;
  return PyBool_FromLong(ok && weights_hold(args[4]));
}

PyMethodDef g_guard_functions[] = {
    {"guards_hold", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(
                        py_guards_hold)), METH_FASTCALL,
     "guards_hold(gone, lookups, attrs, containers, weights) -> bool: a compiled graph's "
     "guards all hold (mindlite/jit/guards.py)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_guard_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_guard_functions) == 0;
}

}  // namespace mindlite
