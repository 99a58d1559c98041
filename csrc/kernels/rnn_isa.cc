// The row gate loops of the fused recurrent layers (rnn_gates.inc) compiled per ISA: AVX-512
// (64-byte vectors), AVX2 + FMA (32), baseline SSE2 (16); rnn_gate_fns picks the set
// kernel_isa() names (MINDLITE_ISA honoured), as the other per-ISA kernel families do.
#include "kernels/isa_common.h"
#include "kernels/rnn.h"

#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma,bmi,bmi2,popcnt,f16c")
#define ML_VBYTES 64
#define ML_NATIVE_VBYTES 64
namespace mindlite {
namespace rnn_avx512 {
#include "kernels/simd_math.h"
#include "kernels/rnn_gemm.inc"   // NOLINT(build/include): packed recurrence GEMMs
#include "kernels/rnn_gates.inc"  // NOLINT(build/include): the loops, for this ISA
}  // namespace rnn_avx512
}  // namespace mindlite
#undef ML_VBYTES
#undef ML_NATIVE_VBYTES
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,popcnt,f16c")
#define ML_VBYTES 32
#define ML_NATIVE_VBYTES 32
namespace mindlite {
namespace rnn_avx2 {
#include "kernels/simd_math.h"
#include "kernels/rnn_gemm.inc"   // NOLINT(build/include)
#include "kernels/rnn_gates.inc"  // NOLINT(build/include)
}  // namespace rnn_avx2
}  // namespace mindlite
#undef ML_VBYTES
#undef ML_NATIVE_VBYTES
#pragma GCC pop_options
#endif

#define ML_VBYTES 16
namespace mindlite {
namespace rnn_base {
#include "kernels/simd_math.h"
#include "kernels/rnn_gemm.inc"   // NOLINT(build/include)
#include "kernels/rnn_gates.inc"  // NOLINT(build/include)
}  // namespace rnn_base
}  // namespace mindlite
#undef ML_VBYTES

namespace mindlite {
namespace {

struct Tables {
  RnnGateFns<float> f32{};
  RnnGateFns<double> f64{};
};

const Tables& tables() {
  static const Tables t = [] {
    Tables r;
#if defined(__x86_64__) && defined(__GNUC__)
    rnn_avx512::Fill a{&r.f32, &r.f64};
    rnn_avx2::Fill b{&r.f32, &r.f64};
#endif
    rnn_base::Fill c{&r.f32, &r.f64};
    const char* isa = kernel_isa();
#if defined(__x86_64__) && defined(__GNUC__)
    if (!std::strcmp(isa, "avx512")) {
      rnn_avx512::fill(&a);
      return r;
    }
    if (!std::strcmp(isa, "avx2")) {
      rnn_avx2::fill(&b);
      return r;
    }
#endif
    (void)isa;
    rnn_base::fill(&c);
    return r;
  }();
  return t;
}

}  // namespace

template <>
const RnnGateFns<float>& rnn_gate_fns<float>() {
  return tables().f32;
}

template <>
const RnnGateFns<double>& rnn_gate_fns<double>() {
  return tables().f64;
}

}  // namespace mindlite
