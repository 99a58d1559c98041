// glibc malloc's thresholds for a training process (applied once, at `import mindlite`).
#pragma once

namespace mindlite {

// Applies the policy unless MINDLITE_MALLOC_TUNE=0 or the user tuned malloc already
// (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_ or GLIBC_TUNABLES set); true if applied.
bool tune_malloc();
bool malloc_tuned();

}  // namespace mindlite
