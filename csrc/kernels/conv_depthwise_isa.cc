// The depthwise plane loops (conv_depthwise_loops.inc) compiled for AVX-512, AVX2 + FMA and
// the baseline; dw_loops<T>() returns the set kernel_isa() names (MINDLITE_ISA honoured).
#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kernels/conv_depthwise.h"
#include "kernels/conv_engine.h"
#include "kernels/elementwise.h"

namespace mindlite {

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
namespace conv_depthwise_avx512 {
#define DW_VB 64
#include "kernels/conv_depthwise_loops.inc"
#include "kernels/conv_depthwise_plane.inc"
#undef DW_VB
}  // namespace conv_depthwise_avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace conv_depthwise_avx2 {
#define DW_VB 32
#include "kernels/conv_depthwise_loops.inc"
#include "kernels/conv_depthwise_plane.inc"
#undef DW_VB
}  // namespace conv_depthwise_avx2
#pragma GCC pop_options
#endif

namespace conv_depthwise_base {
#define DW_VB 16
#include "kernels/conv_depthwise_loops.inc"
#include "kernels/conv_depthwise_plane.inc"
#undef DW_VB
}  // namespace conv_depthwise_base

namespace {

struct Loops {
  DwLoops<float> f;
  DwLoops<double> d;
};

Loops make_loops() {
  Loops t;
  const char* isa = kernel_isa();
#if defined(__x86_64__) && defined(__GNUC__)
  if (!std::strcmp(isa, "avx512")) {
    conv_depthwise_avx512::fill_dw(&t.f);
    conv_depthwise_avx512::fill_dw(&t.d);
    return t;
  }
  if (!std::strcmp(isa, "avx2")) {
    conv_depthwise_avx2::fill_dw(&t.f);
    conv_depthwise_avx2::fill_dw(&t.d);
    return t;
  }
#endif
  (void)isa;
  conv_depthwise_base::fill_dw(&t.f);
  conv_depthwise_base::fill_dw(&t.d);
  return t;
}

const Loops& loops() {
  static const Loops t = make_loops();
  return t;
}

}  // namespace

template <>
const DwLoops<float>& dw_loops<float>() {
  return loops().f;
}

template <>
const DwLoops<double>& dw_loops<double>() {
  return loops().d;
}

}  // namespace mindlite
