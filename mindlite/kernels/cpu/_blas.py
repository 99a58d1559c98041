"""GEMMs of the CPU kernels (MatMul, BatchMatMul, the convolutions' column GEMMs): np.matmul,
run on ONE BLAS thread below ST_MNK multiply-adds per matrix.

numpy's OpenBLAS threads every GEMM from M N K >= 2**19 on, and its worker threads then spin
for a while after each call: a training step of small GEMMs (the digits MLP's 64 x 64 x 128,
the CNN's 32 x 144 x 1024) kept the second core spinning, which slowed the step's own
elementwise kernels and every other process (measured on the 2-core machine, CNN step: main
thread 1.6 ms of CPU with one BLAS thread, 2.1-3.3 ms with OpenBLAS's choice, the process
4.3-6.8 ms). Below ST_MNK OpenBLAS's thread count is set to 1 for the call and restored after
it (csrc/bind/blas_bind.cc's enter / exit bracket). In numpy's pthreads OpenBLAS that setting
is process-wide: the bracket counts the GEMMs inside it across threads and restores the count
when the last one leaves, so concurrent calls never leave it changed, and another thread's
large GEMM run meanwhile takes one thread. A GEMM splits M or N across threads, never K, so
the result is the same on one thread or two.

The library is the OpenBLAS numpy loaded (found in /proc/self/maps); where there is none (an
MKL or Accelerate numpy, another OS) ATTACHED is False and GEMMs run as numpy decides.
"""
import os

import numpy as np

from ._cext import _C

# NOTE: 2**23 multiply-adds is ~0.2 ms on one AVX-512 core: above it a second thread's wake-up
# and spin cost little against the halved GEMM; 256 x 256 x 256 (2**24) keeps BLAS's choice.
ST_MNK = 1 << 23


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


OPENBLAS = _loaded_openblas()        # its path, found once (rnn_cpp.py attaches to it too)
ATTACHED = bool(OPENBLAS) and _C.blas_attach(OPENBLAS)
_enter, _exit = _C.blas_single_enter, _C.blas_single_exit


def matmul(a, b, out, st_mnk=None):
    """out = a @ b (np.matmul: 2-D or stacks of matrices, any strides BLAS takes without a
    copy, transposed views included), on one BLAS thread when each matrix product has fewer
    than st_mnk (default ST_MNK, read at the call) multiply-adds."""
    if ATTACHED and a.ndim >= 2 and b.ndim >= 2 and a.shape[-2] * a.shape[-1] * b.shape[-1] \
            < (ST_MNK if st_mnk is None else st_mnk):
        _enter()
        try:
            np.matmul(a, b, out=out)
        finally:
            _exit()
    else:
        np.matmul(a, b, out=out)
