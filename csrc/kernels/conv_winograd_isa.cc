// The Winograd transforms (conv_winograd.inc) compiled for AVX-512, AVX2 + FMA and the
// baseline; winograd_loops<T>() returns the set kernel_isa() names (MINDLITE_ISA honoured).
// The GEMMs between them run on the engine's register tile (conv_gemm_isa.cc).
#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "kernels/conv_engine.h"
#include "kernels/conv_winograd.h"
#include "kernels/elementwise.h"

namespace mindlite {

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
namespace conv_winograd_avx512 {
#define WG_VB 64
#include "kernels/conv_winograd.inc"
#undef WG_VB
}  // namespace conv_winograd_avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace conv_winograd_avx2 {
#define WG_VB 32
#include "kernels/conv_winograd.inc"
#undef WG_VB
}  // namespace conv_winograd_avx2
#pragma GCC pop_options
#endif

namespace conv_winograd_base {
#define WG_VB 16
#include "kernels/conv_winograd.inc"
#undef WG_VB
}  // namespace conv_winograd_base

namespace {

template <class T>
WinogradLoops<T> pick() {
  const char* isa = kernel_isa();
#if defined(__x86_64__) && defined(__GNUC__)
  if (!std::strcmp(isa, "avx512")) return conv_winograd_avx512::make_winograd_loops<T>();
  if (!std::strcmp(isa, "avx2")) return conv_winograd_avx2::make_winograd_loops<T>();
#endif
  (void)isa;
  return conv_winograd_base::make_winograd_loops<T>();
}

}  // namespace

template <>
const WinogradLoops<float>& winograd_loops<float>() {
  static const WinogradLoops<float> f = pick<float>();
  return f;
}

template <>
const WinogradLoops<double>& winograd_loops<double>() {
  static const WinogradLoops<double> d = pick<double>();
  return d;
}

}  // namespace mindlite
