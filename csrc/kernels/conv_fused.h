// The epilogue of FusedConv2DBiasAdd (mindlite/ops/operations/fused_ops.py): after the small
// convolution (conv_small.h) wrote its NCHW output, one pass over that still-hot output adds
// the per-channel bias and applies ReLU in place, with the values BiasAdd then ReLU give.
#pragma once

#include <cstdint>

namespace mindlite {

// out (n, c, plane) C-contiguous: out += bias[channel] when bias is not null, then
// max(out, 0) when relu (NaN stays NaN, -0 becomes +0, as ReLU). dt: kF32 / kF64.
void conv_bias_act(int dt, char* out, const char* bias, int64_t n, int64_t c, int64_t plane,
                   bool relu);

}  // namespace mindlite
