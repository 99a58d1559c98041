// float16 through float32 lanes (see f16_kernels.h): the conversions, picked per instruction
// set as the other families (MINDLITE_ISA honoured through kernel_isa()), and the blockwise
// elementwise launches over the float32 loops of kernel_tables().
//
// Conversions: AVX-512F (_mm512_cvtph_ps / _mm512_cvtps_ph, 16 lanes), AVX2 + F16C
// (_mm256_cvtph_ps / _mm256_cvtps_ph, 8 lanes), or scalar bit arithmetic on "base" that gives
// the same bits as the instructions (NaN: sign kept, quiet bit set, payload truncated). A
// partial vector is copied through a zero-padded buffer, so a tail element gets exactly the
// conversion a whole-vector element gets.
#include "kernels/f16_kernels.h"

#include <cstring>
#include <memory>

#include "kernels/isa_common.h"
#include "kernels/reduce.h"
#include "runtime/thread_pool.h"

// GCC 12's _mm512_cvtph_ps seeds its pass-through operand with `__Y = __Y`: a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace mindlite {
namespace {

using WidenFn = void (*)(const uint16_t* x, float* out, int64_t n);
using NarrowFn = void (*)(const float* x, uint16_t* out, int64_t n);

// Elements per block of the elementwise launches: three 2 KiB float32 buffers stay in L1.
constexpr int64_t kF16Block = 512;
// Elements per block of whole softmax rows (at least one row): two 32 KiB float32 buffers.
constexpr int64_t kF16SoftmaxBlock = 8192;
// Elements per block of whole first-dim slices of a reduction: 128 KiB of float32, in L2 (fewer
// plans per element; the float32 max / min loops run at the same speed from L2 as from memory).
constexpr int64_t kF16ReduceBlock = 32768;

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu;
  uint32_t bits;
  if (em >= 0x7c00u) {  // inf / NaN (a NaN is quieted, as vcvtph2ps does)
    const uint32_t mant = (em & 0x3ffu) << 13;
    bits = sign | 0x7f800000u | mant | (mant ? 0x00400000u : 0u);
  } else if (em >= 0x0400u) {  // normal: rebias the exponent
    bits = sign | ((em + ((127u - 15u) << 10)) << 13);
  } else {  // zero / subnormal: em * 2^-24, exact in float32
    const float v = static_cast<float>(em) * 5.9604644775390625e-8f;
    std::memcpy(&bits, &v, sizeof bits);
    bits |= sign;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t float_to_half(float value) {
  uint32_t f;
  std::memcpy(&f, &value, sizeof f);
  const uint32_t sign = f & 0x80000000u;
  f ^= sign;
  uint32_t o;
  if (f >= 0x7f800000u) {  // inf / NaN
    o = f > 0x7f800000u ? (0x7e00u | ((f >> 13) & 0x3ffu)) : 0x7c00u;
  } else if (f >= (143u << 23)) {  // |x| >= 65536: overflows to inf
    o = 0x7c00u;
  } else if (f < (113u << 23)) {  // result subnormal or zero: let the FPU round at 2^-24
    const uint32_t magic_bits = 126u << 23;  // 0.5: its ulp is 2^-24
    float magic, v;
    std::memcpy(&magic, &magic_bits, sizeof magic);
    std::memcpy(&v, &f, sizeof v);
    v += magic;
    uint32_t vb;
    std::memcpy(&vb, &v, sizeof vb);
    o = vb - magic_bits;
  } else {  // normal: round the 13 dropped bits to nearest even (may carry into inf)
    const uint32_t odd = (f >> 13) & 1u;
    f += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + odd;
    o = f >> 13;
  }
  return static_cast<uint16_t>(o | (sign >> 16));
}

void widen_base(const uint16_t* x, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = half_to_float(x[i]);
}

void narrow_base(const float* x, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(x[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
void widen_avx2(const uint16_t* x, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  if (i < n) {
    alignas(32) uint16_t b[8] = {0};
    alignas(32) float r[8];
    std::memcpy(b, x + i, (n - i) * sizeof(uint16_t));
    _mm256_store_ps(r, _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(b))));
    std::memcpy(out + i, r, (n - i) * sizeof(float));
  }
}

void narrow_avx2(const float* x, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  if (i < n) {
    alignas(32) float b[8] = {0};
    alignas(32) uint16_t r[8];
    std::memcpy(b, x + i, (n - i) * sizeof(float));
    _mm_store_si128(reinterpret_cast<__m128i*>(r),
                    _mm256_cvtps_ph(_mm256_load_ps(b), _MM_FROUND_TO_NEAREST_INT));
    std::memcpy(out + i, r, (n - i) * sizeof(uint16_t));
  }
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma,f16c")
void widen_avx512(const uint16_t* x, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(h));
  }
  if (i < n) {
    alignas(64) uint16_t b[16] = {0};
    alignas(64) float r[16];
    std::memcpy(b, x + i, (n - i) * sizeof(uint16_t));
    _mm512_store_ps(r, _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(b))));
    std::memcpy(out + i, r, (n - i) * sizeof(float));
  }
}

void narrow_avx512(const float* x, uint16_t* out, int64_t n) {
  constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(x + i), kRound);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), h);
  }
  if (i < n) {
    alignas(64) float b[16] = {0};
    alignas(64) uint16_t r[16];
    std::memcpy(b, x + i, (n - i) * sizeof(float));
    _mm256_store_si256(reinterpret_cast<__m256i*>(r), _mm512_cvtps_ph(_mm512_load_ps(b), kRound));
    std::memcpy(out + i, r, (n - i) * sizeof(uint16_t));
  }
}
#pragma GCC pop_options
#endif

struct Converters {
  WidenFn widen;
  NarrowFn narrow;
};

const Converters& converters() {
  static const Converters c = [] {
    const char* isa = kernel_isa();
#if defined(__x86_64__) && defined(__GNUC__)
    if (!std::strcmp(isa, "avx512")) return Converters{&widen_avx512, &narrow_avx512};
    if (!std::strcmp(isa, "avx2")) return Converters{&widen_avx2, &narrow_avx2};
#endif
    (void)isa;
    return Converters{&widen_base, &narrow_base};
  }();
  return c;
}

}  // namespace

void run_f16_to_f32(const uint16_t* x, float* out, int64_t n) {
  const WidenFn widen = converters().widen;
  auto body = [&](int64_t b, int64_t e) { widen(x + b, out + b, e - b); };
  parallel_launch(split_key(kFamilyF16, kF16Convert, 0), n, 1, body);
}

void run_f32_to_f16(const float* x, uint16_t* out, int64_t n) {
  const NarrowFn narrow = converters().narrow;
  auto body = [&](int64_t b, int64_t e) { narrow(x + b, out + b, e - b); };
  parallel_launch(split_key(kFamilyF16, kF16Narrow, 0), n, 1, body);
}

void run_f16_unary(int op, const uint16_t* x, uint16_t* out, int64_t n) {
  const UnaryFn fn = kernel_tables().unary[op][kF32];
  const Converters& c = converters();
  auto body = [&](int64_t b, int64_t e) {
    alignas(64) float buf[kF16Block];
    for (int64_t i = b; i < e; i += kF16Block) {
      const int64_t k = e - i < kF16Block ? e - i : kF16Block;
      c.widen(x + i, buf, k);
      fn(reinterpret_cast<const char*>(buf), reinterpret_cast<char*>(buf), k);
      c.narrow(buf, out + i, k);
    }
  };
  parallel_launch(split_key(kFamilyF16, op, 0), n, unary_cost(op) + 1, body);
}

void run_f16_binary(int op, int mode, const uint16_t* x, const uint16_t* y, uint16_t* out,
                    int64_t n) {
  const BinaryFn fn = kernel_tables().binary[op][kF32][mode];
  const Converters& c = converters();
  float xs = 0.0f, ys = 0.0f;  // the scalar operand of kSV / kVS, widened once
  if (mode == kSV) c.widen(x, &xs, 1);
  if (mode == kVS) c.widen(y, &ys, 1);
  auto body = [&](int64_t b, int64_t e) {
    alignas(64) float bx[kF16Block];
    alignas(64) float by[kF16Block];
    for (int64_t i = b; i < e; i += kF16Block) {
      const int64_t k = e - i < kF16Block ? e - i : kF16Block;
      const float* px = &xs;
      const float* py = &ys;
      if (mode != kSV) {
        c.widen(x + i, bx, k);
        px = bx;
      }
      if (mode != kVS) {
        c.widen(y + i, by, k);
        py = by;
      }
      fn(reinterpret_cast<const char*>(px), reinterpret_cast<const char*>(py),
         reinterpret_cast<char*>(mode == kSV ? by : bx), k);
      c.narrow(mode == kSV ? by : bx, out + i, k);
    }
  };
  parallel_launch(split_key(kFamilyF16, 32 + op, static_cast<uint32_t>(mode)), n,
                  binary_cost(op) + 1, body);
}

void run_f16_softmax(int op, const uint16_t* x, uint16_t* out, int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return;
  const Converters& c = converters();
  const int64_t per = cols >= kF16SoftmaxBlock ? 1 : kF16SoftmaxBlock / cols;
  auto body = [&](int64_t b, int64_t e) {
    const int64_t cap = (e - b < per ? e - b : per) * cols;  // elements of one block
    std::unique_ptr<float[]> buf(new float[2 * cap]);      // uninitialised
    float* in = buf.get();
    float* res = in + cap;
    for (int64_t r = b; r < e; r += per) {
      const int64_t k = (e - r < per ? e - r : per) * cols;
      c.widen(x + r * cols, in, k);
      run_softmax(op == kSoftmax ? kSoftmaxToF16 : op, kF32,
                  reinterpret_cast<const char*>(in), nullptr,
                  reinterpret_cast<char*>(res), k / cols, cols, 1);
      c.narrow(res, out + r * cols, k);
    }
  };
  // rows split across threads (each row whole on one thread); cost as the float32 softmax
  const int64_t n = rows * cols;
  if (!softmax_parallel(n) || rows == 1) {
    body(0, rows);
    return;
  }
  auto rows_body = [&](int64_t b, int64_t e) { body(b, e); };
  const uint32_t key = split_key(kFamilyF16, 48 + op, 0);
  const SplitDecision d = decide_split(key, n, 4);
  run_timed(key, n, d, [&] { parallel_for(rows, d.threads, rows_body); });
}

void run_f16_reduce_slices(int op, const uint16_t* x, int nd, const int64_t* shape,
                           const bool* reduced, uint16_t* out) {
  int64_t slice = 1, out_slice = 1;
  for (int d = 1; d < nd; ++d) {
    slice *= shape[d];
    if (!reduced[d]) out_slice *= shape[d];
  }
  const int64_t n0 = shape[0];
  if (n0 == 0 || slice == 0) return;
  const Converters& c = converters();
  const int64_t per = slice >= kF16ReduceBlock ? 1 : kF16ReduceBlock / slice;
  auto body = [&](int64_t b, int64_t e) {
    const int64_t cap = e - b < per ? e - b : per;  // slices in one block
    std::unique_ptr<float[]> buf(new float[cap * (slice + out_slice)]);
    float* in = buf.get();
    float* res = in + cap * slice;
    int64_t bshape[kMaxDims], bstrides[kMaxDims];
    int64_t stride = sizeof(float);
    for (int d = nd - 1; d >= 0; --d) {
      bshape[d] = shape[d];
      bstrides[d] = stride;
      stride *= shape[d];
    }
    for (int64_t r = b; r < e; r += per) {
      const int64_t k = e - r < per ? e - r : per;
      bshape[0] = k;
      c.widen(x + r * slice, in, k * slice);
      ReducePlan p;
      reduce_plan(&p, op, kF32, reinterpret_cast<const char*>(in), nd, bshape, bstrides,
                  reduced, reinterpret_cast<char*>(res));
      run_reduce(p);
      c.narrow(res, out + r * out_slice, k * out_slice);
    }
  };
  // as the float32 reduce (reduce_plan.cc): a second thread from 8x the threshold
  const int64_t n = n0 * slice;
  if (!will_parallelize(n, 1) || n < 8 * parallel_threshold() || n0 == 1) {
    body(0, n0);
    return;
  }
  auto slices_body = [&](int64_t b, int64_t e) { body(b, e); };
  const uint32_t key = split_key(kFamilyF16, 56 + op, 0);
  const SplitDecision d = decide_split(key, n, 1);
  run_timed(key, n, d, [&] { parallel_for(n0, d.threads, slices_body); });
}

}  // namespace mindlite
