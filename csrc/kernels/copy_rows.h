// A strided array copied into a C-contiguous one (Transpose's kernel, kernels/cpu/copy_cpp.py).
//
// The source is any strided view of the output's shape (np.transpose(x, perm), a slice, ...).
// Dimensions whose source strides chain (stride[d] == stride[d + 1] * shape[d + 1]) are merged
// first; the innermost merged dimension is then copied as a run: one memcpy-like block copy
// when its source stride is the element size (Transpose keeping the last axis), element by
// element otherwise. Rows are split across the thread pool by the split search (kFamilyCopy):
// each output element is written once, whoever copies it, so results never depend on threads.
#pragma once

#include <cstdint>

namespace mindlite {

constexpr uint32_t kFamilyCopy = 8;  // split-search family (runtime/thread_pool.h)
constexpr int kCopyMaxDims = 32;

struct CopyPlan {
  int nd = 0;                      // merged dims, outermost first (at least 1)
  int64_t shape[kCopyMaxDims];     // merged shape
  int64_t stride[kCopyMaxDims];    // source byte strides of the merged dims
  int64_t isz = 0;                 // element size in bytes: 1, 2, 4, 8 or 16
};

// Merges the dims of (shape, byte strides) of `nd` dims (nd <= kCopyMaxDims) into p.
void plan_copy(int nd, const int64_t* shape, const int64_t* strides, int64_t isz, CopyPlan* p);

// out (C-contiguous, p's total size) = the strided source at src.
void run_copy(const CopyPlan& p, const char* src, char* out);

}  // namespace mindlite
