"""C++ kernels of RNNLayer / RNNLayerGrad (ops/operations/rnn_ops.py), float32 and float64:
a whole single-direction LSTM / GRU / RNN layer, and its back-propagation through time, in one
call of mindlite._C (csrc/kernels/rnn.cc, row gate loops per ISA in rnn_gates.inc, entry
points in csrc/bind/rnn_bind.cc). Same results as the numpy reference (rnn_numpy.py) to
rounding: the input projection of all steps is one GEMM, each step one GEMM for the recurrence
and one vectorised pass of the gate arithmetic, with no Python between the steps.

The GEMMs call the cblas_?gemm of the OpenBLAS numpy loaded (attached by _blas at import;
without one the C++ packed MatMul loop runs them). As _blas.matmul does, a GEMM below
_blas.ST_MNK multiply-adds (each step's recurrence at the usual sizes) runs on ONE BLAS thread,
a larger one (the input projection, dx, dW) split across mindlite's thread pool
(csrc/kernels/blas_gemm.cc).
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from . import _blas
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)
MODES = {"LSTM": 0, "GRU": 1, "RNN_TANH": 2, "RNN_RELU": 3}

BLAS = _blas.GEMM                     # attached by _blas at import


@register_kernel("RNNLayer", provider="cpp", dtypes=FLOATS, alloc="kernel")
def rnn_layer_cpp(x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask, mode):
    return _C.rnn_forward(MODES[mode], x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask)


@register_kernel("RNNLayerGrad", provider="cpp", dtypes=FLOATS, alloc="kernel")
def rnn_layer_grad_cpp(x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask, reserve, dy, dh_n, dc_n,
                       mode, need_dx=True):
    grads = _C.rnn_backward(MODES[mode], x, w_ih, w_hh, mask, reserve, dy, dh_n, dc_n, need_dx)
    return grads if need_dx else grads[1:]        # without dx (None: its GEMM skipped)
