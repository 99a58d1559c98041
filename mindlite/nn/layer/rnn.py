"""Recurrent layers (mindspore.nn): RNN, LSTM, GRU (multi-layer, bidirectional, batch_first,
initial states, per-sample `seq_length`) and the one-step RNNCell, LSTMCell, GRUCell.

Each layer and direction is one fused RNNLayer primitive (ops/operations/rnn_ops.py): the time
loop runs inside its kernel, and its backward is one RNNLayerGrad kernel. The reverse
direction runs the same primitive on each sequence reversed within its own length. Parameter
names, shapes, gate orders and the U(-1/sqrt(H), 1/sqrt(H)) initialisation are MindSpore's
(= PyTorch's): weight_ih_l{k}[_reverse] (G H, in), weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}.
Outputs: (output, h_n) for RNN / GRU, (output, (h_n, c_n)) for LSTM; states (layers
directions, N, H).
"""
import math
import numbers

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import Uniform, initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.operations.rnn_ops import GATES, RNNLayer
from ..cell import Cell

__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]


def _int(cls, name, value, low=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"For '{cls}', '{name}' must be an int >= {low}, but got {value!r}")
    return int(value)


def _bool(cls, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(value).__name__}")
    return value


class _RNNBase(Cell):
    mode = None

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        self.input_size = _int(cls, "input_size", input_size)
        self.hidden_size = _int(cls, "hidden_size", hidden_size)
        self.num_layers = _int(cls, "num_layers", num_layers)
        self.has_bias = _bool(cls, "has_bias", has_bias)
        self.batch_first = _bool(cls, "batch_first", batch_first)
        self.bidirectional = _bool(cls, "bidirectional", bidirectional)
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Real) \
                or not 0.0 <= dropout < 1.0:
            raise ValueError(f"For '{cls}', 'dropout' must be in [0, 1), but got {dropout!r}")
        self.dropout = float(dropout)
        self.num_directions = 2 if bidirectional else 1
        g, h = GATES[self.mode], self.hidden_size
        init = Uniform(1.0 / math.sqrt(h))
        self._layers = []
        for k in range(self.num_layers):
            for d in range(self.num_directions):
                suffix = f"_l{k}" + ("_reverse" if d else "")
                in_size = self.input_size if k == 0 else h * self.num_directions
                names = [f"weight_ih{suffix}", f"weight_hh{suffix}", f"bias_ih{suffix}",
                         f"bias_hh{suffix}"]
                shapes = [(g * h, in_size), (g * h, h), (g * h,), (g * h,)]
                params = []
                for name, shape in zip(names, shapes):
                    if name.startswith("bias") and not has_bias:
                        p = Tensor(np.zeros(shape, dtype.np))
                    else:
                        p = Parameter(initializer(init, shape, dtype), name=name)
                        setattr(self, name, p)
                    params.append(p)
                self._layers.append(tuple(params))
        self.prim = RNNLayer(self.mode)

    def _weights(self, k, d):
        w_ih, w_hh, b_ih, b_hh = self._layers[k * self.num_directions + d]
        if isinstance(w_ih, Parameter):          # read live (set_data, loading replace them)
            names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
            suffix = f"_l{k}" + ("_reverse" if d else "")
            return tuple(getattr(self, n + suffix) if isinstance(p, Parameter) else p
                         for n, p in zip(names, (w_ih, w_hh, b_ih, b_hh)))
        return w_ih, w_hh, b_ih, b_hh

    def _states(self, hx, n, dtype):
        shape = (self.num_layers * self.num_directions, n, self.hidden_size)
        if hx is None:
            zeros = Tensor(np.zeros(shape, dtype.np))
            return (zeros, zeros) if self.mode == "LSTM" else zeros
        for s in (hx if isinstance(hx, tuple) else (hx,)):
            if not isinstance(s, Tensor) or s.shape != shape:
                raise ValueError(f"For '{type(self).__name__}', each initial state must have "
                                 f"shape {shape}, but got {getattr(s, 'shape', s)!r}")
        return hx

    def construct(self, x, hx=None, seq_length=None):
        cls = type(self).__name__
        if not isinstance(x, Tensor) or x.ndim != 3 or x.shape[-1] != self.input_size:
            raise ValueError(f"For '{cls}', 'x' must be a 3-D Tensor with {self.input_size} "
                             f"features, but got {getattr(x, 'shape', type(x).__name__)}")
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        t_len, n = x.shape[0], x.shape[1]
        lengths = np.full(n, t_len, np.int64) if seq_length is None else np.asarray(
            seq_length.asnumpy() if isinstance(seq_length, Tensor) else seq_length,
            np.int64).reshape(-1)
        if lengths.shape != (n,) or (lengths < 0).any() or (lengths > t_len).any():
            raise ValueError(f"For '{cls}', 'seq_length' must hold {n} lengths in [0, {t_len}], "
                             f"but got {lengths.tolist()}")
        mask = Tensor((np.arange(t_len)[:, None] < lengths[None, :]).astype(x.dtype.np))
        # per-sample reversal within each length: index (T, N, 1) for gather_elements
        rev = np.arange(t_len)[:, None].repeat(n, 1)
        rev = np.where(rev < lengths[None, :], lengths[None, :] - 1 - rev, rev)
        rev_idx = None
        states = self._states(hx, n, x.dtype)
        h_all, c_all = (states if self.mode == "LSTM" else (states, states))
        h_out, c_out = [], []
        layer_in = x
        for k in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                j = k * self.num_directions + d
                inp = layer_in
                if d:
                    if rev_idx is None:
                        rev_idx = Tensor(rev)
                    inp = _reverse(layer_in, rev_idx)
                y, h_n, c_n, _ = self.prim(inp, h_all[j], c_all[j], *self._weights(k, d), mask)
                outs.append(_reverse(y, rev_idx) if d else y)
                h_out.append(h_n)
                c_out.append(c_n)
            layer_in = outs[0] if len(outs) == 1 else ops.concat(tuple(outs), 2)
            if self.dropout and self.training and k < self.num_layers - 1:
                layer_in = ops.dropout(layer_in, self.dropout)
        out = ops.transpose(layer_in, (1, 0, 2)) if self.batch_first else layer_in
        h_n = ops.stack(tuple(h_out), 0)
        if self.mode == "LSTM":
            return out, (h_n, ops.stack(tuple(c_out), 0))
        return out, h_n

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"num_layers={self.num_layers}, has_bias={self.has_bias}, "
                f"batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")


def _reverse(seq, idx):
    """seq (T, N, F) with each sample's first length steps reversed (idx from construct)."""
    index = ops.broadcast_to(ops.expand_dims(idx, 2), seq.shape)
    return ops.gather_elements(seq, 0, index)


class LSTM(_RNNBase):
    mode = "LSTM"


class GRU(_RNNBase):
    mode = "GRU"


class RNN(_RNNBase):
    """nonlinearity 'tanh' (default) or 'relu'."""

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNN', 'nonlinearity' must be 'tanh' or 'relu', but got "
                             f"{nonlinearity!r}")
        # set before Cell.__init__ (the parameters' gate count depends on it)
        object.__setattr__(self, "mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        super().__init__(*args, **kwargs)
        self.nonlinearity = nonlinearity


class _CellBase(_RNNBase):
    """One step: x (N, I) or (I,), hx (N, H) (a tuple (h, c) for LSTMCell)."""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__(input_size, hidden_size, 1, has_bias, dtype=dtype)
        # the one-step cells name their parameters without the layer suffix
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            if hasattr(self, name + "_l0") and isinstance(getattr(self, name + "_l0"), Parameter):
                p = getattr(self, name + "_l0")
                delattr(self, name + "_l0")
                p.name = name
                setattr(self, name, p)

    def _weights(self, k, d):
        ws = []
        for name, fallback in zip(("weight_ih", "weight_hh", "bias_ih", "bias_hh"),
                                  self._layers[0]):
            ws.append(getattr(self, name) if isinstance(fallback, Parameter) else fallback)
        return tuple(ws)

    def construct(self, x, hx=None):
        single = isinstance(x, Tensor) and x.ndim == 1
        if single:
            x = ops.expand_dims(x, 0)
            if hx is not None:
                hx = tuple(ops.expand_dims(h, 0) for h in hx) if isinstance(hx, tuple) \
                    else ops.expand_dims(hx, 0)
        if hx is not None:
            hx = tuple(ops.expand_dims(h, 0) for h in hx) if isinstance(hx, tuple) \
                else ops.expand_dims(hx, 0)
        _, state = super().construct(ops.expand_dims(x, 0), hx)
        if isinstance(state, tuple):
            state = tuple(ops.squeeze(s, 0) for s in state)
            return tuple(ops.squeeze(s, 0) for s in state) if single else state
        state = ops.squeeze(state, 0)
        return ops.squeeze(state, 0) if single else state


class LSTMCell(_CellBase):
    mode = "LSTM"


class GRUCell(_CellBase):
    mode = "GRU"


class RNNCell(_CellBase):
    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=mstype.float32):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNNCell', 'nonlinearity' must be 'tanh' or 'relu', but got "
                             f"{nonlinearity!r}")
        object.__setattr__(self, "mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity
