// The strided copy (see copy_rows.h). NOTE: numpy's copy of a transposed view moved 1 MiB of
// (64, 128, 32) float32 through (1, 0, 2) in 95 us (its inner loop copies element by element
// when the view is not contiguous); copying the 128-byte runs as blocks takes ~20-30 us.
#include "kernels/copy_rows.h"

#include <cstring>

#include "kernels/isz_dispatch.h"
#include "runtime/thread_pool.h"

namespace mindlite {

void plan_copy(int nd, const int64_t* shape, const int64_t* strides, int64_t isz, CopyPlan* p) {
  p->isz = isz;
  p->nd = 0;
  for (int d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;  // a size-1 dim moves nothing: its stride is meaningless
    if (p->nd > 0 && p->stride[p->nd - 1] == strides[d] * shape[d]) {
      p->shape[p->nd - 1] *= shape[d];  // the previous dim steps over this one: merge
      p->stride[p->nd - 1] = strides[d];
      continue;
    }
    p->shape[p->nd] = shape[d];
    p->stride[p->nd] = strides[d];
    ++p->nd;
  }
  if (p->nd == 0) {  // every dim of size 1 (or none): one element
    p->shape[0] = 1;
    p->stride[0] = isz;
    p->nd = 1;
  }
}

namespace {

// One run of n elements of B bytes at src (source stride s) to the contiguous dst.
template <int64_t B>
inline void copy_run(const char* src, int64_t s, char* dst, int64_t n) {
  if (s == B) {
    int64_t bytes = n * B, k = 0;
    for (; k + 64 <= bytes; k += 64) __builtin_memcpy(dst + k, src + k, 64);
    for (; k + B <= bytes; k += B) __builtin_memcpy(dst + k, src + k, B);
    return;
  }
  for (int64_t i = 0; i < n; ++i) __builtin_memcpy(dst + i * B, src + i * s, B);
}

// Runs [r0, r1) of the plan (run r = the C-order index over the outer merged dims).
template <int64_t B>
void rows(const CopyPlan& p, const char* src, char* out, int64_t r0, int64_t r1) {
  const int inner = p.nd - 1;
  const int64_t n = p.shape[inner], s = p.stride[inner];
  int64_t idx[kCopyMaxDims];
  int64_t off = 0, r = r0;
  for (int d = inner - 1; d >= 0; --d) {  // the source offset of run r0
    idx[d] = r % p.shape[d];
    r /= p.shape[d];
    off += idx[d] * p.stride[d];
  }
  char* dst = out + r0 * n * B;
  for (int64_t k = r0; k < r1; ++k, dst += n * B) {
    copy_run<B>(src + off, s, dst, n);
    for (int d = inner - 1; d >= 0; --d) {  // odometer step to run k + 1
      off += p.stride[d];
      if (++idx[d] < p.shape[d]) break;
      off -= p.stride[d] * p.shape[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

void run_copy(const CopyPlan& p, const char* src, char* out) {
  int64_t runs = 1;
  for (int d = 0; d + 1 < p.nd; ++d) runs *= p.shape[d];
  const int64_t elems = runs * p.shape[p.nd - 1];
  if (elems == 0) return;
  auto body = [&](int64_t r0, int64_t r1) {
    with_isz(p.isz, [&](auto b) { rows<decltype(b)::value>(p, src, out, r0, r1); });
  };
  const uint32_t key = split_key(kFamilyCopy, 0, static_cast<uint32_t>(p.isz));
  const SplitDecision d = runs > 1 ? decide_split(key, elems, 1) : SplitDecision{1, false};
  if (d.threads <= 1) {
    run_timed(key, elems, d, [&] { body(0, runs); });
    return;
  }
  run_timed(key, elems, d, [&] { parallel_for(runs, d.threads, body); });
}

}  // namespace mindlite
