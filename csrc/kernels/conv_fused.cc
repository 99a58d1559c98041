// FusedConv2DBiasAdd's bias (+ReLU) epilogue (conv_fused.h): per channel plane, one loop the
// compiler vectorises, each element computed as BiasAdd's (x + b) then ReLU's select
// (`v <= 0 ? 0 : v`: it vectorises, keeps NaN and turns -0 into +0).
#include "kernels/conv_fused.h"

#include "kernels/elementwise.h"

namespace mindlite {
namespace {

template <typename T>
void plane_loop(T* o, T b, int64_t plane, bool add, bool relu) {
  if (add && relu) {
    for (int64_t j = 0; j < plane; ++j) {
      const T v = o[j] + b;
      o[j] = v <= T(0) ? T(0) : v;  // NaN stays NaN, -0 becomes +0
    }
  } else if (add) {
    for (int64_t j = 0; j < plane; ++j) o[j] += b;
  } else if (relu) {
    for (int64_t j = 0; j < plane; ++j) {
      const T v = o[j];
      o[j] = v <= T(0) ? T(0) : v;  // NaN stays NaN, -0 becomes +0
    }
  }
}

template <typename T>
void bias_act_nchw(T* out, const T* bias, int64_t n, int64_t c, int64_t plane, bool relu) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < c; ++k, out += plane) {
      plane_loop(out, bias ? bias[k] : T(0), plane, bias != nullptr, relu);
    }
  }
}

}  // namespace

void conv_bias_act(int dt, char* out, const char* bias, int64_t n, int64_t c, int64_t plane,
                   bool relu) {
  if (dt == kF32) {
    bias_act_nchw(reinterpret_cast<float*>(out), reinterpret_cast<const float*>(bias), n, c,
                  plane, relu);
  } else {
    bias_act_nchw(reinterpret_cast<double*>(out), reinterpret_cast<const double*>(bias), n, c,
                  plane, relu);
  }
}

}  // namespace mindlite
