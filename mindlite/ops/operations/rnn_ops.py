"""Fused recurrent layers: RNNLayer runs a whole single-direction layer (LSTM, GRU, or an
Elman RNN with tanh/relu) over every time step in one kernel, RNNLayerGrad its backward
(back-propagation through time) in one kernel; nn.LSTM / GRU / RNN (nn/layer/rnn.py) stack
them per layer and direction. One tape node per layer, not one per small op per step.

Inputs: x (T, N, I), h0 (N, H), c0 (N, H) (LSTM's cell state; ignored otherwise), w_ih
(G H, I), w_hh (G H, H), b_ih (G H), b_hh (G H), mask (T, N): 1 where step t is inside
sample n's sequence (a state is carried unchanged past the end and the output there is 0).
G = 4 (LSTM gates i, f, g, o), 3 (GRU r, z, n), 1 (RNN), PyTorch's and MindSpore's layouts.
Outputs: y (T, N, H), h_n, c_n (N, H), and `reserve` (T, N, K): what the backward needs.
Kernels: kernels/cpu/rnn_cpp.py (C++ time loops, csrc/kernels/rnn.cc: the input projection
of all steps as one GEMM, one GEMM and one SIMD gate pass per step) and the numpy reference
kernels/cpu/rnn_numpy.py.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_dtype, tensor
from ._base import cached_prim, needs_grad

__all__ = ["RNNLayer", "RNNLayerGrad", "GATES", "RESERVE_WIDTH"]

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
# reserve columns per step, in units of H: LSTM h_prev, c_prev, i, f, g, o, c;
# GRU h_prev, r, z, n, hn; RNN h_prev, h
RESERVE_WIDTH = {"LSTM": 7, "GRU": 5, "RNN_TANH": 2, "RNN_RELU": 2}


def _check_mode(prim, mode):
    if mode not in GATES:
        raise ValueError(f"For '{prim.name}', 'mode' must be one of {sorted(GATES)}, but got "
                         f"{mode!r}")


class RNNLayer(Primitive):
    input_names = ("x", "h0", "c0", "w_ih", "w_hh", "b_ih", "b_hh", "mask")
    # the reserve's gradient is never read (rnn_layer_bprop): the tape passes None for it
    # rather than zeros of its (T, N, 7H) shape (7 MiB a step for an LSTM of hidden 128)
    unused_douts = (3,)

    @prim_attr_register
    def __init__(self, mode="LSTM"):
        _check_mode(self, mode)

    def infer(self, x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        g = GATES[self.attrs["mode"]]
        if len(x.shape) != 3:
            raise ValueError(f"For '{self.name}', 'x' must be (T, N, I), but got {x.shape}")
        t, n, i = x.shape
        h = h0.shape[-1] if len(h0.shape) == 2 else -1
        want = {"h0": (n, h), "c0": (n, h), "w_ih": (g * h, i), "w_hh": (g * h, h),
                "b_ih": (g * h,), "b_hh": (g * h,), "mask": (t, n)}
        for name, arr in (("h0", h0), ("c0", c0), ("w_ih", w_ih), ("w_hh", w_hh),
                          ("b_ih", b_ih), ("b_hh", b_hh), ("mask", mask)):
            if tuple(arr.shape) != want[name]:
                raise ValueError(f"For '{self.name}', '{name}' must have shape {want[name]}, but "
                                 f"got {tuple(arr.shape)}")
            if arr.dtype is not x.dtype:
                raise TypeError(f"For '{self.name}', '{name}' must have the dtype of 'x' "
                                f"({x.dtype}), but got {arr.dtype}")
        width = RESERVE_WIDTH[self.attrs["mode"]] * h
        return (tensor(x.dtype, (t, n, h)), h0, h0, tensor(x.dtype, (t, n, width)))


    def kernel_params(self, *inputs):
        return {"mode": self.attrs["mode"]}


class RNNLayerGrad(Primitive):
    """Gradients of RNNLayer: (dx, dh0, dc0, dw_ih, dw_hh, db_ih, db_hh). need_dx=False leaves
    dx out (six outputs, from dh0 on) and its GEMM, about a sixth of the backward's GEMM work,
    undone: the bprop asks for that when x needs no gradient (a first layer on data)."""
    input_names = ("x", "h0", "c0", "w_ih", "w_hh", "b_ih", "b_hh", "mask", "reserve", "dy",
                   "dh_n", "dc_n")

    @prim_attr_register
    def __init__(self, mode="LSTM", need_dx=True):
        _check_mode(self, mode)
        check_bool(self, "need_dx", need_dx)

    def infer(self, x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask, reserve, dy, dh_n, dc_n):
        grads = (h0, c0, w_ih, w_hh, b_ih, b_hh)
        return (x,) + grads if self.attrs["need_dx"] else grads

    def kernel_params(self, *inputs):
        return {"mode": self.attrs["mode"], "need_dx": self.attrs["need_dx"]}


@bprop_for(RNNLayer)
def rnn_layer_bprop(prim, x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask, out, dout):
    _, _, _, reserve = out
    dy, dh_n, dc_n, _ = dout
    if needs_grad(x):
        grads = cached_prim(RNNLayerGrad, prim.attrs["mode"], True)(
            x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask, reserve, dy, dh_n, dc_n)
        return tuple(grads) + (None,)
    grads = cached_prim(RNNLayerGrad, prim.attrs["mode"], False)(
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask, reserve, dy, dh_n, dc_n)
    return (None,) + tuple(grads) + (None,)


# second order through a recurrent layer is not supported (MindSpore's LSTMGrad has no bprop)
non_differentiable(RNNLayerGrad)
