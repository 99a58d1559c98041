// The strided copy (see copy_rows.h). NOTE: numpy's copy of a transposed view moved 1 MiB of
// (64, 128, 32) float32 through (1, 0, 2) in 95 us (its inner loop copies element by element
// when the view is not contiguous); copying the 128-byte runs as blocks takes ~20-30 us.
#include "kernels/copy_rows.h"

#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kernels/elementwise.h"
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

// An element of B bytes as an unsigned integer (1, 2, 4, 8).
template <int64_t B>
using Word = std::conditional_t<B == 1, uint8_t, std::conditional_t<B == 2, uint16_t,
             std::conditional_t<B == 4, uint32_t, uint64_t>>>;

// Columns [i0, i1) of the transpose of a contiguous (n, R) source into (R, n): out[r][i] =
// src[i][r], R a constant so the compiler vectorises the loop as an interleaved load.
template <int64_t B, int R>
void deinterleave(const char* src, char* out, int64_t n, int64_t i0, int64_t i1) {
  const auto* s = reinterpret_cast<const Word<B>*>(src);
  auto* o = reinterpret_cast<Word<B>*>(out);
  for (int64_t i = i0; i < i1; ++i) {
    for (int r = 0; r < R; ++r) o[r * n + i] = s[i * R + r];
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// deinterleave<4, 3> by 16 positions: three loads, two permutes per channel (the compiler's
// loop ran element by element at ~1 per cycle).
__attribute__((target("avx512f"))) void deinterleave3_avx512(const char* src, char* out,
                                                             int64_t n, int64_t i0, int64_t i1) {
  const auto* s = reinterpret_cast<const float*>(src);
  auto* o = reinterpret_cast<float*>(out);
  int64_t i = i0;
  for (; i + 16 <= i1; i += 16) {
    const __m512 a = _mm512_loadu_ps(s + 3 * i), b = _mm512_loadu_ps(s + 3 * i + 16);
    const __m512 c = _mm512_loadu_ps(s + 3 * i + 32);
    for (int r = 0; r < 3; ++r) {
      alignas(64) int32_t lo[16], hi[16];
      __mmask16 from_c = 0;
      for (int j = 0; j < 16; ++j) {
        const int e = 3 * j + r;
        lo[j] = e < 32 ? e : 0;
        hi[j] = e < 32 ? 0 : e - 32;
        if (e >= 32) from_c = static_cast<__mmask16>(from_c | (1u << j));
      }
      const __m512 ab = _mm512_permutex2var_ps(a, _mm512_load_si512(lo), b);
      _mm512_storeu_ps(o + r * n + i,
                       _mm512_mask_permutexvar_ps(ab, from_c, _mm512_load_si512(hi), c));
    }
  }
  for (; i < i1; ++i) {
    for (int r = 0; r < 3; ++r) o[r * n + i] = s[i * 3 + r];
  }
}
#endif

// NOTE: NHWC -> NCHW of an image (a Lite model's input Transpose, 1 x 224 x 224 x 3 float32)
// merges to 3 runs of 50176 elements at a 12-byte stride: copied element by element, and split
// by runs (3 over 2 threads), it took 43 us alone, 59-75 in a MobileNetV2 predict. As a
// deinterleave split over the positions (AVX-512 permutes for 3 channels of 4 bytes): 15.7 us
// on one thread, 7.5 on two.
bool run_deinterleave(const CopyPlan& p, const char* src, char* out) {
  const int64_t rr = p.shape[0], n = p.shape[1], isz = p.isz;
  if (p.nd != 2 || p.stride[0] != isz || p.stride[1] != rr * isz || rr < 2 || rr > 4 ||
      isz > 8) {
    return false;
  }
#if defined(__x86_64__) && defined(__GNUC__)
  const bool avx512 = rr == 3 && isz == 4 && std::strcmp(kernel_isa(), "avx512") == 0;
#else
  const bool avx512 = false;
#endif
  auto body = [&](int64_t i0, int64_t i1) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (avx512) return deinterleave3_avx512(src, out, n, i0, i1);
#endif
    with_isz(isz, [&](auto b) {
      constexpr int64_t B = decltype(b)::value;
      if constexpr (B <= 8) {
        if (rr == 2) deinterleave<B, 2>(src, out, n, i0, i1);
        else if (rr == 3) deinterleave<B, 3>(src, out, n, i0, i1);
        else deinterleave<B, 4>(src, out, n, i0, i1);
      }
    });
  };
  const uint32_t key = split_key(kFamilyCopy, 1, static_cast<uint32_t>(isz));
  const SplitDecision d = decide_split(key, rr * n, 1);
  run_timed(key, rr * n, d, [&] { parallel_for(n, d.threads, body); });
  return true;
}

}  // namespace

void run_copy(const CopyPlan& p, const char* src, char* out) {
  int64_t runs = 1;
  for (int d = 0; d + 1 < p.nd; ++d) runs *= p.shape[d];
  const int64_t elems = runs * p.shape[p.nd - 1];
  if (elems == 0 || run_deinterleave(p, src, out)) return;
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
