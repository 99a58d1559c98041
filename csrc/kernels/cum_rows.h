// CumSum / CumProd along the last axis of a C-contiguous array, rows split across the thread
// pool (kernels/cpu/cum_cpp.py). Each row is one running value, in numpy's order of
// operations (the first element itself, then acc + x or acc * x), so the results are the
// numba / numpy kernels' bit for bit; integers wrap as they do.
#pragma once

#include <cstdint>

namespace mindlite {

constexpr uint32_t kFamilyCum = 13;  // split-search family (runtime/thread_pool.h)

enum CumDType : int { kCumF32 = 0, kCumF64 = 1, kCumI32 = 2, kCumI64 = 3 };

struct CumRowsPlan {
  int64_t rows, n;          // rows of n elements
  int dt;                   // CumDType
  bool prod, exclusive, reverse;
};

void run_cum_rows(const CumRowsPlan& p, const char* x, char* out);

}  // namespace mindlite
