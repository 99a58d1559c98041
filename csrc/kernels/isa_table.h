// Picking a kernel family's function table by instruction set. The families whose loops are
// compiled once per ISA (arg, loss, reduce, softmax: the .inc included under each
// `#pragma GCC target` inside namespace <family>_<isa>) each define a `fill(table)`;
// fill_isa_table calls the one kernel_isa() names (MINDLITE_ISA honoured), and
// make_isa_table builds a family's IsaTable with it.
#pragma once

#include <cstring>

#include "kernels/elementwise.h"

// The address of an x86-only fill, null on builds without the x86 passes.
#if defined(__x86_64__) && defined(__GNUC__)
#define ML_ISA_X86(fill) (&fill)
#else
#define ML_ISA_X86(fill) nullptr
#endif

namespace mindlite {

template <class P>
struct IsaFill {
  using type = void (*)(P);
};

// Fills `table` with the avx512, avx2 or base loops, as kernel_isa() says; a null avx512 or
// avx2 fill (no x86 pass) falls back to base. P is deduced from `table` only.
template <class P>
void fill_isa_table(P table, typename IsaFill<P>::type avx512, typename IsaFill<P>::type avx2,
                    typename IsaFill<P>::type base) {
  const char* isa = kernel_isa();
  if (avx512 && !std::strcmp(isa, "avx512")) {
    avx512(table);
  } else if (avx2 && !std::strcmp(isa, "avx2")) {
    avx2(table);
  } else {
    base(table);
  }
}

// A family's table of N entries (one per dtype), value-initialised, then filled as above.
template <class Exec, int N>
struct IsaTable {
  Exec f[N];
};

template <class Exec, int N>
IsaTable<Exec, N> make_isa_table(typename IsaFill<Exec*>::type avx512,
                                 typename IsaFill<Exec*>::type avx2,
                                 typename IsaFill<Exec*>::type base) {
  IsaTable<Exec, N> t{};
  fill_isa_table(t.f, avx512, avx2, base);
  return t;
}

}  // namespace mindlite
