// Small-matrix MatMul: packing of strided / transposed operands, then the packed ISA loop.
#include "kernels/matmul.h"

#include <cstring>
#include <vector>

#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// dst[i, j] (rows x cols, row stride ld elements) = src at i * rs + j * cs bytes; columns
// cols..ld-1 are zero.
void pack(char* dst, const char* src, int64_t rows, int64_t cols, int64_t ld, int64_t rs,
          int64_t cs, int isz) {
  for (int64_t i = 0; i < rows; ++i) {
    const char* s = src + i * rs;
    char* d = dst + i * ld * isz;
    if (cs == isz) {
      std::memcpy(d, s, cols * isz);
    } else if (isz == 4) {
      for (int64_t j = 0; j < cols; ++j) std::memcpy(d + 4 * j, s + j * cs, 4);
    } else {
      for (int64_t j = 0; j < cols; ++j) std::memcpy(d + 8 * j, s + j * cs, 8);
    }
    std::memset(d + cols * isz, 0, (ld - cols) * isz);
  }
}

// The operand as a row-major (rows x cols) matrix with row stride *ld: itself when it already
// is one (and ld_multiple divides cols), else packed into buf with ld rounded up.
const char* as_row_major(const Operand& a, bool transpose, int64_t rows, int64_t cols,
                         int64_t ld_multiple, int isz, std::vector<char>* buf, int64_t* ld) {
  int64_t rs = a.strides[0], cs = a.strides[1];
  if (transpose) {
    rs = a.strides[1];
    cs = a.strides[0];
  }
  if (cols % ld_multiple == 0 && (cs == isz || cols <= 1) && (rs == cols * isz || rows <= 1)) {
    *ld = cols;
    return a.data;
  }
  *ld = (cols + ld_multiple - 1) / ld_multiple * ld_multiple;
  buf->resize(static_cast<size_t>(rows * *ld * isz));
  pack(buf->data(), a.data, rows, cols, *ld, rs, cs, isz);
  return buf->data();
}

// The dot-product loop over rows [0, m) of a and the weight rows (output columns) of b as
// stored, split by columns across the pool when the weight is large: a batch-1 layer streams
// its weight from L3 (256 x 256 float32: 256 KiB, ~4.5 us on one core), and two cores stream
// it twice as fast. Every output element is the same dot product whoever computes it (the
// loop's 8- / 4- / 1-column groups only batch independent columns), so the split never
// changes results.
void dots(int dt, const char* pa, const char* pb, char* out, int64_t m, int64_t n, int64_t k) {
  const MatmulBtFn fn = kernel_tables().matmul_bt[dt];
  const int64_t work = m * n * k;
  const uint32_t key = split_key(kFamilyMatmulBt, 0, static_cast<uint32_t>(dt));
  const SplitDecision d = n >= 32 ? decide_split(key, work, 1) : SplitDecision{1, false};
  if (d.threads <= 1) {
    run_timed(key, work, d, [&] { fn(pa, pb, out, m, n, k); });
    return;
  }
  const int64_t isz = kDTypeSize[dt];
  struct Ctx {
    MatmulBtFn fn;
    const char *a, *b;
    char* c;
    int64_t m, n, k, isz;
  } ctx{fn, pa, pb, out, m, n, k, isz};
  run_timed(key, work, d, [&] {
    pool_run(d.threads, d.threads, [](void* p, int t, int nt) {
      const Ctx& x = *static_cast<const Ctx*>(p);
      const int64_t j0 = x.n * t / nt / 8 * 8;  // column blocks start on groups of 8
      const int64_t j1 = t + 1 == nt ? x.n : x.n * (t + 1) / nt / 8 * 8;
      for (int64_t i = 0; i < x.m && j0 < j1; ++i) {
        x.fn(x.a + i * x.k * x.isz, x.b + j0 * x.k * x.isz, x.c + (i * x.n + j0) * x.isz, 1,
             j1 - j0, x.k);
      }
    }, &ctx);
  });
}

}  // namespace

void run_matmul(int dt, const Operand& a, const Operand& b, bool transpose_a, bool transpose_b,
                char* out, int64_t m, int64_t n, int64_t k) {
  const int isz = kDTypeSize[dt];
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(out, 0, static_cast<size_t>(m * n * isz));
    return;
  }
  thread_local std::vector<char> abuf, bbuf;
  int64_t lda, ldb;
  const char* pa = as_row_major(a, transpose_a, m, k, 1, isz, &abuf, &lda);  // lda == k
  if (transpose_b && m <= kDotRows && b.strides[1] == isz && b.strides[0] == k * isz) {
    dots(dt, pa, b.data, out, m, n, k);   // b (n x k) as stored
    return;
  }
  const char* pb = as_row_major(b, transpose_b, k, n, kMatmulPad, isz, &bbuf, &ldb);
  (void)lda;
  kernel_tables().matmul[dt](pa, pb, out, m, n, k, ldb);
}

}  // namespace mindlite
