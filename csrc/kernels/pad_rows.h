// PadV3's reflect / edge / circular modes over the last two axes, as one gather of rows
// (kernels/cpu/pad_numba.py's plan): out (A, Ho, Wo) row i of plane a is x (A, H, W) row
// rows[i] of plane a, its columns cols[j]; columns [ks, ke) read the contiguous input columns
// [ks - lo, ke - lo) (one memcpy a row), the few others one element each.
#pragma once

#include <cstdint>

namespace mindlite {

constexpr uint32_t kFamilyPad = 7;  // split-search family (runtime/thread_pool.h)

struct PadRowsPlan {
  int64_t a, h, w, ho, wo;   // planes, input rows / columns, output rows / columns
  const int64_t* rows;       // ho input rows, each in [0, h) (or -1: fill)
  const int64_t* cols;       // wo input columns, each in [0, w) (or -1: fill)
  int64_t ks, ke, lo;        // the kept block [ks, ke) reads columns [ks - lo, ke - lo)
  int64_t isz;               // bytes an element: 1, 2, 4, 8 or 16
  const char* fill;          // constant mode: the element an index -1 writes; else nullptr
};

// Output rows split across the thread pool (each row whole on one thread: bitwise the same
// either way: every value is a copy).
void run_pad_rows(const PadRowsPlan& p, const char* x, char* out);

}  // namespace mindlite
