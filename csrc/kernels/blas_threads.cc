// The counted single-thread bracket of OpenBLAS GEMMs (see blas_threads.h).
#include "kernels/blas_threads.h"

#include <atomic>
#include <mutex>

namespace mindlite {
namespace {

std::atomic<BlasSetThreadsFn> g_fn{nullptr};
std::mutex g_mu;
int g_depth = 0;  // GEMMs inside the bracket, all threads (under g_mu)
int g_saved = 0;  // the count to restore when the last one leaves (under g_mu)
BlasSetThreadsFn g_entered_fn = nullptr;  // the setter the bracket was opened with

}  // namespace

void blas_threads_attach(BlasSetThreadsFn fn) { g_fn.store(fn); }

BlasSetThreadsFn blas_threads_fn() { return g_fn.load(std::memory_order_relaxed); }

void blas_single_enter() {
  const BlasSetThreadsFn fn = blas_threads_fn();
  if (!fn) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_depth++ == 0) {
    g_entered_fn = fn;
    g_saved = fn(1);
  }
}

void blas_single_exit() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_depth > 0 && --g_depth == 0) g_entered_fn(g_saved);
}

}  // namespace mindlite
