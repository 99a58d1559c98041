// glibc malloc's thresholds for a training process.
//
// By default glibc serves a block of 128 KiB or more with a fresh mmap, raising that threshold
// to the size of the largest such block freed (up to 32 MiB) and trimming the heap's top
// whenever more than twice the threshold is free there. A training step allocates and frees
// the same few-MiB buffers every step (an LSTM layer's input projection, reserve and
// gradients; a Transformer's attention scores; numpy temporaries in bprops), so each step
// gave its pages back and faulted them in again: in perf, ~12% of an LSTM step was the
// kernel zeroing and mapping pages (clear_page_erms, exc_page_fault), and the step ran
// 17-18.6 ms against 14.0-14.5 ms with these thresholds set.
//
// The policy: blocks below kMmapThreshold come from the heap, and up to kTrimThreshold of
// free memory at the heap's top is kept for the next step. Memory a program frees stays
// mapped up to that bound (a heap's top; freed mmapped blocks of kMmapThreshold and more are
// returned at once, as before). MINDLITE_MALLOC_TUNE=0 keeps glibc's defaults, and a user's
// own MALLOC_*_ / GLIBC_TUNABLES settings win. Other C libraries: nothing is changed.
#include "runtime/malloc_policy.h"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace mindlite {
namespace {

constexpr int kMmapThreshold = 32 << 20;  // glibc's own ceiling for its dynamic threshold
constexpr int kTrimThreshold = 64 << 20;
bool g_tuned = false;

bool user_tuned() {
  const char* own = std::getenv("MINDLITE_MALLOC_TUNE");
  if (own && !std::strcmp(own, "0")) return true;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return std::getenv("MALLOC_MMAP_THRESHOLD_") || std::getenv("MALLOC_TRIM_THRESHOLD_") ||
         (tunables && std::strstr(tunables, "glibc.malloc."));
}

}  // namespace

bool tune_malloc() {
#if defined(__GLIBC__)
  if (g_tuned || user_tuned()) return g_tuned;
  g_tuned = mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 &&
            mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
#endif
  return g_tuned;
}

bool malloc_tuned() { return g_tuned; }

}  // namespace mindlite
