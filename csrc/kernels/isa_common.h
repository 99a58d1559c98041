// Headers shared by the per-ISA kernel files (isa_*.cc). Included BEFORE any
// `#pragma GCC target`, so library inline functions keep the baseline target.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "kernels/elementwise.h"
#include "kernels/special_math.h"
