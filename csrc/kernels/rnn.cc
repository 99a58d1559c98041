// Time loops of the fused recurrent layers (see rnn.h). Forward: proj = x W_ih^T for all T N rows
// (the gate loops add the biases); per step t one GEMM adds h W_hh^T into proj[t] (LSTM, RNN; GRU
// writes it to its own buffer, its n gate needs r (h W_hn^T + b_hn)), then the gate loop of every
// sample. On a large layer the projection runs in two halves of its rows and the time loop in two
// blocks of samples, each on its own thread (a sample's state never meets another's); the blocks
// are a rule of the shapes, so the results do not depend on the threads. Backward walks the steps
// in reverse: the gate loop writes d_in[t] (and GRU's d_rec[t]) and leaves in dh what reaches the
// previous state directly, then one GEMM adds d_rec[t] W_hh; one GEMM each gives dx (skipped when
// dx is null), dW_ih and dW_hh (h_prev is read in place from the reserve), and column sums the
// bias gradients. On a large layer those GEMMs run in about four chunks of steps on a second
// thread while the steps go on (ChunkQueue, kernels/rnn_overlap.h), the caller sharing what is
// left when its steps are done; the order of dW's sum is fixed either way. The per-step GEMMs
// (h W_hh^T, d_rec[t] W_hh) run on rnn_gemm.inc's kernel over W_hh packed once per call.
#include "kernels/rnn.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/blas_gemm.h"
#include "kernels/rnn_overlap.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

using rnn_overlap::ChunkQueue;
using rnn_overlap::run_two;
using rnn_overlap::t_single;

constexpr int64_t kMinBlock = 8;  // samples of a block of the forward's time loop

int64_t g_overlap_mnk = int64_t{1} << 22;  // layers of at least this much GEMM work overlap

// C (m x n, row stride ldc) = op(A) op(B) + beta C on the attached BLAS (kernels/blas_gemm.h),
// on one BLAS thread when small or while the layer's two threads overlap (t_single).
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  blas_gemm<T>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc, t_single);
}

// A work buffer of n elements, left uninitialised (every element is written before read).
template <class T>
std::unique_ptr<T[]> buffer(int64_t n) {
  return std::unique_ptr<T[]>(new T[static_cast<size_t>(n > 0 ? n : 1)]);
}

// A second thread for a large layer, unless mindlite's thread count is forced to 1
// (set_num_threads) or the process may use one CPU; the results never depend on it.
bool two_threads() { return max_threads() >= 2 && get_num_threads() != 1; }

// Steps per task when a layer of `work` GEMM multiply-adds overlaps (about 4 tasks), else all.
int64_t chunk_steps(int64_t steps, int64_t work) {
  return steps >= 2 && work >= g_overlap_mnk ? (steps + 3) / 4 : (steps > 0 ? steps : 1);
}

// out[j] = sum over rows of a (rows x cols, contiguous), accumulated in double.
template <class T>
void column_sums(const T* a, int64_t rows, int64_t cols, T* out) {
  std::vector<double> acc(static_cast<size_t>(cols), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    const T* ar = a + r * cols;
    for (int64_t j = 0; j < cols; ++j) acc[j] += ar[j];
  }
  for (int64_t j = 0; j < cols; ++j) out[j] = static_cast<T>(acc[j]);
}

}  // namespace

int rnn_gates_per_mode(int mode) { return mode == kRnnLstm ? 4 : mode == kRnnGru ? 3 : 1; }

int rnn_reserve_width(int mode) { return mode == kRnnLstm ? 7 : mode == kRnnGru ? 5 : 2; }

void rnn_set_blas(void* sgemm, void* dgemm, bool ilp64, void* threads_local) {
  blas_gemm_attach(sgemm, dgemm, ilp64, threads_local);
}

void rnn_set_single_thread_below(int64_t mnk) { blas_gemm_set_single_below(mnk); }

void rnn_set_overlap_above(int64_t mnk) { g_overlap_mnk = mnk; }

bool rnn_blas_attached() { return blas_gemm_attached(); }

template <class T>
void rnn_forward(int mode, const RnnDims& d, const T* x, const T* h0, const T* c0,
                 const T* w_ih, const T* w_hh, const T* b_ih, const T* b_hh, const T* mask,
                 T* y, T* hn, T* cn, T* reserve) {
  const int64_t H = d.h, N = d.n, gh = rnn_gates_per_mode(mode) * H;
  const int64_t wid = rnn_reserve_width(mode) * H, rows = d.t * N;
  const RnnGateFns<T>& fns = rnn_gate_fns<T>();
  std::copy(h0, h0 + N * H, hn);
  std::copy(c0, c0 + N * H, cn);
  auto proj = buffer<T>(rows * gh);
  // A large layer: the projection in two halves of its rows, then the time loop in two blocks
  // of samples (a sample's state never meets another's), each on its own thread. The blocks
  // are a rule of the shapes alone, so the results do not depend on the threads.
  const bool split = d.t >= 2 && N >= 2 * kMinBlock && rows * gh * (d.i + H) >= g_overlap_mnk;
  const bool threads = split && two_threads();
  auto project = [=, p = proj.get()](int64_t r0, int64_t r1) {
    gemm<T>(false, true, r1 - r0, gh, d.i, x + r0 * d.i, d.i, w_ih, d.i, T(0), p + r0 * gh, gh);
  };
  const int64_t half = split ? rows / 2 : rows;
  run_two(threads, [&] { project(0, half); }, [&] { project(half, rows); });
  // the gate loops add the biases: b_ih + b_hh, except GRU's n part, b_ih only there (b_hn
  // goes inside r * (h W_hn^T + b_hn))
  std::vector<T> bias(b_ih, b_ih + gh);
  const int64_t fold = mode == kRnnGru ? 2 * H : gh;
  for (int64_t j = 0; j < fold; ++j) bias[j] += b_hh[j];
  auto rec = buffer<T>(mode == kRnnGru ? N * gh : 0);
  const bool relu = mode == kRnnRelu;
  // W_hh packed once for the per-step GEMMs (rnn_gemm.inc): OpenBLAS repacked it every call
  auto whp = buffer<T>(fns.packed_size(gh, H));
  fns.pack_bt(w_hh, gh, H, whp.get());
  auto steps = [&](int64_t s0, int64_t s1) {       // samples [s0, s1), every step
    const int64_t n = s1 - s0;
    T* hb = hn + s0 * H;
    for (int64_t t = 0; t < d.t; ++t) {
      T* pre = proj.get() + (t * N + s0) * gh;
      const T* m = mask + t * N;
      T* res = reserve + t * N * wid;
      T* yt = y + t * N * H;
      if (mode == kRnnGru) {
        T* rb = rec.get() + s0 * gh;
        fns.gemm_packed(hb, H, whp.get(), n, gh, H, rb, gh, false);
        for (int64_t s = s0; s < s1; ++s) {
          fns.gru_fwd(pre + (s - s0) * gh, bias.data(), rb + (s - s0) * gh, b_hh + 2 * H,
                      hn + s * H, res + s * wid, yt + s * H, m[s], H);
        }
        continue;
      }
      fns.gemm_packed(hb, H, whp.get(), n, gh, H, pre, gh, true);
      for (int64_t s = s0; s < s1; ++s) {
        T* ps = pre + (s - s0) * gh;
        if (mode == kRnnLstm) {
          fns.lstm_fwd(ps, bias.data(), hn + s * H, cn + s * H, res + s * wid, yt + s * H, m[s],
                       H);
        } else {
          fns.rnn_fwd(ps, bias.data(), hn + s * H, res + s * wid, yt + s * H, m[s], relu, H);
        }
      }
    }
  };
  const int64_t n0 = split ? N / 2 : N;
  run_two(threads, [&] { steps(0, n0); }, [&] { steps(n0, N); });
}

template <class T>
void rnn_backward(int mode, const RnnDims& d, const T* x, const T* w_ih, const T* w_hh,
                  const T* mask, const T* reserve, const T* dy, const T* dh_n, const T* dc_n,
                  T* dx, T* dh0, T* dc0, T* dw_ih, T* dw_hh, T* db_ih, T* db_hh) {
  const int64_t H = d.h, N = d.n, gh = rnn_gates_per_mode(mode) * H;
  const int64_t wid = rnn_reserve_width(mode) * H, rows = d.t * N;
  const RnnGateFns<T>& fns = rnn_gate_fns<T>();
  T* dh = dh0;  // the running gradients of the state, left as dh0 / dc0 at the end
  T* dc = dc0;
  std::copy(dh_n, dh_n + N * H, dh);
  std::copy(dc_n, dc_n + N * H, dc);
  auto d_in_buf = buffer<T>(rows * gh);
  auto d_rec_buf = buffer<T>(mode == kRnnGru ? rows * gh : 0);
  T* d_in = d_in_buf.get();
  T* d_rec = mode == kRnnGru ? d_rec_buf.get() : d_in;
  const bool relu = mode == kRnnRelu;
  // dx and the weight gradients of steps [a, b), added to those of the later steps: on the
  // second thread while the earlier steps run (one call at the end when the layer is small)
  const int64_t chunk = chunk_steps(d.t, rows * gh * (d.i + H));
  auto dx_of = [=](int64_t a, int64_t b) {
    if (!dx) return;
    const int64_t r0 = a * N, nr = (b - a) * N;
    gemm<T>(false, false, nr, d.i, gh, d_in + r0 * gh, gh, w_ih, d.i, T(0), dx + r0 * d.i, d.i);
  };
  auto dw_ih_of = [=](int64_t a, int64_t b, T beta) {
    const int64_t r0 = a * N, nr = (b - a) * N;
    gemm<T>(true, false, gh, d.i, nr, d_in + r0 * gh, gh, x + r0 * d.i, d.i, beta, dw_ih, d.i);
  };
  auto dw_hh_of = [=](int64_t a, int64_t b, T beta) {
    const int64_t r0 = a * N, nr = (b - a) * N;
    gemm<T>(true, false, gh, H, nr, d_rec + r0 * gh, gh, reserve + r0 * wid, wid, beta, dw_hh,
            H);  // h_prev, read in place from the reserve
  };
  if (d.t == 0) {  // zero weight gradients
    dw_ih_of(0, 0, T(0));
    dw_hh_of(0, 0, T(0));
  }
  auto whp = buffer<T>(fns.packed_size(H, gh));     // W_hh (gh x H) packed for dh += d W_hh
  fns.pack_b(w_hh, gh, H, whp.get());
  ChunkQueue jobs(chunk < d.t && two_threads());   // off: each job at once, the same order
  for (int64_t t = d.t - 1; t >= 0; --t) {
    const T* m = mask + t * N;
    const T* res = reserve + t * N * wid;
    const T* dyt = dy + t * N * H;
    T* din = d_in + t * N * gh;
    T* drec = d_rec + t * N * gh;
    for (int64_t s = 0; s < N; ++s) {
      if (mode == kRnnLstm) {
        fns.lstm_bwd(res + s * wid, dyt + s * H, dh + s * H, dc + s * H, din + s * gh, m[s], H);
      } else if (mode == kRnnGru) {
        fns.gru_bwd(res + s * wid, dyt + s * H, dh + s * H, din + s * gh, drec + s * gh, m[s],
                    H);
      } else {
        fns.rnn_bwd(res + s * wid, dyt + s * H, dh + s * H, din + s * gh, m[s], relu, H);
      }
    }
    fns.gemm_packed(drec, gh, whp.get(), N, H, gh, dh, H, true);
    if (t % chunk == 0) {
      const int64_t b = std::min(d.t, t + chunk);
      const T beta = b == d.t ? T(0) : T(1);  // the first task (the last steps) writes
      jobs.push(ChunkQueue::kAny, [=] { dx_of(t, b); });
      jobs.push(ChunkQueue::kFirst, [=] { dw_ih_of(t, b, beta); });
      jobs.push(ChunkQueue::kSecond, [=] { dw_hh_of(t, b, beta); });
    }
  }
  jobs.finish();
  column_sums(d_in, rows, gh, db_ih);
  if (d_rec == d_in) {
    std::copy(db_ih, db_ih + gh, db_hh);  // LSTM, RNN: both biases see the same d_in
  } else {
    column_sums(d_rec, rows, gh, db_hh);
  }
}

#define ML_RNN_INSTANTIATE(T)                                                                 \
  template void rnn_forward<T>(int, const RnnDims&, const T*, const T*, const T*, const T*,  \
                               const T*, const T*, const T*, const T*, T*, T*, T*, T*);      \
  template void rnn_backward<T>(int, const RnnDims&, const T*, const T*, const T*, const T*, \
                                const T*, const T*, const T*, const T*, T*, T*, T*, T*, T*,  \
                                T*, T*);
ML_RNN_INSTANTIATE(float)
ML_RNN_INSTANTIATE(double)
#undef ML_RNN_INSTANTIATE

}  // namespace mindlite
