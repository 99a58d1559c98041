// Small-matrix MatMul: packing of strided / transposed operands, then the packed ISA loop.
#include "kernels/matmul.h"

#include <cstring>
#include <vector>

namespace mindlite {
namespace {

// dst[i, j] (rows x cols, row-major) = src at i * rs + j * cs bytes.
void pack(char* dst, const char* src, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
          int isz) {
  for (int64_t i = 0; i < rows; ++i) {
    const char* s = src + i * rs;
    char* d = dst + i * cols * isz;
    if (cs == isz) {
      std::memcpy(d, s, cols * isz);
    } else if (isz == 4) {
      for (int64_t j = 0; j < cols; ++j) std::memcpy(d + 4 * j, s + j * cs, 4);
    } else {
      for (int64_t j = 0; j < cols; ++j) std::memcpy(d + 8 * j, s + j * cs, 8);
    }
  }
}

// The operand as a row-major (rows x cols) matrix: itself when it already is, else packed.
const char* as_row_major(const Operand& a, bool transpose, int64_t rows, int64_t cols, int isz,
                         std::vector<char>* buf) {
  int64_t rs = a.strides[0], cs = a.strides[1];
  if (transpose) {
    rs = a.strides[1];
    cs = a.strides[0];
  }
  if ((cs == isz || cols <= 1) && (rs == cols * isz || rows <= 1)) return a.data;
  buf->resize(static_cast<size_t>(rows * cols * isz));
  pack(buf->data(), a.data, rows, cols, rs, cs, isz);
  return buf->data();
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
  const char* pa = as_row_major(a, transpose_a, m, k, isz, &abuf);
  const char* pb = as_row_major(b, transpose_b, k, n, isz, &bbuf);
  kernel_tables().matmul[dt](pa, pb, out, m, n, k);
}

}  // namespace mindlite
