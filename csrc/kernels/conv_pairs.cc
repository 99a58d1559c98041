// Position-pair GEMMs for convolutions of tiny planes (conv_pairs.h).
//
// Per call: the weights per live tap, Wr[t] (O, C) = w[:, :, t] (one pass over w, split over
// output channels, which also checks them for NaN / inf); the source (dout for the input
// gradient, x for the forward) channels-last per position, S[q] (N, channels); per
// destination position p and block of kColBlock destination channels (split over the pool)
// Y[p] = sum over its pairs (q, t) of S[q] Wr[t] (input gradient: (N x O) (O x C)) or
// S[q] Wr[t]^T (forward: (N x C) (C x O)), the pairs in q order, each an OpenBLAS product on
// one thread (beta 1 after the first: the same sums on any thread count); then the
// destination (N, channels, P) from Y (P, N, channels). A position without a pair gets zeros.
// Weights holding a NaN or an infinity go back to the engine (its padding-times-weight terms
// give NaN where the pairs, which skip the padding, would not).
#include "kernels/conv_pairs.h"

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

constexpr int64_t kMaxPairPlane = 4;   // destination positions (2 x 2, 1 x 4, 1 x 1 ...)
constexpr int64_t kMaxStridedPlane = 16;   // the strided input gradient's (4 x 4)
constexpr int64_t kMinChannels = 64;
constexpr int64_t kMinForwardBatch = 4;   // the forward's GEMM rows (see conv_pairs.h)
// Destination channels per unit of the products: fixed by the shape (a block's elements are
// the same dot products whatever the split), several per position so 1 x 1 planes split.
constexpr int64_t kColBlock = 64;

struct Pair {
  int64_t q, t;   // source position, index into the live taps
};

// The pair GEMMs. forward: src x (N, C, ps), dst out (N, O, pd), pairs per output position;
// else src dout (N, O, ps), dst dx (N, C, pd), pairs per dx position.
template <class T>
bool run_pairs(const T* src, const T* w, T* dst, const ConvGeom& g, const ConvEpilogue<T>& ep,
               int threads, bool forward, const std::vector<std::vector<Pair>>& pairs,
               const std::vector<int64_t>& taps, int64_t ps, int64_t pd) {
  const int64_t kt = g.kh * g.kw, nt = static_cast<int64_t>(taps.size()), oc = g.o * g.c;
  const int64_t sch = forward ? g.c : g.o, dch = forward ? g.o : g.c;
  std::unique_ptr<T[]> wr(new T[std::max<int64_t>(nt, 1) * oc]), s(new T[ps * g.n * sch]),
      ys(new T[pd * g.n * dch]);
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kExp = sizeof(T) == 4 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
  std::atomic<bool> finite{true};
  auto repack = [&](int64_t o0, int64_t o1) {   // Wr[t][o][c] = w[o][c][taps[t]]
    U bad = 0;
    for (int64_t o = o0; o < o1; ++o) {     // per tap a contiguous row of Wr from w's row o
      for (int64_t t = 0; t < nt; ++t) {
        const T* from = w + o * g.c * kt + taps[t];
        T* to = wr.get() + t * oc + o * g.c;
        for (int64_t c = 0; c < g.c; ++c) {
          const T v = from[c * kt];
          U b;
          std::memcpy(&b, &v, sizeof(T));
          bad |= static_cast<U>((b & kExp) == kExp);
          to[c] = v;
        }
      }
    }
    if (bad) finite = false;
  };
  auto to_last = [&](int64_t n0, int64_t n1) {    // S[q][n][ch] = src[n][ch][q]
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t ch = 0; ch < sch; ++ch) {
        for (int64_t q = 0; q < ps; ++q) {
          s[(q * g.n + n) * sch + ch] = src[(n * sch + ch) * ps + q];
        }
      }
    }
  };
  const int64_t blocks = (dch + kColBlock - 1) / kColBlock;
  auto products = [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t p = u / blocks, c0 = (u - p * blocks) * kColBlock;
      const int64_t nc = std::min(kColBlock, dch - c0);
      T* yp = ys.get() + p * g.n * dch + c0;
      if (pairs[p].empty()) {
        for (int64_t n = 0; n < g.n; ++n) std::fill(yp + n * dch, yp + n * dch + nc, T(0));
      }
      bool first = true;
      for (const Pair& pr : pairs[p]) {
        const T* a = s.get() + pr.q * g.n * sch;
        if (forward) {       // (N x C) (Wr[t] rows c0.. as (C x nc)^T)
          blas_gemm<T>(false, true, g.n, nc, g.c, a, g.c, wr.get() + pr.t * oc + c0 * g.c, g.c,
                       first ? T(0) : T(1), yp, dch, true);
        } else {             // (N x O) (O x nc)
          blas_gemm<T>(false, false, g.n, nc, g.o, a, g.o, wr.get() + pr.t * oc + c0, g.c,
                       first ? T(0) : T(1), yp, dch, true);
        }
        first = false;
      }
    }
  };
  // dst[n][ch][p] = act(Y[p][n][ch] + bias[ch] + residual[n][ch][p]), the engine's epilogue
  // (cp_epilogue, conv_pack.inc: the sum plus the bias or +0, the residual, conv_act's rules)
  auto store = [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t ch = 0; ch < dch; ++ch) {
        const T b = ep.bias ? ep.bias[ch] : T(0);
        const int64_t at = (n * dch + ch) * pd;
        for (int64_t p = 0; p < pd; ++p) {
          T v = ys[(p * g.n + n) * dch + ch] + b;
          if (ep.residual) v = v + ep.residual[at + p];
          dst[at + p] = ep.act == kConvActNone ? v : conv_act(v, ep.act);
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
  if (!finite.load()) return false;
  run(g.n, to_last);
  blas_single_enter();
  struct Exit {
    ~Exit() { blas_single_exit(); }
  } exit_single;
  run(pd * blocks, products);
  run(g.n, store);
  return true;
}

// The pairs of every destination position: (source position, live tap) with
// y = oy sh + i dh - pt, x = ox sw + j dw - pl, (y, x) an input and (oy, ox) an output
// position; forward: destinations are outputs, else inputs.
void find_pairs(const ConvGeom& g, bool forward, std::vector<std::vector<Pair>>* pairs,
                std::vector<int64_t>* taps) {
  const int64_t plane = g.h * g.w, oplane = g.oh * g.ow;
  std::vector<int64_t> tap_of(g.kh * g.kw, -1);
  pairs->assign(forward ? oplane : plane, {});
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
            tap_of[t] = static_cast<int64_t>(taps->size());
            taps->push_back(t);
          }
          (*pairs)[forward ? q : p].push_back(Pair{forward ? p : q, tap_of[t]});
        }
      }
    }
  }
}

bool applies(const ConvGeom& g, int64_t dst_plane, int64_t max_plane = kMaxPairPlane) {
  return g.group == 1 && dst_plane <= max_plane && g.h * g.w > 0 && g.oh * g.ow > 0 &&
         g.n > 0 && g.c >= kMinChannels && g.o >= kMinChannels && blas_gemm_attached();
}

}  // namespace

template <class T>
bool conv_backprop_input_pairs(const T* dout, const T* w, T* dx, const ConvGeom& g,
                               int threads) {
  // strided, with a kernel wider than 1 x 1: up to 16 dx positions (layer3's stride-2 3 x 3
  // from 4 x 4: 688 -> 369 us on one thread; its 1 x 1 shortcut 100 -> 107 us, left out)
  const bool wide = (g.sh > 1 || g.sw > 1) && g.kh * g.kw > 1;
  if (!applies(g, g.h * g.w, wide ? kMaxStridedPlane : kMaxPairPlane)) return false;
  std::vector<std::vector<Pair>> pairs;
  std::vector<int64_t> taps;
  find_pairs(g, false, &pairs, &taps);
  return run_pairs(dout, w, dx, g, ConvEpilogue<T>{}, threads, false, pairs, taps, g.oh * g.ow,
                   g.h * g.w);
}

template <class T>
bool conv_forward_pairs(const T* x, const T* w, T* out, const ConvGeom& g,
                        const ConvEpilogue<T>& ep, int threads) {
  // NOTE: measured against the engine (one thread, batch 16): 256 @ 2 x 2 795 -> 492 us,
  // 512 @ 1 x 1 326 -> 220, 256 -> 512 stride 2 into 1 x 1 566 -> 328, 320 -> 1280 1 x 1 at
  // 1 x 1 272 -> 214; but from 4 x 4 inputs (stride 2) 398 -> 471 and 53 -> 146-164 us (the
  // channels-last copy of positions no pair reads), and 1 x 1 stride-1 kernels on 2 x 2 planes
  // (the engine's direct pointwise tile: 64 -> 384 46 -> 72 us) stay with the engine.
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1;
  if (!applies(g, g.oh * g.ow) || g.n < kMinForwardBatch || g.h * g.w > kMaxPairPlane ||
      (pointwise && g.h * g.w > 1)) {
    return false;
  }
  std::vector<std::vector<Pair>> pairs;
  std::vector<int64_t> taps;
  find_pairs(g, true, &pairs, &taps);
  return run_pairs(x, w, out, g, ep, threads, true, pairs, taps, g.h * g.w, g.oh * g.ow);
}

template bool conv_backprop_input_pairs<float>(const float*, const float*, float*,
                                               const ConvGeom&, int);
template bool conv_backprop_input_pairs<double>(const double*, const double*, double*,
                                                const ConvGeom&, int);
template bool conv_forward_pairs<float>(const float*, const float*, float*, const ConvGeom&,
                                        const ConvEpilogue<float>&, int);
template bool conv_forward_pairs<double>(const double*, const double*, double*,
                                         const ConvGeom&, const ConvEpilogue<double>&, int);

}  // namespace mindlite
