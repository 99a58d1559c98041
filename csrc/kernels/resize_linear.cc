// The fixed-point bilinear resize of resize_linear.h: a horizontal pass over every source row
// ((p0 * a0 + p1 * a1) >> 4), then a vertical one ((b0 * r0) >> 16) + ((b1 * r1) >> 16),
// rounded by (+2) >> 2: the int32 arithmetic of resample.py's numpy version, element for
// element, so both give the same bytes.
#include "kernels/resize_linear.h"

namespace mindlite {

void resize_linear_u8(const uint8_t* src, int64_t sh, int64_t sw, int64_t c, uint8_t* out,
                      int64_t h, int64_t w, const int32_t* xs, const int32_t* ys, int32_t* rows) {
  const int32_t *x0 = xs, *x1 = xs + w, *a0 = xs + 2 * w, *a1 = xs + 3 * w;
  const int32_t *y0 = ys, *y1 = ys + h, *b0 = ys + 2 * h, *b1 = ys + 3 * h;
  const int64_t row_out = w * c;
  for (int64_t r = 0; r < sh; ++r) {
    const uint8_t* s = src + r * sw * c;
    int32_t* d = rows + r * row_out;
    for (int64_t x = 0; x < w; ++x) {
      const uint8_t* p0 = s + x0[x] * c;
      const uint8_t* p1 = s + x1[x] * c;
      for (int64_t k = 0; k < c; ++k)
        d[x * c + k] = (int32_t(p0[k]) * a0[x] + int32_t(p1[k]) * a1[x]) >> 4;
    }
  }
  for (int64_t y = 0; y < h; ++y) {
    const int32_t* r0 = rows + y0[y] * row_out;
    const int32_t* r1 = rows + y1[y] * row_out;
    const int32_t wb0 = b0[y], wb1 = b1[y];
    uint8_t* o = out + y * row_out;
    for (int64_t i = 0; i < row_out; ++i) {
      const int32_t v = ((wb0 * r0[i]) >> 16) + ((wb1 * r1[i]) >> 16);
      o[i] = static_cast<uint8_t>((v + 2) >> 2);
    }
  }
}

}  // namespace mindlite
