// with_isz(isz, f): f(std::integral_constant<int64_t, B>{}) for an element size isz of 1, 2, 4,
// 8 or 16 bytes (16 for anything else), so a copy loop is compiled per element size: the
// strided copy (copy_rows.cc) and PadV3's row gather (pad_rows.cc).
#pragma once

#include <cstdint>
#include <type_traits>

namespace mindlite {

template <class F>
void with_isz(int64_t isz, F&& f) {
  switch (isz) {
    case 1: return f(std::integral_constant<int64_t, 1>{});
    case 2: return f(std::integral_constant<int64_t, 2>{});
    case 4: return f(std::integral_constant<int64_t, 4>{});
    case 8: return f(std::integral_constant<int64_t, 8>{});
    default: return f(std::integral_constant<int64_t, 16>{});
  }
}

}  // namespace mindlite
