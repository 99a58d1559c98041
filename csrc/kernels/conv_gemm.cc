// The convolution engine's packing of A, its blocked driver and its thread split (see
// conv_gemm.h).
#include "kernels/conv_gemm.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/thread_pool.h"

namespace mindlite {

template <class T>
void pack_a_rows(const T* src, int64_t ld, int64_t m, int64_t k, T* dst) {
  const int mr = gemm_tile<T>().mr;
  for (int64_t k0 = 0; k0 < k; k0 += kGemmKc) {
    const int64_t kc = std::min(kGemmKc, k - k0);
    for (int64_t i = 0; i < m; i += mr) {
      const int rows = static_cast<int>(std::min<int64_t>(mr, m - i));
      const T* s = src + i * ld + k0;
      for (int64_t kk = 0; kk < kc; ++kk) {
        T* d = dst + kk * mr;
        for (int r = 0; r < rows; ++r) d[r] = s[r * ld + kk];
        for (int r = rows; r < mr; ++r) d[r] = T(0);
      }
      dst += kc * mr;
    }
  }
}

template <class T>
void pack_a_cols(const T* src, int64_t ld, int64_t m, int64_t k, T* dst) {
  const int mr = gemm_tile<T>().mr;
  for (int64_t k0 = 0; k0 < k; k0 += kGemmKc) {
    const int64_t kc = std::min(kGemmKc, k - k0);
    for (int64_t i = 0; i < m; i += mr) {
      const int rows = static_cast<int>(std::min<int64_t>(mr, m - i));
      for (int64_t kk = 0; kk < kc; ++kk) {
        const T* s = src + (k0 + kk) * ld + i;
        T* d = dst + kk * mr;
        for (int r = 0; r < rows; ++r) d[r] = s[r];
        for (int r = rows; r < mr; ++r) d[r] = T(0);
      }
      dst += kc * mr;
    }
  }
}

namespace {

struct ConvScratch {
  std::vector<char> bufs[kNumConvBufs];
};

thread_local std::unique_ptr<ConvScratch> tls_scratch;

// Column panels per block: the C buffer (rows x panels NR) kept near L2-sized, and wide enough
// that a block's store writes long runs of each output row (rows of a large plane lie a page
// or more apart: 128-byte runs cost a TLB miss each).
int64_t panels_per_block(int64_t rows, int nr) {
  constexpr int64_t kBudget = 128 * 1024;   // elements
  return std::max<int64_t>(1, std::min<int64_t>(kGemmMaxPanels,
                                                kBudget / std::max<int64_t>(1, rows * nr)));
}

}  // namespace

template <class T>
T* conv_buffer(ConvBuf which, int64_t count) {
  if (!tls_scratch) tls_scratch.reset(new ConvScratch());
  std::vector<char>& b = tls_scratch->bufs[which];
  const size_t bytes = static_cast<size_t>(count) * sizeof(T) + 64;
  if (b.size() < bytes) b.resize(bytes);
  const uintptr_t at = reinterpret_cast<uintptr_t>(b.data());
  return reinterpret_cast<T*>((at + 63) & ~uintptr_t(63));
}


template <class T>
void gemm_run(const GemmJob<T>& job, int64_t i0, int64_t i1, int64_t p0, int64_t p1) {
  const GemmTile<T>& t = gemm_tile<T>();
  const int mr = t.mr, nr = t.nr;
  if (i1 <= i0 || p1 <= p0) return;
  const int64_t r0 = i0 / mr * mr;                  // first computed row (a panel start)
  const int64_t r1 = round_up(i1, mr);
  const int64_t rows = r1 - r0;
  const int64_t mpad = round_up(job.m, mr);
  const int64_t jb_max = panels_per_block(rows, nr);
  T* bbuf = conv_buffer<T>(kBufPanelB, kGemmKc * nr);
  T* cbuf = conv_buffer<T>(kBufPanelC, jb_max * rows * nr);
  for (int64_t pb = p0; pb < p1; pb += jb_max) {
    const int64_t jn = std::min(jb_max, p1 - pb);
    const int64_t ldc = jn * nr;                   // C buffer rows: the block's columns
    if (job.k == 0) std::fill(cbuf, cbuf + rows * ldc, T(0));
    for (int64_t k0 = 0; k0 < job.k; k0 += kGemmKc) {
      const int64_t kc = std::min(kGemmKc, job.k - k0);
      const T* ablk = job.a + k0 * mpad;
      // A read in place: the partial last panel (rows past m) packed once per K block
      const int64_t full_end = job.lda > 0 ? std::min(r1, job.m / mr * mr) : r1;
      T* tail = nullptr;
      if (full_end < r1 && !t.direct) {
        tail = conv_buffer<T>(kBufPanelA, mr * kc);
        for (int64_t kk = 0; kk < kc; ++kk) {
          for (int r = 0; r < mr; ++r) {
            tail[kk * mr + r] = full_end + r < job.m
                                    ? job.a[(full_end + r) * job.lda + k0 + kk] : T(0);
          }
        }
      }
      // one B panel at a time, then every row panel against it (B stays in L1, the A block
      // of all rows in L2)
      for (int64_t jb = 0; jb < jn; ++jb) {
        const int64_t j0 = (pb + jb) * nr;
        job.pack_b(job.ctx, k0, kc, j0, std::min<int64_t>(nr, job.n - j0), bbuf);
        for (int64_t i = r0; i < r1; i += mr) {
          T* cp = cbuf + (i - r0) * ldc + jb * nr;
          if (job.lda == 0) {
            t.tile(kc, ablk + i * kc, bbuf, cp, ldc, k0 > 0);
          } else if (i < full_end) {
            t.tile_rows(kc, job.a + i * job.lda + k0, job.lda, bbuf, cp, ldc, k0 > 0);
          } else if (t.direct) {      // the last, partial row panel: its rows only
            t.direct(kc, job.a + i * job.lda + k0, job.lda, static_cast<int>(job.m - i), bbuf,
                     nr, cp, ldc, k0 > 0, nullptr);
          } else {
            t.tile(kc, tail, bbuf, cp, ldc, k0 > 0);
          }
        }
      }
    }
    const int64_t j0 = pb * nr;
    job.store(job.ctx, i0, std::min(i1, job.m), j0, std::min(ldc, job.n - j0),
              cbuf + (i0 - r0) * ldc, ldc);
  }
}

template <class T>
void gemm_parallel(const GemmJob<T>& job, int threads, int64_t row_align) {
  const GemmTile<T>& t = gemm_tile<T>();
  const int64_t npanels = (job.n + t.nr - 1) / t.nr;
  if (job.m <= 0 || npanels <= 0) return;
  const int64_t unit = row_align > 0 ? row_align : t.mr;     // rows split on multiples of it
  const int64_t nunits = (job.m + unit - 1) / unit;
  if (threads <= 1 || ((npanels < 2 || row_align > 0) && nunits < 2)) {
    gemm_run(job, 0, job.m, 0, npanels);
    return;
  }
  struct Ctx {
    const GemmJob<T>* job;
    int64_t npanels, unit, nunits;
    bool by_columns;
    PoolErrors* errors;
  } ctx{&job, npanels, unit, nunits,
        row_align == 0 && (npanels >= 2 * threads || npanels >= nunits), nullptr};
  // columns: a few chunks per thread, claimed as threads free up (a shared core is slow)
  const int64_t nchunks = ctx.by_columns ? std::min<int64_t>(npanels, 4 * threads)
                                         : std::min<int64_t>(nunits, threads);
  PoolErrors errors;
  ctx.errors = &errors;
  pool_run(threads, static_cast<int>(nchunks), [](void* p, int c, int nc) {
    const Ctx& x = *static_cast<Ctx*>(p);
    x.errors->guard([&] {
      if (x.by_columns) {
        gemm_run(*x.job, 0, x.job->m, x.npanels * c / nc, x.npanels * (c + 1) / nc);
      } else {
        const int64_t u0 = x.nunits * c / nc, u1 = x.nunits * (c + 1) / nc;
        gemm_run(*x.job, u0 * x.unit, std::min(x.job->m, u1 * x.unit), 0, x.npanels);
      }
    });
  }, &ctx);
  errors.rethrow();
}

int conv_threads(double macs) {
  const int forced = get_num_threads();
  if (forced > 0) return forced;
  return macs >= double(1 << 17) ? max_threads() : 1;
}

template float* conv_buffer<float>(ConvBuf, int64_t);
template double* conv_buffer<double>(ConvBuf, int64_t);
template void pack_a_rows<float>(const float*, int64_t, int64_t, int64_t, float*);
template void pack_a_rows<double>(const double*, int64_t, int64_t, int64_t, double*);
template void pack_a_cols<float>(const float*, int64_t, int64_t, int64_t, float*);
template void pack_a_cols<double>(const double*, int64_t, int64_t, int64_t, double*);
template void gemm_run<float>(const GemmJob<float>&, int64_t, int64_t, int64_t, int64_t);
template void gemm_run<double>(const GemmJob<double>&, int64_t, int64_t, int64_t, int64_t);
template void gemm_parallel<float>(const GemmJob<float>&, int, int64_t);
template void gemm_parallel<double>(const GemmJob<double>&, int, int64_t);

}  // namespace mindlite
