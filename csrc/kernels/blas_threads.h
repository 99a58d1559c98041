// The one count of GEMMs that run on a single OpenBLAS thread, shared by the Python GEMMs
// (bind/blas_bind.cc: _C.blas_single_enter / exit) and the recurrent layers' GEMMs
// (kernels/rnn.cc), which run without the GIL and on two threads when a layer overlaps.
// NOTE: openblas_set_num_threads_local sets the PROCESS-wide count in the pthreads OpenBLAS
// numpy ships, so callers that each save and restore it interleave (set 1 / set 1 /
// restore N / restore 1) and leave it at 1 for good; one counted bracket under a mutex sets
// 1 when the first GEMM enters and restores the saved count when the last one leaves.
#pragma once

namespace mindlite {

using BlasSetThreadsFn = int (*)(int);

// Attach openblas_set_num_threads_local (null: nothing to control); the last one wins.
void blas_threads_attach(BlasSetThreadsFn fn);
BlasSetThreadsFn blas_threads_fn();

// Bracket a GEMM that is to run on one BLAS thread (any thread, with or without the GIL).
void blas_single_enter();
void blas_single_exit();

}  // namespace mindlite
