// Bilinear image resize of uint8 HWC images in OpenCV's fixed-point arithmetic (what
// MindSpore's vision.Resize runs): dataset/resample.py computes the taps and weights, this
// loop applies them (bind/resize_bind.cc checks the arguments).
#pragma once

#include <cstdint>

namespace mindlite {

// src (sh, sw, c) and out (h, w, c), both C-contiguous. xs: 4 rows of w int32 (left source
// column, right source column, their weights in 1/2048); ys: 4 rows of h int32 (upper and
// lower source row, their weights). Every index must lie in [0, sh) / [0, sw) and every weight
// in [0, 2048] (the caller checks). rows: scratch of sh * w * c int32.
void resize_linear_u8(const uint8_t* src, int64_t sh, int64_t sw, int64_t c, uint8_t* out,
                      int64_t h, int64_t w, const int32_t* xs, const int32_t* ys, int32_t* rows);

}  // namespace mindlite
