// BatchNorm's plane loops (batch_norm_loops.inc) compiled for AVX-512, AVX2 + FMA and the
// baseline; bn_loops<T>() returns the set kernel_isa() names (MINDLITE_ISA honoured).
#include <cstring>

#include "kernels/batch_norm_isa.h"
#include "kernels/elementwise.h"

namespace mindlite {

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
namespace batch_norm_avx512 {
#define BN_VB 64
#include "kernels/batch_norm_loops.inc"
#undef BN_VB
}  // namespace batch_norm_avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace batch_norm_avx2 {
#define BN_VB 32
#include "kernels/batch_norm_loops.inc"
#undef BN_VB
}  // namespace batch_norm_avx2
#pragma GCC pop_options
#endif

namespace batch_norm_base {
#define BN_VB 16
#include "kernels/batch_norm_loops.inc"
#undef BN_VB
}  // namespace batch_norm_base

namespace {

struct Loops {
  BnLoops<float> f;
  BnLoops<double> d;
};

Loops make_loops() {
  Loops t;
  const char* isa = kernel_isa();
#if defined(__x86_64__) && defined(__GNUC__)
  if (!std::strcmp(isa, "avx512")) {
    batch_norm_avx512::fill(&t.f, &t.d);
    return t;
  }
  if (!std::strcmp(isa, "avx2")) {
    batch_norm_avx2::fill(&t.f, &t.d);
    return t;
  }
#endif
  (void)isa;
  batch_norm_base::fill(&t.f, &t.d);
  return t;
}

const Loops& loops() {
  static const Loops t = make_loops();
  return t;
}

}  // namespace

template <>
const BnLoops<float>& bn_loops<float>() {
  return loops().f;
}

template <>
const BnLoops<double>& bn_loops<double>() {
  return loops().d;
}

}  // namespace mindlite
