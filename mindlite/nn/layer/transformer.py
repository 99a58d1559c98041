"""Attention and Transformer layers (mindspore.nn): MultiheadAttention,
TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder,
Transformer. Composites of differentiable ops (BatchMatMul, Softmax, Dense, LayerNorm...), with
MindSpore 2.10's arguments, parameter names (in_proj_weight, out_proj, dense1/dense2,
norm1.gamma ...) and PyTorch's arithmetic (which MindSpore's follow): sequences are (L, N, E),
(N, L, E) with batch_first; a bool mask is True where attention is NOT allowed, a float mask is
added to the scores.
"""
import copy
import math
import numbers

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import XavierUniform, initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..cell import Cell, CellList
from .activation import get_activation
from .basic import Dense, Dropout
from .normalization import LayerNorm

_MATMUL_NT = ops.BatchMatMul(transpose_b=True)      # a @ b^T over the last two axes
_SPLIT3 = ops.Split(0, 3)                             # the packed (3, ...) q, k, v apart

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]


def _mask_scores(scores, mask):
    """scores + mask (float) or -inf where mask is True (bool)."""
    if mask is None:
        return scores
    if mask.dtype == mstype.bool_:
        return ops.masked_fill(scores, mask, float("-inf"))
    return scores + ops.cast(mask, scores.dtype)


class MultiheadAttention(Cell):
    """softmax(Q K^T / sqrt(head_dim) + masks) V per head, then out_proj."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False,
                 dtype=mstype.float32):
        super().__init__()
        for name, v in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"For 'MultiheadAttention', '{name}' must be a positive int, "
                                 f"but got {v!r}")
        if embed_dim % num_heads:
            raise ValueError(f"For 'MultiheadAttention', 'embed_dim' must be divisible by "
                             f"'num_heads', but got {embed_dim} and {num_heads}")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.same_dims = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first = float(dropout), batch_first
        init = XavierUniform()
        if self.same_dims:
            self.in_proj_weight = Parameter(initializer(init, (3 * embed_dim, embed_dim), dtype),
                                            name="in_proj_weight")
        else:
            self.q_proj_weight = Parameter(initializer(init, (embed_dim, embed_dim), dtype),
                                           name="q_proj_weight")
            self.k_proj_weight = Parameter(initializer(init, (embed_dim, self.kdim), dtype),
                                           name="k_proj_weight")
            self.v_proj_weight = Parameter(initializer(init, (embed_dim, self.vdim), dtype),
                                           name="v_proj_weight")
        self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype),
                                      name="in_proj_bias") if has_bias else None
        # (3E,): 1/sqrt(head_dim) for q's rows of the packed projection, 1 for k's and v's
        scale = np.ones(3 * embed_dim)
        scale[:embed_dim] = 1.0 / math.sqrt(self.head_dim)
        self.q_scale = Tensor(scale.astype(dtype.np))
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias, dtype=dtype)
        if has_bias:                      # zeros, as MindSpore's (and PyTorch's) init
            self.out_proj.bias.set_data(Tensor(np.zeros(embed_dim, dtype.np)))
        self.add_zero_attn = add_zero_attn
        self.bias_k = self.bias_v = None
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierUniform(), (1, 1, embed_dim), dtype),
                                    name="bias_k")
            self.bias_v = Parameter(initializer(XavierUniform(), (1, 1, embed_dim), dtype),
                                    name="bias_v")
        self.attn_dropout = Dropout(p=self.dropout) if self.dropout else None

    def _project(self, x, i):
        e = self.embed_dim
        if self.same_dims:
            w = self.in_proj_weight[i * e:(i + 1) * e]
        else:
            w = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)[i]
        y = _MATMUL_NT(x, w)                 # x @ w^T, no transposed copy of w
        if self.in_proj_bias is not None:
            y = y + self.in_proj_bias[i * e:(i + 1) * e]
        return y

    def _packed_heads(self, x):
        """Self-attention's q (already scaled by 1/sqrt(head_dim)), k and v as (N h, L, hd)
        from ONE projection x @ W^T + b over the whole in_proj_weight (3E, E), one Transpose
        to (3, N, h, L, hd) and a Split. The scale multiplies q's rows of the weight and
        bias, (3E, E) elements, instead of q itself, (L, N, E).
        NOTE: three projections of the same x cost three GEMM calls, three weight slices and
        their zero-filled gradients, two gradient sums for x and three head Transposes each
        way; a Transformer encoder layer step (seq 64, batch 32, d 128) spent ~1.7 ms of
        ~24 in those."""
        length, n, e = x.shape
        h, hd = self.num_heads, self.head_dim
        scale = self.q_scale if self.q_scale.dtype == x.dtype else ops.cast(self.q_scale, x.dtype)
        qkv = _MATMUL_NT(x, self.in_proj_weight * ops.expand_dims(scale, 1))
        if self.in_proj_bias is not None:
            qkv = qkv + self.in_proj_bias * scale
        qkv = ops.transpose(ops.reshape(qkv, (length, n, 3, h, hd)), (2, 1, 3, 0, 4))
        return tuple(ops.reshape(t, (n * h, length, hd)) for t in _SPLIT3(qkv))

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        packed = self.same_dims and query is key and key is value and self.bias_k is None \
            and not self.add_zero_attn
        if self.batch_first:
            query, key, value = (ops.transpose(t, (1, 0, 2)) for t in (query, key, value))
        tgt_len, n, e = query.shape
        if e != self.embed_dim:
            raise ValueError(f"For 'MultiheadAttention', the query's last dimension must be "
                             f"{self.embed_dim}, but got shape {list(query.shape)}")
        if packed:
            q, k, v = self._packed_heads(query)
            return self._attend(q, k, v, tgt_len, n, e, key_padding_mask, need_weights,
                                attn_mask, average_attn_weights)
        q, k, v = self._project(query, 0), self._project(key, 1), self._project(value, 2)
        if self.bias_k is not None:
            k = ops.concat((k, ops.broadcast_to(self.bias_k, (1, n, e))), 0)
            v = ops.concat((v, ops.broadcast_to(self.bias_v, (1, n, e))), 0)
            attn_mask = None if attn_mask is None else ops.pad(attn_mask, (0, 1))
            key_padding_mask = None if key_padding_mask is None else \
                ops.pad(key_padding_mask, (0, 1))
        h, hd = self.num_heads, self.head_dim

        def heads(t):      # (S, N, E) -> (N h, S, hd)
            return ops.transpose(ops.reshape(t, (t.shape[0], n * h, hd)), (1, 0, 2))
        q, k, v = heads(q), heads(k), heads(v)
        if self.add_zero_attn:
            zeros = Tensor(np.zeros((n * h, 1, hd), q.dtype.np))
            k, v = ops.concat((k, zeros), 1), ops.concat((v, zeros), 1)
            attn_mask = None if attn_mask is None else ops.pad(attn_mask, (0, 1))
            key_padding_mask = None if key_padding_mask is None else \
                ops.pad(key_padding_mask, (0, 1))
        return self._attend(q * (1.0 / math.sqrt(hd)), k, v, tgt_len, n, e, key_padding_mask,
                            need_weights, attn_mask, average_attn_weights)

    def _attend(self, q, k, v, tgt_len, n, e, key_padding_mask, need_weights, attn_mask,
                average_attn_weights):
        """softmax(q k^T + masks) v per head, q already scaled; then out_proj."""
        h, src_len = self.num_heads, k.shape[1]
        # q k^T with the transpose as BatchMatMul's flag: no Transpose op forward or backward,
        # and the backward's products read their operands as stored (_matmul_grads)
        scores = _MATMUL_NT(q, k)
        if attn_mask is not None:
            mask = attn_mask if attn_mask.ndim == 3 else ops.expand_dims(attn_mask, 0)
            scores = _mask_scores(scores, mask)
        if key_padding_mask is not None:
            s4 = ops.reshape(scores, (n, h, tgt_len, src_len))
            kpm = ops.reshape(key_padding_mask, (n, 1, 1, src_len))
            scores = ops.reshape(_mask_scores(s4, kpm), (n * h, tgt_len, src_len))
        weights = ops.softmax(scores, -1)
        if self.attn_dropout is not None:
            weights = self.attn_dropout(weights)
        out = ops.bmm(weights, v)                                    # (N h, L, hd)
        out = ops.reshape(ops.transpose(out, (1, 0, 2)), (tgt_len, n, e))
        out = self.out_proj(out)
        if self.batch_first:
            out = ops.transpose(out, (1, 0, 2))
        if not need_weights:
            return out, None
        w4 = ops.reshape(weights, (n, h, tgt_len, src_len))
        return out, (ops.mean(w4, 1) if average_attn_weights else w4)


def _activation(act):
    if isinstance(act, str):
        return get_activation(act)
    if isinstance(act, Cell) or callable(act):
        return act
    raise TypeError(f"For 'Transformer', 'activation' must be a str, a Cell or a function, but "
                    f"got {type(act).__name__}")


class _FeedForward(Cell):
    """The shared pieces of the encoder and decoder layers."""

    def _feed_forward_parts(self, d_model, dim_feedforward, dropout, activation, eps, dtype):
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.activation = _activation(activation)
        self.norm_eps = eps

    def _ff(self, x, drop):
        return drop(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def _norm(self, d_model, dtype):
        return LayerNorm((d_model,), epsilon=self.norm_eps, dtype=dtype)


class TransformerEncoderLayer(_FeedForward):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout, batch_first=batch_first,
                                            dtype=dtype)
        self._feed_forward_parts(d_model, dim_feedforward, dropout, activation, layer_norm_eps,
                                 dtype)
        self.norm1, self.norm2 = self._norm(d_model, dtype), self._norm(d_model, dtype)
        self.dropout1, self.dropout2 = Dropout(p=dropout), Dropout(p=dropout)
        self.norm_first = norm_first

    def _sa(self, x, mask, kpm):
        return self.dropout1(self.self_attn(x, x, x, kpm, False, mask)[0])

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = x + self._sa(self.norm1(x), src_mask, src_key_padding_mask)
            return x + self._ff(self.norm2(x), self.dropout2)
        x = self.norm1(x + self._sa(x, src_mask, src_key_padding_mask))
        return self.norm2(x + self._ff(x, self.dropout2))


class TransformerDecoderLayer(_FeedForward):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout, batch_first=batch_first,
                                            dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout,
                                                 batch_first=batch_first, dtype=dtype)
        self._feed_forward_parts(d_model, dim_feedforward, dropout, activation, layer_norm_eps,
                                 dtype)
        self.norm1, self.norm2 = self._norm(d_model, dtype), self._norm(d_model, dtype)
        self.norm3 = self._norm(d_model, dtype)
        self.dropout1, self.dropout2 = Dropout(p=dropout), Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)
        self.norm_first = norm_first

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        def sa(x):
            return self.dropout1(self.self_attn(x, x, x, tgt_key_padding_mask, False,
                                                tgt_mask)[0])

        def mha(x):
            return self.dropout2(self.multihead_attn(x, memory, memory, memory_key_padding_mask,
                                                     False, memory_mask)[0])
        x = tgt
        if self.norm_first:
            x = x + sa(self.norm1(x))
            x = x + mha(self.norm2(x))
            return x + self._ff(self.norm3(x), self.dropout3)
        x = self.norm1(x + sa(x))
        x = self.norm2(x + mha(x))
        return self.norm3(x + self._ff(x, self.dropout3))


class TransformerEncoder(Cell):
    """num_layers deep copies of encoder_layer, then `norm` if given."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = CellList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask, src_key_padding_mask)
        return self.norm(x) if self.norm is not None else x


class TransformerDecoder(Cell):
    """num_layers deep copies of decoder_layer, then `norm` if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = CellList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                      memory_key_padding_mask)
        return self.norm(x) if self.norm is not None else x


class Transformer(Cell):
    """An encoder and a decoder stack, each ending in a LayerNorm."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                batch_first, norm_first, dtype)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(*args), num_encoder_layers,
            LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(*args), num_decoder_layers,
            LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        memory = self.encoder(src, src_mask, src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                            memory_key_padding_mask)
