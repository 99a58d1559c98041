// PadV3's row gather (see pad_rows.h). NOTE: written in C++ because numba's slice copy of the
// kept block ran at ~60% of memcpy speed (2048 x 2048 reflect: 1230 us one thread against
// numpy's block copy at 770), and numpy's block copy plus a second pass for the borders
// walked each output row twice.
#include "kernels/pad_rows.h"

#include <cstring>

#include "kernels/isz_dispatch.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// n copies of the B-byte element at e: one, then doubling copies of what is written.
template <int64_t B> void fill_elems(char* dst, const char* e, int64_t n) {
  if (n <= 0) return;
  std::memcpy(dst, e, B);
  for (int64_t done = 1; done < n;) {
    const int64_t k = done < n - done ? done : n - done;
    std::memcpy(dst + done * B, dst, k * B);
    done += k;
  }
}

template <int64_t B>
void rows_loop(const PadRowsPlan& p, const char* x, char* out, int64_t r0, int64_t r1) {
  const int64_t in_row = p.w * B, out_row = p.wo * B, keep = (p.ke - p.ks) * B;
  for (int64_t r = r0; r < r1; ++r) {  // r = a * ho + i
    const int64_t a = r / p.ho, i = r % p.ho;
    char* dst = out + r * out_row;
    if (p.rows[i] < 0) {               // a constant row
      fill_elems<B>(dst, p.fill, p.wo);
      continue;
    }
    const char* src = x + (a * p.h + p.rows[i]) * in_row;
    if (keep > 0) std::memcpy(dst + p.ks * B, src + (p.ks - p.lo) * B, keep);
    for (int64_t j = 0; j < p.ks; ++j) {
      std::memcpy(dst + j * B, p.cols[j] < 0 ? p.fill : src + p.cols[j] * B, B);
    }
    for (int64_t j = p.ke; j < p.wo; ++j) {
      std::memcpy(dst + j * B, p.cols[j] < 0 ? p.fill : src + p.cols[j] * B, B);
    }
  }
}

}  // namespace

void run_pad_rows(const PadRowsPlan& p, const char* x, char* out) {
  const int64_t n = p.a * p.ho;
  if (n == 0 || p.wo == 0) return;
  auto body = [&](int64_t r0, int64_t r1) {
    with_isz(p.isz, [&](auto b) { rows_loop<decltype(b)::value>(p, x, out, r0, r1); });
  };
  const int64_t elems = n * p.wo;
  const uint32_t key = split_key(kFamilyPad, 0, static_cast<uint32_t>(p.isz));
  const SplitDecision d = decide_split(key, elems, 1);
  if (d.threads <= 1) {
    run_timed(key, elems, d, [&] { body(0, n); });
    return;
  }
  run_timed(key, elems, d, [&] { parallel_for(n, d.threads, body); });
}

}  // namespace mindlite
