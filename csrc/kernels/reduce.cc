// Reductions: Sum / Mean / Max / Min / Prod over any axes of any layout (see reduce.h).
//
// The loops (second half of this file) are compiled once per instruction set: this file
// includes itself three times with ML_REDUCE_LOOPS defined, inside namespaces reduce_avx512,
// reduce_avx2 and reduce_base under the matching `#pragma GCC target`; kernel_isa() (the
// elementwise choice, MINDLITE_ISA honoured) picks the table. The vectors are 4 lanes wide
// for every ISA, so results do not depend on the ISA either.
//
// Accumulators: float32 and float64 sums / means in float64 lanes (8 x 4 lanes per run of up
// to kReduceBlock elements, blocks folded pairwise; float64 inputs pairwise from 1024-element
// leaves, numpy's accuracy); integer sums in uint64 (wrapping, stored modulo the dtype like
// numpy's); integer means in float64, truncated toward zero; max / min in the input dtype
// with NaN sticking (np.max); products in the input dtype (integers wrap).
#ifndef ML_REDUCE_LOOPS
#include "kernels/reduce.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/thread_pool.h"

namespace mindlite {
namespace {
using ReduceExec = void (*)(const ReducePlan&);
}  // namespace
}  // namespace mindlite

#define ML_REDUCE_LOOPS
// 64-byte vectors in the AVX2 / base passes: ABI notes only (no such value crosses a TU)
#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace reduce_avx512 {
#include "kernels/reduce.cc"  // NOLINT(build/include): the loops below, for this ISA
}  // namespace reduce_avx512
}  // namespace mindlite
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace reduce_avx2 {
#include "kernels/reduce.cc"  // NOLINT(build/include)
}  // namespace reduce_avx2
}  // namespace mindlite
#pragma GCC pop_options
#endif
namespace mindlite {
namespace reduce_base {
#include "kernels/reduce.cc"  // NOLINT(build/include)
}  // namespace reduce_base
}  // namespace mindlite
#undef ML_REDUCE_LOOPS

namespace mindlite {

const char* const kReduceNames[kNumReduce] = {"ReduceSum", "ReduceMean", "ReduceMax",
                                              "ReduceMin", "ReduceProd"};

namespace {

struct ReduceTable {
  ReduceExec f[kNumReduce][kNumDTypes];
};

const ReduceTable& reduce_table() {
  static const ReduceTable* t = [] {
    ReduceTable* r = new ReduceTable();  // value-initialised: unsupported entries are null
    const char* isa = kernel_isa();
#if defined(__x86_64__) && defined(__GNUC__)
    if (!std::strcmp(isa, "avx512")) {
      reduce_avx512::fill(r->f);
      return r;
    }
    if (!std::strcmp(isa, "avx2")) {
      reduce_avx2::fill(r->f);
      return r;
    }
#endif
    (void)isa;
    reduce_base::fill(r->f);
    return r;
  }();
  return *t;
}

}  // namespace

bool reduce_supported(int op, int dt) {
  return op >= 0 && op < kNumReduce && dt >= 0 && dt < kNumDTypes &&
         reduce_table().f[op][dt] != nullptr;
}

bool reduce_parallel(const ReducePlan& p) { return p.threads > 1; }

void run_reduce(ReducePlan& p) {
  if (!p.searching) {
    reduce_table().f[p.op][p.dt](p);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  reduce_table().f[p.op][p.dt](p);
  const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
  split_record(split_key(kFamilyReduce, p.op, p.dt), p.total, p.threads, dt.count());
}

}  // namespace mindlite

#else  // ML_REDUCE_LOOPS ---------------------------------------------------------------------
// The loops, inside namespace mindlite::reduce_<isa>: no #include below this line.
// NOTE: the per-vector helpers are always_inline: out of line, each 8-lane step becomes a
// call passing 64-byte vectors through memory (measured 5x slower sums).
#ifndef ML_RAI
#define ML_RAI inline __attribute__((always_inline))
#endif

// 4-lane vectors (16 / 32 bytes): 8 of them accumulate 32 elements per step.
template <class T> struct V8;
template <> struct V8<float> { typedef float t __attribute__((vector_size(16))); };
template <> struct V8<double> { typedef double t __attribute__((vector_size(32))); };
template <> struct V8<int32_t> { typedef int32_t t __attribute__((vector_size(16))); };
template <> struct V8<int64_t> { typedef int64_t t __attribute__((vector_size(32))); };
template <> struct V8<uint32_t> { typedef uint32_t t __attribute__((vector_size(16))); };
template <> struct V8<uint64_t> { typedef uint64_t t __attribute__((vector_size(32))); };
constexpr int kLanes = 4;

template <class In, class Acc>
struct OpBase {
  typedef In T;
  typedef Acc A;
  typedef typename V8<Acc>::t VA;
  static constexpr bool kPairwise = false;
  // NOTE: lane by lane, not __builtin_convertvector: GCC 12 lowers that float -> float64
  // conversion 2 lanes at a time (2x slower sums); this form becomes one vcvtps2pd.
  static ML_RAI VA load(const In* p) {  // kLanes elements converted to the accumulator type
    VA v;
    for (int l = 0; l < kLanes; ++l) v[l] = static_cast<Acc>(p[l]);
    return v;
  }
  static ML_RAI A fin(A a, int64_t) { return a; }
};

template <class In, class Acc>
struct Sum : OpBase<In, Acc> {
  // NOTE: pairwise leaves only for float64 inputs: a float32 (or integer) input summed in
  // float64 lanes is already far below numpy's float32 error, and the pairwise recursion
  // made 2048^2 float32 sums 5.7x slower (1871 vs 326 us, one thread).
  static constexpr bool kPairwise = std::is_same<In, double>::value;
  static ML_RAI Acc ident() { return Acc(0); }
  template <class V> static ML_RAI V comb(V a, V b) { return a + b; }
};

template <class In>
struct Mean : Sum<In, double> {
  static ML_RAI double fin(double a, int64_t n) { return a / static_cast<double>(n); }
};

template <class In, bool kMax>
struct Extreme : OpBase<In, In> {
  static ML_RAI In ident() {
    return std::numeric_limits<In>::has_infinity
               ? (kMax ? -std::numeric_limits<In>::infinity()
                       : std::numeric_limits<In>::infinity())
               : (kMax ? std::numeric_limits<In>::lowest() : std::numeric_limits<In>::max());
  }
  // b replaces a when beyond it or NaN; a NaN a sticks.
  template <class V> static ML_RAI V comb(V a, V b) {
    return kMax ? ((b > a) | (b != b) ? b : a) : ((b < a) | (b != b) ? b : a);
  }
};

template <class In, class Acc>
struct Prod : OpBase<In, Acc> {
  static ML_RAI Acc ident() { return Acc(1); }
  template <class V> static ML_RAI V comb(V a, V b) { return a * b; }
};

// One run of n contiguous elements: 8 x 4 lane accumulators, folded in a fixed tree.
template <class Op>
static ML_RAI typename Op::A leaf(const typename Op::T* p, int64_t n) {
  typedef typename Op::A A;
  typedef typename Op::VA VA;
  VA a[8];
  for (int l = 0; l < kLanes; ++l) a[0][l] = Op::ident();
  for (int j = 1; j < 8; ++j) a[j] = a[0];
  int64_t i = 0;
  for (; i + 8 * kLanes <= n; i += 8 * kLanes) {
    for (int j = 0; j < 8; ++j) a[j] = Op::comb(a[j], Op::load(p + i + j * kLanes));
  }
  for (; i + kLanes <= n; i += kLanes) a[0] = Op::comb(a[0], Op::load(p + i));
  for (int j = 0; j < 4; ++j) a[j] = Op::comb(a[j], a[j + 4]);
  a[0] = Op::comb(Op::comb(a[0], a[1]), Op::comb(a[2], a[3]));
  A r = Op::comb(Op::comb(a[0][0], a[0][1]), Op::comb(a[0][2], a[0][3]));
  for (; i < n; ++i) r = Op::comb(r, static_cast<A>(p[i]));
  return r;
}

template <class Op>
static typename Op::A pairwise(const typename Op::T* p, int64_t n) {
  // NOTE: 1024-element leaves (32 lanes of 32 sequential adds each, in float64): error within
  // about (32 + log2(n / 1024)) ulp of sum |x|, numpy's pairwise float64 sum is about
  // (16 + log2(n / 128)); 256-element leaves cost 3x more in lane folds at 2048^2.
  if (!Op::kPairwise || n <= 1024) return leaf<Op>(p, n);
  int64_t h = n / 2;
  h -= h % 32;
  return Op::comb(pairwise<Op>(p, h), pairwise<Op>(p + h, n - h));
}

template <class Op>
static typename Op::A tree(const typename Op::A* v, int64_t n) {
  if (n == 1) return v[0];
  const int64_t h = n / 2;
  return Op::comb(tree<Op>(v, h), tree<Op>(v + h, n - h));
}

// f(begin, end) over [0, n) split into nt contiguous ranges (the split never changes results).
template <class F>
static void split_tasks(int64_t n, int nt, F& f) {
  if (nt <= 1 || n <= 1) {
    if (n > 0) f(int64_t(0), n);
    return;
  }
  if (nt > n) nt = static_cast<int>(n);
  struct Ctx {
    F* f;
    int64_t n;
  } ctx{&f, n};
  pool_run(nt, nt, [](void* c, int t, int k) {
    Ctx* x = static_cast<Ctx*>(c);
    const int64_t b = x->n * t / k, e = x->n * (t + 1) / k;
    if (b < e) (*x->f)(b, e);
  }, &ctx);
}

// A run of n elements: fixed kReduceBlock blocks (in parallel when nt > 1), partials folded
// pairwise; the same value whoever computes the blocks.
template <class Op>
static typename Op::A run(const typename Op::T* p, int64_t n, int nt) {
  typedef typename Op::A A;
  if (n <= kReduceBlock) return pairwise<Op>(p, n);
  const int64_t nb = (n + kReduceBlock - 1) / kReduceBlock;
  A* part = new A[nb];
  auto blocks = [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t lo = k * kReduceBlock, len = n - lo < kReduceBlock ? n - lo : kReduceBlock;
      part[k] = pairwise<Op>(p + lo, len);
    }
  };
  split_tasks(nb, nt, blocks);
  A r = tree<Op>(part, nb);
  delete[] part;
  return r;
}

// Byte offsets in x and out of outer output `o` (kept dims, outer to inner).
static inline void kept_offsets(const ReducePlan& p, int64_t o, int64_t* xo, int64_t* oo) {
  int64_t a = 0, b = 0;
  for (int d = p.nk - 1; d >= 0; --d) {
    const int64_t i = o % p.kn[d];
    o /= p.kn[d];
    a += i * p.ksx[d];
    b += i * p.kso[d];
  }
  *xo = a;
  *oo = b;
}

// Byte offsets of the outer reduced positions, in C order of those dims.
struct Odometer {
  const ReducePlan& p;
  int64_t idx[kMaxDims];
  int64_t off = 0;
  explicit Odometer(const ReducePlan& plan) : p(plan) {
    for (int d = 0; d < p.nr; ++d) idx[d] = 0;
  }
  void next() {
    for (int d = p.nr - 1; d >= 0; --d) {
      off += p.rsx[d];
      if (++idx[d] < p.rn[d]) return;
      off -= p.rsx[d] * p.rn[d];
      idx[d] = 0;
    }
  }
};

template <class Op>
static void exec_row(const ReducePlan& p) {
  typedef typename Op::T T;
  typedef typename Op::A A;
  const int nt = p.threads;
  const bool split_runs = nt > 1 && p.n_out < 2 * nt;  // few outputs: split their runs
  auto outputs = [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      int64_t xo, oo;
      kept_offsets(p, o, &xo, &oo);
      Odometer r(p);
      A acc = Op::ident();
      for (int64_t k = 0; k < p.n_red; ++k, r.next()) {
        const T* src = reinterpret_cast<const T*>(p.x + xo + r.off);
        acc = Op::comb(acc, run<Op>(src, p.inner, split_runs ? nt : 1));
      }
      *reinterpret_cast<T*>(p.out + oo) = static_cast<T>(Op::fin(acc, p.count));
    }
  };
  if (split_runs) {
    outputs(0, p.n_out);
  } else {
    split_tasks(p.n_out, nt, outputs);
  }
}

template <class Op>
static void exec_col(const ReducePlan& p) {
  typedef typename Op::T T;
  typedef typename Op::A A;
  typedef typename Op::VA VA;
  // NOTE: wide column blocks (16 KB of float64 accumulators): each reduced row is then read
  // as one long run; 512-column blocks re-walked the rows 4x and ran 2-3x slower at 2048^2.
  constexpr int64_t kCols = 2048;
  const int64_t ncb = (p.inner + kCols - 1) / kCols;
  auto tasks = [&](int64_t b, int64_t e) {
    alignas(64) A acc[kCols];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / ncb, c0 = (t % ncb) * kCols;
      const int64_t w = p.inner - c0 < kCols ? p.inner - c0 : kCols;
      int64_t xo, oo;
      kept_offsets(p, o, &xo, &oo);
      for (int64_t i = 0; i < w; ++i) acc[i] = Op::ident();
      // Rows four at a time: acc = acc + ((r0 + r1) + (r2 + r3)), then one at a time.
      Odometer r(p);
      int64_t k = 0;
      for (; k + 4 <= p.n_red; k += 4) {
        const T* s[4];
        for (int j = 0; j < 4; ++j, r.next()) {
          s[j] = reinterpret_cast<const T*>(p.x + xo + r.off) + c0;
        }
        int64_t i = 0;
        for (; i + kLanes <= w; i += kLanes) {
          VA a;
          __builtin_memcpy(&a, acc + i, sizeof a);
          a = Op::comb(a, Op::comb(Op::comb(Op::load(s[0] + i), Op::load(s[1] + i)),
                                   Op::comb(Op::load(s[2] + i), Op::load(s[3] + i))));
          __builtin_memcpy(acc + i, &a, sizeof a);
        }
        for (; i < w; ++i) {
          acc[i] = Op::comb(acc[i], Op::comb(Op::comb(static_cast<A>(s[0][i]),
                                                      static_cast<A>(s[1][i])),
                                             Op::comb(static_cast<A>(s[2][i]),
                                                      static_cast<A>(s[3][i]))));
        }
      }
      for (; k < p.n_red; ++k, r.next()) {
        const T* src = reinterpret_cast<const T*>(p.x + xo + r.off) + c0;
        int64_t i = 0;
        for (; i + kLanes <= w; i += kLanes) {
          VA a;
          __builtin_memcpy(&a, acc + i, sizeof a);
          a = Op::comb(a, Op::load(src + i));
          __builtin_memcpy(acc + i, &a, sizeof a);
        }
        for (; i < w; ++i) acc[i] = Op::comb(acc[i], static_cast<A>(src[i]));
      }
      char* dst = p.out + oo + c0 * p.inner_so;
      for (int64_t i = 0; i < w; ++i) {
        *reinterpret_cast<T*>(dst + i * p.inner_so) = static_cast<T>(Op::fin(acc[i], p.count));
      }
    }
  };
  split_tasks(p.n_out * ncb, p.threads, tasks);
}

template <class Op>
static void exec(const ReducePlan& p) {
  if (p.row) {
    exec_row<Op>(p);
  } else {
    exec_col<Op>(p);
  }
}

static void fill(ReduceExec (*f)[kNumDTypes]) {
  f[kRSum][kF32] = exec<Sum<float, double>>;
  f[kRSum][kF64] = exec<Sum<double, double>>;
  f[kRSum][kI32] = exec<Sum<int32_t, uint64_t>>;
  f[kRSum][kI64] = exec<Sum<int64_t, uint64_t>>;
  f[kRMean][kF32] = exec<Mean<float>>;
  f[kRMean][kF64] = exec<Mean<double>>;
  f[kRMean][kI32] = exec<Mean<int32_t>>;
  f[kRMean][kI64] = exec<Mean<int64_t>>;
  f[kRMax][kF32] = exec<Extreme<float, true>>;
  f[kRMax][kF64] = exec<Extreme<double, true>>;
  f[kRMax][kI32] = exec<Extreme<int32_t, true>>;
  f[kRMax][kI64] = exec<Extreme<int64_t, true>>;
  f[kRMin][kF32] = exec<Extreme<float, false>>;
  f[kRMin][kF64] = exec<Extreme<double, false>>;
  f[kRMin][kI32] = exec<Extreme<int32_t, false>>;
  f[kRMin][kI64] = exec<Extreme<int64_t, false>>;
  f[kRProd][kF32] = exec<Prod<float, float>>;
  f[kRProd][kF64] = exec<Prod<double, double>>;
  f[kRProd][kI32] = exec<Prod<int32_t, uint32_t>>;
  f[kRProd][kI64] = exec<Prod<int64_t, uint64_t>>;
}

#endif  // ML_REDUCE_LOOPS
