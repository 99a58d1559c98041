// Position-pair GEMMs for the input gradient of tiny planes (conv_backward_small.h).
//
// Per call: the weights per live tap, Wr[t] (O, C) = w[:, :, t] (one pass over w, split over
// output channels); dout channels-last per position, D[q] (N, O); per dx position p (split
// over the pool with blocks of input channels) X[p] (N, C) = sum over its pairs (q, t) of
// D[q] Wr[t], the pairs in q order,
// each an OpenBLAS product on one thread (beta 1 after the first: the same sums on any
// thread count); then dx (N, C, P) from X (P, N, C). A position without a pair gets zeros.
// Weights holding a NaN or an infinity go back to the engine (its padding-times-weight terms).
#include "kernels/conv_backward_small.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/blas_gemm.h"
#include "kernels/blas_threads.h"
#include "kernels/conv_loops.h"

namespace mindlite {
namespace {

constexpr int64_t kMaxPairPlane = 4;   // positions of dx (2 x 2, 1 x 4, 1 x 3 ...)
constexpr int64_t kMinChannels = 64;
// Input channels per unit of the products: fixed by the shape (a block's elements are the same
// dot products over O whatever the split), several per position so 1 x 1 planes split.
constexpr int64_t kColBlock = 64;

struct Pair {
  int64_t q, t;   // dout position, index into the live taps
};

}  // namespace

template <class T>
bool conv_backprop_input_pairs(const T* dout, const T* w, T* dx, const ConvGeom& g,
                               int threads) {
  const int64_t plane = g.h * g.w, oplane = g.oh * g.ow, kt = g.kh * g.kw;
  if (g.group != 1 || plane > kMaxPairPlane || plane == 0 ||
      oplane == 0 || g.n == 0 || g.c < kMinChannels || g.o < kMinChannels ||
      !blas_gemm_attached()) {
    return false;
  }
  // the pairs of each dx position p = (y, x): dout position (oy, ox) with tap (i, j),
  // y = oy sh + i dh - pt, x = ox sw + j dw - pl
  std::vector<std::vector<Pair>> pairs(plane);
  std::vector<int64_t> tap_of(kt, -1), taps;
  for (int64_t p = 0; p < plane; ++p) {
    const int64_t y = p / g.w, x = p - y * g.w;
    for (int64_t q = 0; q < oplane; ++q) {
      const int64_t oy = q / g.ow, ox = q - oy * g.ow;
      for (int64_t i = 0; i < g.kh; ++i) {
        if (oy * g.sh + i * g.dh - g.pt != y) continue;
        for (int64_t j = 0; j < g.kw; ++j) {
          if (ox * g.sw + j * g.dw - g.pl != x) continue;
          const int64_t t = i * g.kw + j;
          if (tap_of[t] < 0) {
            tap_of[t] = static_cast<int64_t>(taps.size());
            taps.push_back(t);
          }
          pairs[p].push_back(Pair{q, tap_of[t]});
        }
      }
    }
  }
  const int64_t nt = static_cast<int64_t>(taps.size()), oc = g.o * g.c;
  std::unique_ptr<T[]> wr(new T[std::max<int64_t>(nt, 1) * oc]), d(new T[oplane * g.n * g.o]),
      xs(new T[plane * g.n * g.c]);
  // Wr[t][o][c] = w[o][c][taps[t]], noting a NaN or an infinity (exponent bits all ones)
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kExp = sizeof(T) == 4 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
  std::atomic<bool> finite{true};
  auto repack = [&](int64_t o0, int64_t o1) {
    U bad = 0;
    for (int64_t o = o0; o < o1; ++o) {     // per tap a contiguous row of Wr from w's row o
      for (int64_t t = 0; t < nt; ++t) {
        const T* src = w + o * g.c * kt + taps[t];
        T* dst = wr.get() + t * oc + o * g.c;
        for (int64_t c = 0; c < g.c; ++c) {
          const T v = src[c * kt];
          U b;
          std::memcpy(&b, &v, sizeof(T));
          bad |= static_cast<U>((b & kExp) == kExp);
          dst[c] = v;
        }
      }
    }
    if (bad) finite = false;
  };
  auto dlast = [&](int64_t n0, int64_t n1) {    // D[q][n][o] = dout[n][o][q]
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t o = 0; o < g.o; ++o) {
        for (int64_t q = 0; q < oplane; ++q) {
          d[(q * g.n + n) * g.o + o] = dout[(n * g.o + o) * oplane + q];
        }
      }
    }
  };
  // units: (dx position, block of kColBlock input channels), so that a 1 x 1 plane splits too
  const int64_t cblocks = (g.c + kColBlock - 1) / kColBlock;
  auto products = [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t p = u / cblocks, c0 = (u - p * cblocks) * kColBlock;
      const int64_t nc = std::min(kColBlock, g.c - c0);
      T* xp = xs.get() + p * g.n * g.c + c0;
      if (pairs[p].empty()) {
        for (int64_t n = 0; n < g.n; ++n) std::fill(xp + n * g.c, xp + n * g.c + nc, T(0));
      }
      bool first = true;
      for (const Pair& pr : pairs[p]) {
        blas_gemm<T>(false, false, g.n, nc, g.o, d.get() + pr.q * g.n * g.o, g.o,
                     wr.get() + pr.t * oc + c0, g.c, first ? T(0) : T(1), xp, g.c, true);
        first = false;
      }
    }
  };
  auto store = [&](int64_t n0, int64_t n1) {    // dx[n][c][p] = X[p][n][c]
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t c = 0; c < g.c; ++c) {
        for (int64_t p = 0; p < plane; ++p) {
          dx[(n * g.c + c) * plane + p] = xs[(p * g.n + n) * g.c + c];
        }
      }
    }
  };
  auto run = [&](int64_t count, auto& body) {
    if (threads > 1 && count >= threads) {
      conv_split_rows(count, threads, body);
    } else {
      body(0, count);
    }
  };
  run(g.o, repack);
  // NOTE: a NaN or infinite weight: the engine multiplies the padding's zeros by it (NaN on
  // every output its window reaches), the pairs skip the padding; keep the engine's rule
  if (!finite.load()) return false;
  run(g.n, dlast);
  blas_single_enter();
  struct Exit {
    ~Exit() { blas_single_exit(); }
  } exit_single;
  run(plane * cblocks, products);
  run(g.n, store);
  return true;
}

template bool conv_backprop_input_pairs<float>(const float*, const float*, float*,
                                               const ConvGeom&, int);
template bool conv_backprop_input_pairs<double>(const double*, const double*, double*,
                                                const ConvGeom&, int);

}  // namespace mindlite
