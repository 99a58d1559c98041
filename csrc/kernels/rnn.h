// Fused recurrent layers (RNNLayer / RNNLayerGrad, mindlite/ops/operations/rnn_ops.py): one
// single-direction LSTM / GRU / Elman RNN layer over every time step, forward and backward
// (back-propagation through time), each one call. rnn.cc runs the time loops: the input
// projection of all steps is one GEMM before the loop, each step one GEMM for the recurrence
// and one pass of the row gate loops (rnn_gates.inc, compiled per ISA in rnn_isa.cc on the
// vector math of simd_math.h). The per-step GEMMs run on rnn_gemm.inc's kernel over W_hh packed
// once per call; the others go to the OpenBLAS numpy loaded when rnn_set_blas attached its
// cblas_?gemm (bind/rnn_bind.cc), else to run_matmul's packed loop (kernels/matmul.h).
// Layouts as rnn_ops.py says: x (T, N, I), weights (G H, I) / (G H, H) in PyTorch's gate order,
// mask (T, N), reserve (T, N, W H) with W = 7 (LSTM), 5 (GRU), 2 (RNN).
#pragma once

#include <cstdint>

namespace mindlite {

enum RnnMode : int { kRnnLstm = 0, kRnnGru, kRnnTanh, kRnnRelu, kNumRnnModes };

struct RnnDims {
  int64_t t, n, i, h;  // steps, batch, input features, hidden size
};

// Gates per mode (G) and reserve columns per step in units of H (W).
int rnn_gates_per_mode(int mode);
int rnn_reserve_width(int mode);

// The row loops of one sample at one step, for element type T (see rnn_gates.inc for what
// each reads and writes). `m` is the sample's mask at the step: m > 0 is inside its sequence.
template <class T>
struct RnnGateFns {
  void (*lstm_fwd)(const T* pre, const T* bias, T* h, T* c, T* res, T* y, T m, int64_t hid);
  void (*gru_fwd)(const T* pre, const T* bias, const T* rec, const T* b_hn, T* h, T* res, T* y,
                  T m, int64_t hid);
  void (*rnn_fwd)(const T* pre, const T* bias, T* h, T* res, T* y, T m, bool relu,
                  int64_t hid);
  void (*lstm_bwd)(const T* res, const T* dy, T* dh, T* dc, T* d_in, T m, int64_t hid);
  void (*gru_bwd)(const T* res, const T* dy, T* dh, T* d_in, T* d_rec, T m, int64_t hid);
  void (*rnn_bwd)(const T* res, const T* dy, T* dh, T* d_in, T m, bool relu, int64_t hid);
  // the recurrence's GEMMs over a weight packed once (rnn_gemm.inc): panels of `panel`
  // columns; pack_bt packs W (n x k) for A W^T, pack_b W (k x n) for A W, into
  // packed_size(n, k) elements; gemm_packed: C = A times it, or C += it when acc
  int64_t panel;
  void (*pack_bt)(const T* w, int64_t n, int64_t k, T* wp);
  void (*pack_b)(const T* w, int64_t k, int64_t n, T* wp);
  void (*gemm_packed)(const T* a, int64_t lda, const T* wp, int64_t m, int64_t n, int64_t k,
                      T* c, int64_t ldc, bool acc);
  int64_t packed_size(int64_t n, int64_t k) const { return (n + panel - 1) / panel * panel * k; }
};

// The loops of the ISA kernel_isa() names (rnn_isa.cc).
template <class T>
const RnnGateFns<T>& rnn_gate_fns();

// cblas_sgemm / cblas_dgemm of an OpenBLAS already loaded (null: use run_matmul); ilp64 when
// their integer arguments are 64-bit; threads_local: its openblas_set_num_threads_local (or
// null), with which a GEMM of fewer than rnn_set_single_thread_below's multiply-adds (default
// 2**23, as kernels/cpu/_blas.py) runs on one thread (the counted bracket of
// kernels/blas_threads.h, which threads_local is attached to) and a larger one on the
// library's count. Set once at import, before any layer runs.
void rnn_set_blas(void* sgemm, void* dgemm, bool ilp64, void* threads_local);
void rnn_set_single_thread_below(int64_t mnk);
// A layer of at least mnk GEMM multiply-adds overlaps its projection / weight-gradient GEMMs
// with its time loop on a second thread (default 2**22).
void rnn_set_overlap_above(int64_t mnk);
bool rnn_blas_attached();

// y (T, N, H), hn / cn (N, H), reserve (T, N, W H): all written. c0 is read for LSTM only
// (cn = c0 otherwise). Every pointer C-contiguous, shapes already validated.
template <class T>
void rnn_forward(int mode, const RnnDims& d, const T* x, const T* h0, const T* c0,
                 const T* w_ih, const T* w_hh, const T* b_ih, const T* b_hh, const T* mask,
                 T* y, T* hn, T* cn, T* reserve);

// Gradients of rnn_forward from its reserve: dx (T, N, I), dh0, dc0 (N, H), dw_ih, dw_hh,
// db_ih, db_hh (shapes of the weights); all written. dx may be null: its GEMM is skipped (a
// layer whose input needs no gradient, such as the first layer on data).
template <class T>
void rnn_backward(int mode, const RnnDims& d, const T* x, const T* w_ih, const T* w_hh,
                  const T* mask, const T* reserve, const T* dy, const T* dh_n, const T* dc_n,
                  T* dx, T* dh0, T* dc0, T* dw_ih, T* dw_hh, T* db_ih, T* db_hh);

}  // namespace mindlite
