// GEMMs on the OpenBLAS numpy loaded, called from C++ (the recurrent layers, BatchMatMul).
//
// kernels/cpu/rnn_cpp.py finds the library (kernels/cpu/_blas.py's OPENBLAS) and attaches its
// cblas_sgemm / cblas_dgemm here once at import (_C.rnn_attach_blas). Without one, blas_gemm
// falls back to the packed MatMul loop (kernels/matmul.h) and batch_gemm reports false.
// A GEMM of fewer than the single-thread limit's multiply-adds (default 2**23, as _blas.py's
// ST_MNK), or one asked to, runs on one BLAS thread inside the counted bracket of
// kernels/blas_threads.h.
#pragma once

#include <cstdint>

namespace mindlite {

void blas_gemm_attach(void* sgemm, void* dgemm, bool ilp64, void* threads_local);
bool blas_gemm_attached();
void blas_gemm_set_single_below(int64_t mnk);
// The library's openblas_get_num_threads: a large product splits across at most that many
// of mindlite's threads, so OPENBLAS_NUM_THREADS=1 (or threadpoolctl's limit) keeps every
// GEMM on the calling thread.
void blas_gemm_set_thread_query(void* get_num_threads);

// C (m x n, row stride ldc) = op(A) op(B) + beta C, row-major; A is (m x k) with row stride
// lda, or (k x m) when ta; B (k x n) / (n x k) when tb. single: on one BLAS thread.
template <class T>
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
               const T* b, int64_t ldb, T beta, T* c, int64_t ldc, bool single);

// One operand of a batched product: batch b's matrix starts at data + b * batch_stride (bytes;
// 0 broadcasts one matrix), rows ld elements apart, transposed when trans.
struct GemmOperand {
  const char* data;
  int64_t batch_stride;
  int64_t ld;
  bool trans;
};

// out[b] (m x n, C-contiguous, batches m n apart) = A[b] B[b] for b < batches, float32
// (dt 0) or float64 (dt 1). Batches of small products split across the thread pool, each
// product on one BLAS thread (a product never splits K: the same bits on any thread count).
// False, with nothing written, when no BLAS is attached.
bool batch_gemm(int dt, int64_t batches, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                const GemmOperand& b, char* out);

}  // namespace mindlite
