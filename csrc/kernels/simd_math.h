// Branch-free vector math on GCC vector extensions, for float32 and float64 lanes.
//
// NOTE: included by isa_*.cc INSIDE an ISA namespace, after `#pragma GCC target(...)` and with
// ML_VBYTES (vector width in bytes) defined, so every ISA gets its own copy; it must not
// include any header. ML_NATIVE_VBYTES, where the includer defines it, says the target holds
// such vectors in one register: 64 under AVX-512, 32 under AVX2 (GCC's pragma does not define
// __AVX512F__ and the like in C++). Functions are written once for both precisions through VT<V> traits:
//   vexp   Cody-Waite reduction x = n ln2 + r, Taylor polynomial of exp(r) on |r| <= ln2/2,
//          2^n applied in two halves so subnormal results round once; NaN/inf exact.
//   vexp_normal  vexp on [-86, 0] (results normal: 2^n in one multiply), same bits.
//   vexp_low  exp of x <= 0 for float16 results: 6 terms, one 2^n multiply, no clamp above.
//   vexp_tab  float32 exp on [-86, 0] from a table of 2^(j/N) and a cubic (Sigmoid's).
//   vlog   x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(f/(2+f)) series (f = m-1);
//          subnormal inputs pre-scaled; x<0 -> NaN, 0 -> -inf, inf -> inf.
//   vtanh  -m/(m+2), m = expm1(-2|x|) from the same reduction (no cancellation near 0).
//   vround half-to-even by adding/subtracting 2^mant; vfloor/vceil from it; zero keeps x's sign.
// Errors are within about 2 ulp of the exact result (tests check rtol 1e-6 / 1e-12).
#ifndef ML_VBYTES
#error "define ML_VBYTES before including simd_math.h"
#endif

#define ML_AI inline __attribute__((always_inline))

typedef float vf32 __attribute__((vector_size(ML_VBYTES)));
typedef int32_t vi32 __attribute__((vector_size(ML_VBYTES)));
typedef uint32_t vu32 __attribute__((vector_size(ML_VBYTES)));
typedef double vf64 __attribute__((vector_size(ML_VBYTES)));
typedef int64_t vi64 __attribute__((vector_size(ML_VBYTES)));
typedef uint64_t vu64 __attribute__((vector_size(ML_VBYTES)));
typedef float vf32h __attribute__((vector_size(ML_VBYTES / 2)));  // as many lanes as vf64

template <class V> struct VT;

template <> struct VT<vf32> {
  typedef float T;
  typedef vi32 I;
  typedef int32_t IS;
  typedef vu32 U;
  static constexpr int kLanes = ML_VBYTES / 4;
  static constexpr int kMant = 23;
  static constexpr int32_t kBias = 127, kExpMask = 0xff;
  static constexpr T kMagic = 12582912.0f;        // 1.5 * 2^23: adding it rounds to integer
  static constexpr T kTwoMant = 8388608.0f;       // 2^23: |x| >= this is already integral
  static constexpr T kExpHi = 88.8f, kExpLo = -104.0f;
  static constexpr T kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  static constexpr T kMinNormal = 1.17549435e-38f, kDenormScale = 33554432.0f;  // 2^25
  static constexpr int kDenormExp = 25;
  static constexpr int32_t kScaleOff = 256;  // > -min exponent: keeps n + off positive
  static constexpr T kTanhLo = -20.0f;
  static constexpr int kExpTerms = 8, kLogTerms = 5;
};

template <> struct VT<vf64> {
  typedef double T;
  typedef vi64 I;
  typedef int64_t IS;
  typedef vu64 U;
  static constexpr int kLanes = ML_VBYTES / 8;
  static constexpr int kMant = 52;
  static constexpr int64_t kBias = 1023, kExpMask = 0x7ff;
  static constexpr T kMagic = 6755399441055744.0;  // 1.5 * 2^52
  static constexpr T kTwoMant = 4503599627370496.0;
  static constexpr T kExpHi = 709.8, kExpLo = -746.0;
  static constexpr T kLn2Hi = 6.93145751953125e-1, kLn2Lo = 1.42860682030941723212e-6;
  static constexpr T kMinNormal = 2.2250738585072014e-308, kDenormScale = 18014398509481984.0;
  static constexpr int kDenormExp = 54;
  static constexpr int64_t kScaleOff = 2048;
  static constexpr T kTanhLo = -50.0;
  static constexpr int kExpTerms = 14, kLogTerms = 12;
};

template <class V>
static inline __attribute__((always_inline)) V splat(typename VT<V>::T c) {
  V v;
  for (int i = 0; i < VT<V>::kLanes; ++i) v[i] = c;
  return v;
}

template <class V>
static inline __attribute__((always_inline)) typename VT<V>::I sign_bits() {
  return (typename VT<V>::I)splat<V>(typename VT<V>::T(-0.0));
}

template <class V> static inline __attribute__((always_inline)) V vabs(V x) {
  return (V)((typename VT<V>::I)x & ~sign_bits<V>());
}

// |x| with the sign of s (s's sign bit only).
template <class V> static inline __attribute__((always_inline)) V vcopysign(V x, V s) {
  typedef typename VT<V>::I I;
  return (V)(((I)x & ~sign_bits<V>()) | ((I)s & sign_bits<V>()));
}

template <class V> static inline __attribute__((always_inline)) V vround(V x) {
  typedef VT<V> K;
  V ax = vabs(x);
  V r = (ax + K::kTwoMant) - K::kTwoMant;  // NOTE: rounds half to even in the default mode
  return ax < K::kTwoMant ? vcopysign(r, x) : x;
}

// A zero result of floor/ceil takes x's sign, as numpy's (ceil(-0.5) == -0.0).
template <class V> static inline __attribute__((always_inline)) V vfloor(V x) {
  V r = vround(x);
  r = r > x ? r - 1 : r;
  return r == 0 ? vcopysign(r, x) : r;
}

template <class V> static inline __attribute__((always_inline)) V vceil(V x) {
  V r = vround(x);
  r = r < x ? r + 1 : r;
  return r == 0 ? vcopysign(r, x) : r;
}

// Taylor coefficients 1/k! of exp, k < VT<V>::kExpTerms (constant-folded).
template <class V, int kTerms = VT<V>::kExpTerms> static ML_AI V exp_poly(V r, int first) {
  typedef typename VT<V>::T T;
  T ce[kTerms];
  T f = 1;
  for (int k = 0; k < kTerms; ++k) {
    f *= k > 0 ? T(k) : T(1);
    ce[k] = 1 / f;
  }
  V p = splat<V>(ce[kTerms - 1]);
  for (int k = kTerms - 2; k >= first; --k) p = p * r + ce[k];
  return p;
}

template <class V> static ML_AI typename VT<V>::I isplat(int64_t c) {
  typename VT<V>::I v = {};
  return v + static_cast<typename VT<V>::IS>(c);
}

template <class V, int kTerms = VT<V>::kExpTerms>
static inline __attribute__((always_inline)) V vexp(V x) {
  typedef VT<V> K;
  typedef typename K::T T;
  typedef typename K::I I;
  typedef typename K::U U;
  V xc = x > K::kExpHi ? splat<V>(K::kExpHi) : x;
  xc = xc < K::kExpLo ? splat<V>(K::kExpLo) : xc;
  V t = xc * T(1.4426950408889634) + K::kMagic;
  V n = t - K::kMagic;
  V r = (xc - n * K::kLn2Hi) - n * K::kLn2Lo;
  V p = exp_poly<V, kTerms>(r, 0);
  // 2^n = 2^n1 * 2^n2 with n1 = floor(n/2): both halves normal, a subnormal result rounds once.
  I ni = (I)t - (I)splat<V>(K::kMagic);
  I n1 = (I)((U)(ni + isplat<V>(K::kScaleOff)) >> 1) - isplat<V>(K::kScaleOff / 2);
  I n2 = ni - n1;
  V y = p * (V)((n1 + isplat<V>(K::kBias)) << K::kMant) *
        (V)((n2 + isplat<V>(K::kBias)) << K::kMant);
  return x != x ? x : y;
}

// vexp's reduction and kTerms-term polynomial with 2^n applied as one multiply: exact (so
// vexp's bits) where n >= -125, i.e. x >= -86; no clamps, NaN propagates.
template <class V, int kTerms = VT<V>::kExpTerms> static ML_AI V vexp_one_scale(V x) {
  typedef VT<V> K;
  typedef typename K::T T;
  typedef typename K::I I;
  const V t = x * T(1.4426950408889634) + K::kMagic;
  const V n = t - K::kMagic;
  const V r = (x - n * K::kLn2Hi) - n * K::kLn2Lo;
  const I ni = (I)t - (I)splat<V>(K::kMagic);
  return exp_poly<V, kTerms>(r, 0) * (V)((ni + isplat<V>(K::kBias)) << K::kMant);
}

// vexp(x) for x in [-86, 0] (or NaN), bit for bit (n >= -125 there, so p 2^n is normal and
// one multiply is as exact as vexp's two). Callers check the range themselves (Softmax's
// x - max: a row with a lane below takes vexp).
template <class V> static ML_AI V vexp_normal(V x) { return vexp_one_scale<V>(x); }

// exp(x) for x <= 0 (or NaN) whose result is rounded to float16 afterwards (Softmax's
// float16 rows): inputs below -87 are raised to it (exp < 2^-125: zero in any float16
// result, and 2^n stays normal), a 6-term Taylor polynomial (relative error < 3e-6 on
// |r| <= ln2/2, float16's spacing is 2^-10).
template <class V> static ML_AI V vexp_low(V x) {
  typedef typename VT<V>::T T;
  return vexp_one_scale<V, 6>(x < T(-87) ? splat<V>(T(-87)) : x);
}

// 2^(j/32), j = 0..31, rounded to float32: vexp_tab's table.
static constexpr float kExp2Frac32[32] = {
    1.0f,        1.0218972f,  1.04427373f, 1.06714046f, 1.09050775f, 1.1143868f,  1.13878858f,
    1.1637249f,  1.18920708f, 1.21524739f, 1.24185777f, 1.26905096f, 1.29683959f, 1.32523668f,
    1.35425556f, 1.38390994f, 1.41421354f, 1.44518077f, 1.47682619f, 1.50916445f, 1.54221082f,
    1.5759809f,  1.61049032f, 1.64575553f, 1.68179286f, 1.71861935f, 1.75625217f, 1.79470909f,
    1.8340081f,  1.87416768f, 1.91520655f, 1.95714414f};

// exp(x) of float32 lanes x in [-86, 0] (kSub: [-104, 0]), where a variable two-vector shuffle
// is one or two instructions (AVX-512: vpermi2ps, 32 entries; AVX2: 16). With N = 2 * lanes
// table entries: n = round(x N / ln2), exp(x) = 2^k 2^((n mod N) / N) e^r with k = n div N and
// |r| <= ln2 / 2N. The middle factor s comes from the table, e^r - 1 = q from a cubic Taylor
// polynomial (error < 1e-8), s + s q by one FMA, and 2^k is added to its exponent bits where
// k >= -125 (all of [-86, 0]: the result is normal); kSub adds -125 there and multiplies by the
// rest of 2^k, so a subnormal result rounds once. About half of vexp's operations. Error: the
// table's rounding plus the FMA's, within 1 ulp. Other inputs (NaN, out of range) give
// meaningless lanes: callers clamp or select. SSE2 has no variable shuffle: Sigmoid keeps vexp.
#if defined(ML_NATIVE_VBYTES) && ML_NATIVE_VBYTES == ML_VBYTES
static constexpr bool kTabExp = true;
#else
static constexpr bool kTabExp = false;
#endif
template <class V, bool kSub = false> static ML_AI V vexp_tab(V x) {
  typedef VT<V> K;
  typedef typename K::I I;
  static_assert(sizeof(typename K::T) == 4, "vexp_tab is float32");
  constexpr int L = K::kLanes, N = 2 * L, kBits = N == 32 ? 5 : 4;
  static_assert(N == 1 << kBits, "8 or 16 float32 lanes");
  V lo, hi;
  for (int i = 0; i < L; ++i) {
    lo[i] = kExp2Frac32[i * (32 / N)];
    hi[i] = kExp2Frac32[(i + L) * (32 / N)];
  }
  const V t = x * float(N * 1.4426950408889634) + K::kMagic;
  const V n = t - K::kMagic;
  const V r = (x - n * (K::kLn2Hi / N)) - n * (K::kLn2Lo / N);
  const V q = ((r * (1.0f / 6) + 0.5f) * r + 1) * r;
  const I ti = (I)t;
  const V s = __builtin_shuffle(lo, hi, ti & (N - 1));
  const V e = s * q + s;
  const I k = (ti << (23 - kBits)) & isplat<V>(int32_t(0xFF800000u));  // k << 23
  if constexpr (!kSub) {
    return (V)((I)e + k);
  } else {
    const I k1 = k > isplat<V>(-125 << 23) ? k : isplat<V>(-125 << 23);
    return (V)((I)e + k1) * (V)(k - k1 + isplat<V>(127 << 23));
  }
}

// exp(x) for x <= 0, -inf or NaN (Softmax's x - max): float32 where kTabExp, vexp_tab with
// subnormal results (below -104: 0) and a NaN returned as it is; else vexp.
template <class V> static ML_AI V vexp_neg(V x) {
  typedef typename VT<V>::T T;
  if constexpr (sizeof(T) == 4 && kTabExp) {
    const V e = vexp_tab<V, true>(x < T(-104) ? splat<V>(T(-104)) : x);
    return x != x ? x : e;
  } else {
    return vexp(x);
  }
}

// vexp_neg(x) for x in [-86, 0] bit for bit, without its clamp and NaN select (vexp_tab or
// vexp_normal).
template <class V> static ML_AI V vexp_neg_normal(V x) {
  if constexpr (sizeof(typename VT<V>::T) == 4 && kTabExp) {
    return vexp_tab(x);
  } else {
    return vexp_normal(x);
  }
}

// expm1(a) for a in [kTanhLo, 0]: 2^n (e^r - 1) + (2^n - 1), no cancellation at n == 0.
template <class V> static inline __attribute__((always_inline)) V vexpm1_neg(V a) {
  typedef VT<V> K;
  typedef typename K::T T;
  typedef typename K::I I;
  V t = a * T(1.4426950408889634) + K::kMagic;
  V n = t - K::kMagic;
  V r = (a - n * K::kLn2Hi) - n * K::kLn2Lo;
  V em1 = r + r * r * exp_poly(r, 2);
  I ni = (I)t - (I)splat<V>(K::kMagic);
  V s = (V)((ni + isplat<V>(K::kBias)) << K::kMant);
  return s * em1 + (s - 1);
}

template <class V, int kTerms = VT<V>::kLogTerms>
static inline __attribute__((always_inline)) V vlog(V x) {
  typedef VT<V> K;
  typedef typename K::T T;
  typedef typename K::I I;
  typedef typename K::U U;
  auto den = x < K::kMinNormal;
  V xs = den ? x * K::kDenormScale : x;
  I bits = (I)xs;
  I ebits = (I)(((U)bits >> K::kMant) & K::kExpMask);
  V e = (V)(ebits | (I)splat<V>(K::kTwoMant)) - K::kTwoMant;  // exponent field as V
  e = e - T(K::kBias) - (den ? splat<V>(T(K::kDenormExp)) : splat<V>(0));
  I one = (I)splat<V>(1);
  I zero = one - one;
  V m = (V)((bits & (((zero + 1) << K::kMant) - 1)) | one);  // mantissa in [1, 2)
  auto big = m > T(1.4142135623730951);
  m = big ? m * T(0.5) : m;
  e = big ? e + 1 : e;
  // fdlibm's arrangement: log(1+f) = f - (hfsq - s (hfsq + R)), s = f/(2+f), R = 2s atanh(s)/s
  // - 2 - ... expanded as z (2/3 + 2z/5 + ...): f exact, the corrections small.
  V f = m - 1;
  V hfsq = T(0.5) * f * f;
  V s = f / (f + 2);
  V z = s * s;
  V p = splat<V>(T(2) / T(2 * kTerms - 1));
  for (int k = kTerms - 2; k >= 1; --k) p = p * z + T(2) / T(2 * k + 1);
  V R = z * p;
  V y = e * K::kLn2Hi - ((hfsq - (s * (hfsq + R) + e * K::kLn2Lo)) - f);
  y = x == 0 ? splat<V>(-__builtin_inf()) : y;
  y = x == __builtin_inf() ? x : y;
  return (x < 0) | (x != x) ? splat<V>(__builtin_nan("")) : y;
}

// NOTE: functions that combine two NaN intermediates (e * r, x * sigmoid, ...) return x itself
// for a NaN x: which operand's NaN a product keeps depends on the operand order the compiler
// picks, which can differ between the main loop and the tail, so a split could flip NaN signs.
// Whether any lane of a compare result (lanes all ones or zero) is set: one vector test.
template <class V> static ML_AI bool any_lane(typename VT<V>::I m) {
#if defined(ML_NATIVE_VBYTES) && ML_NATIVE_VBYTES == 64 && ML_VBYTES == 64
  return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;
#elif defined(ML_NATIVE_VBYTES) && ML_NATIVE_VBYTES == 32 && ML_VBYTES == 32
  return !_mm256_testz_si256((__m256i)m, (__m256i)m);
#elif ML_VBYTES == 16 && defined(__SSE2__)
  return _mm_movemask_epi8((__m128i)m) != 0;
#else
  bool any = false;
  for (int l = 0; l < VT<V>::kLanes; ++l) any |= m[l] != 0;
  return any;
#endif
}

// sigmoid of lanes >= -86 (no NaN), from e = e^-|x| with |x| past 86 taken as 86 (1 / (1 + e)
// rounds to 1 there). float32: x >= 0 ? 1 / (1 + e) : e / (1 + e), one division, e by
// vexp_tab; float64: 1 / (1 + e) and e times it, e by vexp_normal.
template <class V> static ML_AI V vsigmoid_normal(V x) {
  typedef typename VT<V>::T T;
  const V a = vabs(x);
  const V m = a > T(86) ? splat<V>(T(-86)) : -a;
  if constexpr (sizeof(T) == 4 && kTabExp) {
    const V e = vexp_tab(m);
    return (x >= 0 ? splat<V>(T(1)) : e) / (1 + e);
  } else {
    const V e = vexp_normal(m), r = 1 / (1 + e);
    return x >= 0 ? r : e * r;
  }
}

// vsigmoid_normal's bits where x >= -86 (float32: e^-|x| with subnormal results, e^-104 past
// 104, which differs from vsigmoid_normal's only where 1 / (1 + e) rounds to 1 either way);
// a NaN x is returned as it is.
template <class V> static inline __attribute__((always_inline)) V vsigmoid(V x) {
  typedef typename VT<V>::T T;
  if constexpr (sizeof(T) == 4 && kTabExp) {
    const V a = vabs(x);
    const V e = vexp_tab<V, true>(a > T(104) ? splat<V>(T(-104)) : -a);
    const V r = (x >= 0 ? splat<V>(T(1)) : e) / (1 + e);
    return x != x ? x : r;
  } else {
    V e = vexp(-vabs(x));
    V r = 1 / (1 + e);
    r = x >= 0 ? r : e * r;
    return x != x ? x : r;
  }
}

// tanh|x| = -m / (m + 2) with m = expm1(-2|x|); beyond kTanhLo the result rounds to 1.
template <class V> static inline __attribute__((always_inline)) V vtanh(V x) {
  typedef VT<V> K;
  V a = -2 * vabs(x);
  a = a < K::kTanhLo ? splat<V>(K::kTanhLo) : a;
  V m = vexpm1_neg(a);
  V t = -m / (m + 2);
  return x != x ? x : vcopysign(t, x);
}

// log(1 + e^x) = max(x, 0) + log1p(e^-|x|), log1p(t) = log(u) * t / (u - 1) with u = 1 + t.
template <class V> static inline __attribute__((always_inline)) V vsoftplus(V x) {
  V t = vexp(-vabs(x));
  V u = 1 + t;
  V l = vlog(u) * t / (u - 1);
  l = u == 1 ? t : l;
  V y = (x > 0 ? x : splat<V>(0)) + l;
  return x != x ? x : y;
}

// MindSpore's tanh GeLU, 0.5 x (1 + tanh(k (x + 0.044715 x^3))) == x * sigmoid(2k (...)).
template <class V> static inline __attribute__((always_inline)) V vgelu(V x) {
  typedef typename VT<V>::T T;
  V inner = x + T(0.044715) * x * x * x;
  V y = x * vsigmoid(T(2 * 0.7978845608028654) * inner);
  return x != x ? x : y;
}

// sin or cos of float32 lanes evaluated in float64: x = j pi/2 + r with a 33+53-bit pi/2
// (exact for |x| < 2^20), Taylor polynomials on |r| <= pi/4, quadrant from j.
template <bool kCos> static inline __attribute__((always_inline)) vf64 vsincos_f32(vf64 x) {
  vf64 j = (x * 0.63661977236758134 + VT<vf64>::kMagic) - VT<vf64>::kMagic;
  vf64 r = (x - j * 1.57079632673412561417e+00) - j * 6.07710050650619224932e-11;
  vf64 z = r * r;
  vf64 s = (((((z * (-1.0 / 39916800) + 1.0 / 362880) * z - 1.0 / 5040) * z + 1.0 / 120) * z
             - 1.0 / 6) * z + 1) * r;  // r * (...) keeps sin(-0) == -0
  vf64 c = ((((z * (1.0 / 3628800) - 1.0 / 40320) * z + 1.0 / 720) * z - 1.0 / 24) * z
            + 0.5) * -z + 1;
  vi64 q = (vi64)(j + VT<vf64>::kMagic) + (kCos ? 1 : 0);
  vf64 y = (q & 1) != 0 ? c : s;
  return (q & 2) != 0 ? -y : y;
}
