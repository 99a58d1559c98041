// FastRunner.stage_times: the cached call's stages timed in C (mindlite.profiler's
// breakdown), and the op recorder of mindlite.profiler.Profiler (profile.h).
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <unordered_map>
#include <vector>

#include "bind/fast_runner.h"
#include "bind/profile.h"

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

// ---- the op recorder (profile.h): mindlite.profiler.Profiler's events --------------------------
namespace profile {

bool g_on = false;

namespace {

struct Event {
  PyObject* obj;            // the primitive (ops) or the step's name / kernel (graph); owned
  uint64_t t[kStamps];
  uint32_t tid;
  uint8_t path;
};

std::vector<Event> g_events;
size_t g_cap = 1000000;
uint64_t g_dropped = 0;
// Two (ticks, CLOCK_MONOTONIC ns) pairs, read when the recorder starts and stops: ticks are
// converted to ns along the line through them (an invariant TSC runs at a constant rate).
uint64_t g_start_ticks = 0, g_start_ns = 0, g_stop_ticks = 0, g_stop_ns = 0;
MINDLITE_THREAD_LOCAL uint32_t t_tid = 0;

uint64_t mono_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void clock_pair(uint64_t* tk, uint64_t* ns) {
  const uint64_t a = mono_ns();
  *tk = ticks();
  const uint64_t b = mono_ns();
  *ns = a + (b - a) / 2;
}

inline uint32_t thread_id() {
  if (!t_tid) t_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return t_tid;
}

inline void push(PyObject* obj, Path path, const uint64_t* t) {
  if (g_events.size() >= g_cap) {
    ++g_dropped;
    return;
  }
  try {
    g_events.push_back(Event{obj, {t[0], t[1], t[2], t[3], t[4], t[5]}, thread_id(),
                             static_cast<uint8_t>(path)});
  } catch (const std::bad_alloc&) {
    ++g_dropped;
    return;
  }
  Py_INCREF(obj);
}

void clear_events() {
  std::vector<Event> old;
  old.swap(g_events);              // a decref may run Python code that records
  for (Event& e : old) Py_DECREF(e.obj);
}

// _C.profiler_enable(on, cap=1000000): start (on=True: the buffer emptied, at most `cap`
// events kept, the rest counted as dropped) or stop recording.
PyObject* py_enable(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  long long cap = 1000000;
  if (nargs < 1 || nargs > 2 || !PyBool_Check(args[0]) ||
      (nargs == 2 && ((cap = PyLong_AsLongLong(args[1])) < 1 || cap > (1ll << 32)))) {
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError, "profiler_enable(on, cap=1000000): expected a bool and "
                    "1 <= cap <= 2**32");
    return nullptr;
  }
  if (args[0] == Py_True) {
    clear_events();
    g_dropped = 0;
    g_cap = static_cast<size_t>(cap);
    g_events.reserve(std::min<size_t>(g_cap, 1 << 16));
    clock_pair(&g_start_ticks, &g_start_ns);
    g_stop_ticks = g_start_ticks;
    g_stop_ns = g_start_ns;
    g_on = true;
  } else if (g_on) {
    g_on = false;
    clock_pair(&g_stop_ticks, &g_stop_ns);
  }
  Py_RETURN_NONE;
}

// One event as profiler_events() packs it (64 bytes, little-endian on the targets built):
// mindlite.profiler.collect.EVENT_DTYPE reads the same layout.
struct Packed {
  int64_t t0;          // start, CLOCK_MONOTONIC ns
  int64_t d[5];        // lookup, alloc, launch, wrap, record ns (collect.py: by path)
  uint32_t obj;        // index into the objs list
  uint32_t tid;
  uint8_t path;
  uint8_t pad[7];
};
static_assert(sizeof(Packed) == 64, "Packed is read by collect.EVENT_DTYPE");

// _C.profiler_events() -> (objs, data, dropped): the recorded events, oldest first, packed
// (Packed) in the bytes `data`, each naming its op by index into `objs` (each primitive or
// step name once), and the count the cap dropped; the buffer is emptied. Compact: a
// million calls take 64 MB, not the ~400 of a tuple each.
PyObject* py_events(PyObject*, PyObject*) {
  if (g_on) clock_pair(&g_stop_ticks, &g_stop_ns);
  const double span = static_cast<double>(g_stop_ticks - g_start_ticks);
  const double scale = g_stop_ticks > g_start_ticks
                           ? static_cast<double>(g_stop_ns - g_start_ns) / span : 1.0;
  std::vector<Event> events;
  events.swap(g_events);
  auto ns = [scale](uint64_t a, uint64_t b) {
    return static_cast<int64_t>(static_cast<double>(static_cast<int64_t>(b - a)) * scale);
  };
  PyObject* objs = PyList_New(0);
  PyObject* data = objs ? PyBytes_FromStringAndSize(
      nullptr, static_cast<Py_ssize_t>(events.size() * sizeof(Packed))) : nullptr;
  std::unordered_map<PyObject*, uint32_t> index;
  bool ok = data != nullptr;
  for (size_t i = 0; ok && i < events.size(); ++i) {
    const Event& e = events[i];
    auto it = index.find(e.obj);
    if (it == index.end()) {
      it = index.emplace(e.obj, static_cast<uint32_t>(index.size())).first;
      ok = PyList_Append(objs, e.obj) == 0;
    }
    Packed rec{};
    rec.t0 = static_cast<int64_t>(g_start_ns) + ns(g_start_ticks, e.t[0]);
    for (int k = 0; k < 5; ++k) rec.d[k] = ns(e.t[k], e.t[k + 1]);
    rec.obj = it->second;
    rec.tid = e.tid;
    rec.path = e.path;
    std::memcpy(PyBytes_AS_STRING(data) + i * sizeof(Packed), &rec, sizeof(Packed));
  }
  for (Event& e : events) Py_DECREF(e.obj);
  if (!ok) {
    Py_XDECREF(objs);
    Py_XDECREF(data);
    return nullptr;
  }
  return Py_BuildValue("(NNK)", objs, data, static_cast<unsigned long long>(g_dropped));
}

PyObject* py_profiling(PyObject*, PyObject*) { return PyBool_FromLong(g_on); }

PyMethodDef g_profile_functions[] = {
    {"profiler_enable", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_enable)),
     METH_FASTCALL, "profiler_enable(on, cap=1000000): start / stop the op recorder."},
    {"profiler_events", py_events, METH_NOARGS,
     "profiler_events() -> (objs, packed events, dropped); the buffer is emptied."},
    {"profiler_on", py_profiling, METH_NOARGS, "Whether the op recorder is on."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyObject* run_runner(PyObject* prim, PyObject* runner, PyObject* args, uint64_t* t) {
  t[1] = t[2] = t[3] = t[4] = ticks();
  PyObject* res;
  Path path;
  if (Py_TYPE(runner) == &fast::g_fast_runner) {
    path = kFastRunner;
    res = fast::run_profiled(reinterpret_cast<fast::FastRunner*>(runner), args, t);
  } else {
    path = kPythonRunner;
    res = PyObject_CallOneArg(runner, args);
  }
  t[5] = ticks();
  if (g_on) push(prim, path, t);     // the call may have stopped the recorder
  return res;
}

PyObject* run_dispatch(PyObject* prim, PyObject* dispatch, PyObject* args, uint64_t* t) {
  t[1] = t[2] = t[3] = t[4] = ticks();
  PyObject* res = PyObject_CallMethodOneArg(prim, dispatch, args);
  t[5] = ticks();
  if (g_on) push(prim, kDispatch, t);
  return res;
}

void record_step(PyObject* name, uint64_t t0) {
  const uint64_t t1 = ticks();
  const uint64_t t[kStamps] = {t0, t0, t0, t1, t1, t1};    // all of it the kernel launch
  if (g_on) push(name, kGraphKernel, t);
}

bool add_profiler_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_profile_functions) == 0;
}

}  // namespace profile
}  // namespace mindlite
