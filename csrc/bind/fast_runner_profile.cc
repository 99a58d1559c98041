// FastRunner.stage_times: the cached call's stages timed in C (mindlite.profiler).
#include <chrono>
#include <vector>

#include "bind/fast_runner.h"

namespace mindlite {
namespace fast {

// runner.stage_times(args, n) -> (alloc_us, launch_us, wrap_us, record_us or None): each stage
// of a call run n times in a row, in C, timed with a steady clock (mindlite.profiler's cached
// breakdown); record only while the calling thread's grad recorder is open (onto its tapes).
PyObject* runner_stage_times(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  auto* r = reinterpret_cast<FastRunner*>(self);
  long n = nargs == 2 ? PyLong_AsLong(args[1]) : -1;
  if (nargs != 2 || !PyTuple_Check(args[0]) || n < 1 || n > 1000000) {
    if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      PyErr_SetString(PyExc_TypeError, "stage_times(args, n): expected a tuple and 1 <= n <= "
                      "1000000");
    }
    return nullptr;
  }
  // One checked call first: validates the inputs the same way a real call does.
  PyObject* probe = run(r, args[0]);
  if (!probe) return nullptr;
  Py_DECREF(probe);
  PyObject* stack[kMaxFastInputs + 1];
  std::vector<PyObject*> converted;
  for (int i = 0; i < r->nin; ++i) {
    PyObject* a = PyTuple_GET_ITEM(args[0], r->pos[i]);
    if (r->conv[i]) {
      Py_INCREF(r->conv[i]);
      stack[i] = PyArray_FromAny(a, r->conv[i], 0, 0, 0, nullptr);
      if (!stack[i]) {
        for (PyObject* o : converted) Py_DECREF(o);
        return nullptr;
      }
      converted.push_back(stack[i]);
    } else {
      stack[i] = reinterpret_cast<TensorBase*>(a)->arr;
    }
  }
  std::vector<PyObject*> items(n, nullptr);
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  bool ok = true;
  for (long i = 0; ok && i < n; ++i) {
    if (r->alloc) {
      items[i] = PyObject_CallNoArgs(r->alloc);
    } else {
      Py_INCREF(r->descr);
      items[i] = PyArray_NewFromDescr(&PyArray_Type, r->descr, r->nd, r->shape, nullptr,
                                      nullptr, 0, nullptr);
    }
    ok = items[i] != nullptr;
  }
  auto t1 = clock::now();
  for (long i = 0; ok && i < n; ++i) ok = launch(r, stack, items[i]);
  auto t2 = clock::now();
  for (long i = 0; ok && i < n; ++i) {
    items[i] = new_tensor(items[i], r->out_abs);    // steals the array
    ok = items[i] != nullptr;
  }
  auto t3 = clock::now();
  PyObject* tapes = r->differentiable ? t_grad_tapes : nullptr;   // this thread records
  const bool rec = ok && tapes;
  for (long i = 0; rec && ok && i < n; ++i) ok = record(r, tapes, args[0], items[i]);
  auto t4 = clock::now();
  for (PyObject* o : items) Py_XDECREF(o);
  for (PyObject* o : converted) Py_DECREF(o);
  if (!ok) return nullptr;
  auto us = [n](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count() / static_cast<double>(n);
  };
  if (!rec) return Py_BuildValue("(dddO)", us(t0, t1), us(t1, t2), us(t2, t3), Py_None);
  return Py_BuildValue("(dddd)", us(t0, t1), us(t1, t2), us(t2, t3), us(t3, t4));
}

}  // namespace fast
}  // namespace mindlite
