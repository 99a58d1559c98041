"""GEMMs of the CPU kernels (MatMul, BatchMatMul, the convolutions' column GEMMs): small
products on ONE BLAS thread, large ones split across mindlite's thread pool.

numpy's OpenBLAS threads every GEMM from M N K >= 2**19 on, and its worker threads then spin
for a while after each call: a training step of small GEMMs (the digits MLP's 64 x 64 x 128,
the CNN's 32 x 144 x 1024) kept the second core spinning, which slowed the step's own
elementwise kernels and every other process (measured on the 2-core machine, CNN step: main
thread 1.6 ms of CPU with one BLAS thread, 2.1-3.3 ms with OpenBLAS's choice, the process
4.3-6.8 ms). Below ST_MNK OpenBLAS's thread count is set to 1 for the call and restored after
it (csrc/bind/blas_bind.cc's enter / exit bracket). In numpy's pthreads OpenBLAS that setting
is process-wide: the bracket counts the GEMMs inside it across threads and restores the count
when the last one leaves, so concurrent calls never leave it changed, and another thread's
large GEMM run meanwhile takes one thread. From ST_MNK on, a 2-D float32 / float64 product
goes to the C++ GEMM (csrc/kernels/blas_gemm.cc), which splits its rows or columns across
mindlite's pool, each block one single-threaded cblas call, so OpenBLAS's own workers stay
asleep: the result is the single-threaded product's bits at any thread count.

The library is the OpenBLAS numpy loaded (found in /proc/self/maps); where there is none (an
MKL or Accelerate numpy, another OS) ATTACHED and GEMM are False and GEMMs run as numpy
decides.
"""
import os

import numpy as np

from ._cext import _C

# NOTE: 2**23 multiply-adds is ~0.2 ms on one AVX-512 core: above it a second thread's wake-up
# and spin cost little against the halved GEMM; 256 x 256 x 256 (2**24) keeps BLAS's choice.
ST_MNK = 1 << 23
_GEMM_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _loaded_openblas():
    """Path of numpy's OpenBLAS shared library in this process, or None. Where several
    OpenBLAS libraries are loaded (scipy ships its own), the one under numpy's install wins."""
    found = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = "/" + line.rstrip("\n").partition("/")[2]
                name = os.path.basename(path)
                if "openblas" in name.lower() and ".so" in name and path not in found:
                    found.append(path)
    except OSError:
        return None
    home = os.path.dirname(os.path.dirname(np.__file__))
    ours = [p for p in found if p.startswith(os.path.join(home, "numpy"))]
    return (ours or found or [None])[0]


OPENBLAS = _loaded_openblas()        # its path, found once
ATTACHED = bool(OPENBLAS) and _C.blas_attach(OPENBLAS)
# its cblas_sgemm / cblas_dgemm for the C++ GEMMs (csrc/kernels/blas_gemm.h: the recurrent
# layers, batch_gemm), with this module's one-thread limit
GEMM = bool(OPENBLAS) and _C.rnn_attach_blas(OPENBLAS)
_C.rnn_single_thread_below(ST_MNK)
_enter, _exit = _C.blas_single_enter, _C.blas_single_exit


def matmul(a, b, out, st_mnk=None):
    """out = a @ b (2-D or stacks of matrices, any strides BLAS takes without a copy,
    transposed views included), on one BLAS thread when each matrix product has fewer than
    st_mnk (default ST_MNK, read at the call) multiply-adds. A 2-D float32 / float64 product
    of that many (and ST_MNK) or more runs on the C++ GEMM instead (_C.batch_gemm: split
    across mindlite's thread pool, not OpenBLAS's threads, see csrc/kernels/blas_gemm.cc);
    smaller ones keep np.matmul's bits (numpy takes its own dot loops for vector-like shapes)."""
    limit = ST_MNK if st_mnk is None else st_mnk
    if GEMM and a.ndim == 2 and b.ndim == 2 and out.dtype in _GEMM_DTYPES \
            and a.shape[0] * a.shape[1] * b.shape[1] >= max(limit, ST_MNK) \
            and a.dtype == out.dtype and b.dtype == out.dtype and out.flags.c_contiguous \
            and _C.batch_gemm(a[None], b[None], out[None]):
        return
    if ATTACHED and a.ndim >= 2 and b.ndim >= 2 and a.shape[-2] * a.shape[-1] * b.shape[-1] \
            < limit:
        _enter()
        try:
            np.matmul(a, b, out=out)
        finally:
            _exit()
    else:
        np.matmul(a, b, out=out)


# NOTE: OpenBLAS runs a product of few rows against a transposed right operand (a Dense
# weight stored (N, K): x @ w.T) about 2x slower than the transposed problem w @ x.T, which
# gives the same bits (measured: 35 shapes M 8-128, N 256-4096, K 128-512, NN / NT / TN, float32:
# every one bit-identical; NT with M <= 16 took 0.53-0.62x the time, M = 64 1.0x, the other
# layouts 1.0-1.4x, so only NT with few rows flips). ResNet18's fc (16 x 512 -> 1000): 400 ->
# 220 us.
FEW_ROWS_NT = 32


def matmul_2d(a, b, out):
    """matmul(a, b, out) for MatMul: a product of at most FEW_ROWS_NT rows against a
    transposed right operand (b's rows contiguous in memory along its columns, as w.T) runs as
    the transposed problem (b.T @ a.T) into a scratch, then copied into out."""
    if a.ndim == 2 and b.ndim == 2 and a.shape[0] <= FEW_ROWS_NT and out.dtype in _GEMM_DTYPES \
            and a.dtype == out.dtype and b.dtype == out.dtype and b.shape[1] > 4 * a.shape[0] \
            and b.strides[0] == b.itemsize and b.strides[1] >= b.itemsize * b.shape[0] \
            and 1 << 14 <= a.shape[0] * a.shape[1] * b.shape[1] < ST_MNK:
        tmp = np.empty(out.shape[::-1], dtype=out.dtype)
        matmul(b.T, a.T, tmp)
        out[...] = tmp.T
        return
    matmul(a, b, out)


def batch_matmul(x, y, out):
    """out = x @ y for stacks of matrices (x (..., M, K), y (..., K, N), either 2-D to broadcast
    over the other's batch) on the attached BLAS in C++ (_C.batch_gemm): transposed views are
    read in place through BLAS's transpose flags, and a batch of small products splits across
    the thread pool, each product on one BLAS thread. Returns False (nothing written) where it
    does not apply: other dtypes, no BLAS, layouts BLAS cannot read, a broadcast batch."""
    if not GEMM or out.dtype not in _GEMM_DTYPES or x.dtype != out.dtype \
            or y.dtype != out.dtype or x.ndim < 2 or y.ndim < 2:
        return False
    batch = out.shape[:-2]
    n = 1
    for d in batch:
        n *= d
    x3, y3 = _stack3(x, batch, n), _stack3(y, batch, n)
    if x3 is None or y3 is None:
        return False
    return _C.batch_gemm(x3, y3, out.reshape((n,) + out.shape[-2:]))


def _stack3(a, batch, n):
    """a as (n or 1, rows, cols): a view where its batch dims merge (numpy's reshape copies
    otherwise), None for a batch that broadcasts."""
    if a.ndim == 2:
        return a[None]
    if a.shape[:-2] != batch:
        return None
    return a if a.ndim == 3 else a.reshape((n,) + a.shape[-2:])
