// The GEMMs of blas_gemm.h. NOTE: numpy's stacked matmul ran attention's products (128 x
// (64 x 32) by (32 x 64) float32) one matrix after another on one thread, a transposed right
// operand through a copy first (scores: 533-590 us); split across two threads on BLAS with the
// transpose as its flag, ~2x faster.
#include "kernels/blas_gemm.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "kernels/blas_threads.h"
#include "kernels/elementwise.h"
#include "kernels/matmul.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;  // CBLAS enum values

template <class I, class T>
using CblasGemm = void (*)(int, int, int, I, I, I, T, const T*, I, const T*, I, T, T*, I);

void* g_gemm[2] = {nullptr, nullptr};  // [float, double]
bool g_ilp64 = false;
int64_t g_st_mnk = int64_t{1} << 23;    // GEMMs below this many multiply-adds: one thread
std::atomic<int (*)()> g_blas_threads{nullptr};  // the library's openblas_get_num_threads
// NOTE: a batch of products of at least this many multiply-adds in all splits across threads
// (~10 us of work on one core: below it the launch costs more than it saves).
constexpr int64_t kBatchSplitMnk = int64_t{1} << 18;

// Runs a BLAS call on one thread when it is small or asked to, inside the process-wide
// counted bracket (kernels/blas_threads.h: the setter is process-wide, so per-call save /
// restore from two threads would interleave).
template <class F>
void with_threads(int64_t mnk, bool single, F call) {
  if (!(mnk < g_st_mnk || single)) return call();
  blas_single_enter();
  call();
  blas_single_exit();
}

template <class T>
constexpr int dt_index() {
  return sizeof(T) == 4 ? 0 : 1;
}

}  // namespace

void blas_gemm_attach(void* sgemm, void* dgemm, bool ilp64, void* threads_local) {
  g_gemm[0] = sgemm;
  g_gemm[1] = dgemm;
  g_ilp64 = ilp64;
  if (threads_local) blas_threads_attach(reinterpret_cast<BlasSetThreadsFn>(threads_local));
}

bool blas_gemm_attached() { return g_gemm[0] != nullptr && g_gemm[1] != nullptr; }

void blas_gemm_set_single_below(int64_t mnk) { g_st_mnk = mnk; }

void blas_gemm_set_thread_query(void* get_num_threads) {
  g_blas_threads.store(reinterpret_cast<int (*)()>(get_num_threads));
}

namespace {

// mindlite's thread count (forced or hardware), capped by the library's own setting.
int pool_threads() {
  const int pool = get_num_threads() > 0 ? get_num_threads() : max_threads();
  int (*query)() = g_blas_threads.load(std::memory_order_relaxed);
  const int lib = query ? query() : pool;
  return lib < pool ? (lib > 1 ? lib : 1) : pool;
}

}  // namespace

template <class T>
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
               const T* b, int64_t ldb, T beta, T* c, int64_t ldc, bool single) {
  if (m == 0 || n == 0) return;
  const int nt = single || g_gemm[dt_index<T>()] == nullptr || m * n * k < g_st_mnk
                     ? 1 : pool_threads();
  if (nt > 1 && std::max(m, n) >= 2 * nt) {
    // NOTE: a large product splits its rows (or columns, when wider) across mindlite's pool,
    // each block on one BLAS thread, instead of OpenBLAS's own threads: those spin for a while
    // after every GEMM and took the second core from the pool's next kernels (a Transformer
    // step's BatchMatMul 2x, its Transposes 1.5-2x slower than alone). A block's elements are
    // the same dot products over K as the whole product's (a GEMM never splits K).
    const bool rows = m >= n;
    struct Ctx {
      bool ta, tb, rows;
      int64_t m, n, k, lda, ldb, ldc;
      const T *a, *b;
      T beta;
      T* c;
    } ctx{ta, tb, rows, m, n, k, lda, ldb, ldc, a, b, beta, c};
    blas_single_enter();
    pool_run(nt, nt, [](void* p, int t, int parts) {
      const Ctx& x = *static_cast<const Ctx*>(p);
      const int64_t len = x.rows ? x.m : x.n;
      const int64_t lo = len * t / parts, hi = len * (t + 1) / parts;
      if (lo >= hi) return;
      if (x.rows) {
        blas_gemm<T>(x.ta, x.tb, hi - lo, x.n, x.k, x.a + (x.ta ? lo : lo * x.lda), x.lda, x.b,
                     x.ldb, x.beta, x.c + lo * x.ldc, x.ldc, true);
      } else {
        blas_gemm<T>(x.ta, x.tb, x.m, hi - lo, x.k, x.a, x.lda, x.b + (x.tb ? lo * x.ldb : lo),
                     x.ldb, x.beta, x.c + lo, x.ldc, true);
      }
    }, &ctx);
    blas_single_exit();
    return;
  }
  // a large product that did not split (one thread, or too narrow) runs on one BLAS thread
  // too: never on OpenBLAS's threads, and with the split's bits
  if (g_gemm[dt_index<T>()] != nullptr && m * n * k >= g_st_mnk) single = true;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0 ? T(0) : beta * c[i * ldc + j];
    }
    return;
  }
  void* fn = g_gemm[dt_index<T>()];
  const int opa = ta ? kTrans : kNoTrans, opb = tb ? kTrans : kNoTrans;
  if (fn && g_ilp64) {
    return with_threads(m * n * k, single, [&] {
      reinterpret_cast<CblasGemm<int64_t, T>>(fn)(kRowMajor, opa, opb, m, n, k, T(1), a, lda, b,
                                                  ldb, beta, c, ldc);
    });
  }
  const int64_t big = std::max({m, n, k, lda, ldb, ldc});
  if (fn && big <= INT32_MAX) {  // a 32-bit-integer BLAS takes it
    return with_threads(m * n * k, single, [&] {
      reinterpret_cast<CblasGemm<int, T>>(fn)(kRowMajor, opa, opb, static_cast<int>(m),
                                              static_cast<int>(n), static_cast<int>(k), T(1), a,
                                              static_cast<int>(lda), b, static_cast<int>(ldb),
                                              beta, c, static_cast<int>(ldc));
    });
  }
  // no BLAS attached: the packed MatMul loop into a buffer, then C = buffer + beta C
  const int64_t isz = sizeof(T);
  const int64_t ashape[2] = {ta ? k : m, ta ? m : k}, astr[2] = {lda * isz, isz};
  const int64_t bshape[2] = {tb ? n : k, tb ? k : n}, bstr[2] = {ldb * isz, isz};
  const Operand oa{reinterpret_cast<const char*>(a), 2, ashape, astr, false};
  const Operand ob{reinterpret_cast<const char*>(b), 2, bshape, bstr, false};
  thread_local std::vector<T> buf;
  buf.resize(static_cast<size_t>(m * n));
  run_matmul(sizeof(T) == 4 ? kF32 : kF64, oa, ob, ta, tb, reinterpret_cast<char*>(buf.data()),
             m, n, k);
  for (int64_t i = 0; i < m; ++i) {
    T* ci = c + i * ldc;
    const T* bi = buf.data() + i * n;
    if (beta == 0) {
      std::copy(bi, bi + n, ci);
    } else {
      for (int64_t j = 0; j < n; ++j) ci[j] = bi[j] + beta * ci[j];
    }
  }
}

template void blas_gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t,
                               const float*, int64_t, float, float*, int64_t, bool);
template void blas_gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t,
                                const double*, int64_t, double, double*, int64_t, bool);

namespace {

template <class T>
void batch_range(int64_t b0, int64_t b1, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                 const GemmOperand& b, char* out, bool single) {
  for (int64_t i = b0; i < b1; ++i) {
    blas_gemm<T>(a.trans, b.trans, m, n, k,
                 reinterpret_cast<const T*>(a.data + i * a.batch_stride), a.ld,
                 reinterpret_cast<const T*>(b.data + i * b.batch_stride), b.ld, T(0),
                 reinterpret_cast<T*>(out) + i * m * n, n, single);
  }
}

}  // namespace

bool batch_gemm(int dt, int64_t batches, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                const GemmOperand& b, char* out) {
  if (!blas_gemm_attached()) return false;
  const int64_t mnk = m * n * k;
  auto range = [&](int64_t b0, int64_t b1, bool single) {
    if (dt == 0) {
      batch_range<float>(b0, b1, m, n, k, a, b, out, single);
    } else {
      batch_range<double>(b0, b1, m, n, k, a, b, out, single);
    }
  };
  const int threads = static_cast<int>(std::min<int64_t>(pool_threads(), batches));
  // large products thread inside BLAS; a batch of small ones splits over the batches
  if (batches < 2 || mnk >= g_st_mnk || mnk * batches < kBatchSplitMnk || threads < 2) {
    range(0, batches, false);
    return true;
  }
  struct Ctx {
    decltype(range)* fn;
    int64_t batches;
  } ctx{&range, batches};
  blas_single_enter();  // every product of the split on one BLAS thread
  pool_run(threads, threads, [](void* p, int t, int nt) {
    const Ctx* c = static_cast<const Ctx*>(p);
    const int64_t b0 = c->batches * t / nt, b1 = c->batches * (t + 1) / nt;
    if (b0 < b1) (*c->fn)(b0, b1, true);
  }, &ctx);
  blas_single_exit();
  return true;
}

}  // namespace mindlite
