// The op recorder behind mindlite.profiler.Profiler (fast_runner_profile.cc): while it is on,
// every primitive call that enters C (PrimitiveBase.__call__, fast_path.cc) and every kernel
// step of a graph runner (graph_runner.cc) leaves one event -- what ran, on which thread, and
// the tick at each stage boundary. Off, the hooks cost one test of `g_on` per call; the
// profiled code paths are separate template instantiations, so the unprofiled ones are the
// code that ran before the recorder existed.
// Thread safety: events are appended with the GIL held (every hook runs under it).
#pragma once

#include <Python.h>

#include <cstdint>
#include <ctime>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace mindlite {
namespace profile {

extern bool g_on;

// A timestamp in ticks: the TSC where there is one (~10 ns a read against clock_gettime's
// ~25), converted to CLOCK_MONOTONIC ns (Python's time.perf_counter_ns) when events are read.
inline uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
#endif
}

// Stage boundaries of one op call: t[0] entry, t[1] runner found (key + lookup), t[2] output
// allocated (scalar inputs converted), t[3] kernel returned, t[4] Tensor wrapped, t[5] return
// (grad recorded). Paths that do not pass a boundary repeat the previous tick.
constexpr int kStamps = 6;

enum Path : uint8_t {
  kFastRunner = 0,     // cached call, a _C.FastRunner (stages timed in C)
  kPythonRunner = 1,   // cached call, a Python runner (pynative/runner.py)
  kDispatch = 2,       // Primitive._dispatch: a first call of a signature (every pipeline
                       // stage), or a call the C key cannot build
  kGraphKernel = 3,    // one kernel step of a graph runner (graph mode)
};

// PrimitiveBase.__call__'s cached hit while the recorder is on: runs `runner` on `args`,
// records the call of `prim` (t[0..1] filled by the caller).
PyObject* run_runner(PyObject* prim, PyObject* runner, PyObject* args, uint64_t* t);
// The miss: prim._dispatch(args) (method name `dispatch`), recorded.
PyObject* run_dispatch(PyObject* prim, PyObject* dispatch, PyObject* args, uint64_t* t);
// A graph runner step `name` (a str, or the kernel when the step has no name) ran from t0.
void record_step(PyObject* name, uint64_t t0);

bool add_profiler_functions(PyObject* module);

}  // namespace profile
}  // namespace mindlite
