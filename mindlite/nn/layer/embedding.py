"""nn.Embedding: a lookup table (vocab_size, embedding_size) indexed by integer ids, through the
Gather primitive (or a one-hot MatMul with use_one_hot=True), as mindspore.nn.Embedding.
"""
import numbers

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..cell import Cell

__all__ = ["Embedding"]


class Embedding(Cell):
    """out = embedding_table[ids], shape ids.shape + (embedding_size,). ids are int32/int64 in
    [0, vocab_size) (Gather checks). The row padding_idx, if given, starts at zero."""

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.int32, padding_idx=None):
        super().__init__()
        for name, v in (("vocab_size", vocab_size), ("embedding_size", embedding_size)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"For 'Embedding', '{name}' must be an int, but got "
                                f"{type(v).__name__}: {v!r}")
            if v <= 0:
                raise ValueError(f"For 'Embedding', '{name}' must be a positive int, but got {v}")
        if not isinstance(use_one_hot, bool):
            raise TypeError(f"For 'Embedding', 'use_one_hot' must be a bool, but got "
                            f"{type(use_one_hot).__name__}")
        dtype = mstype.to_type(dtype)
        if dtype not in mstype.INDEX_TYPES:
            raise TypeError(f"For 'Embedding', 'dtype' must be int32 or int64, but got {dtype}")
        self.vocab_size, self.embedding_size = int(vocab_size), int(embedding_size)
        self.use_one_hot, self.dtype = use_one_hot, dtype
        if padding_idx is not None:
            if isinstance(padding_idx, bool) or not isinstance(padding_idx, numbers.Integral):
                raise TypeError(f"For 'Embedding', 'padding_idx' must be an int or None, but got "
                                f"{type(padding_idx).__name__}")
            if not 0 <= padding_idx < vocab_size:
                raise ValueError(f"For 'Embedding', 'padding_idx' must be in range [0, "
                                 f"{vocab_size}), but got {padding_idx}")
        self.padding_idx = padding_idx
        shape = (self.vocab_size, self.embedding_size)
        if isinstance(embedding_table, Tensor) and embedding_table.shape != shape:
            raise ValueError(f"For 'Embedding', 'embedding_table' must have shape "
                             f"{list(shape)}, but got {list(embedding_table.shape)}")
        table = initializer(embedding_table, shape, mstype.float32)
        if padding_idx is not None:
            data = np.array(table.init_data().asnumpy())
            data[padding_idx] = 0
            table = Tensor(data)
        self.embedding_table = Parameter(table, name="embedding_table")
        self.gather = ops.Gather()
        if use_one_hot:
            self.one_hot = ops.OneHot()
            self.matmul = ops.MatMul()
            self.reshape = ops.Reshape()

    def construct(self, ids):
        if not isinstance(ids, Tensor):
            raise TypeError(f"For 'Embedding', 'ids' must be a Tensor, but got "
                            f"{type(ids).__name__}")
        if ids.dtype not in mstype.INDEX_TYPES:
            raise TypeError(f"For 'Embedding', the dtype of 'ids' must be int32 or int64, but got "
                            f"{ids.dtype}")
        if not self.use_one_hot:
            return self.gather(self.embedding_table, ids, 0)
        table = self.embedding_table
        on = Tensor(np.ones((), table.dtype.np))
        off = Tensor(np.zeros((), table.dtype.np))
        flat = self.reshape(ids, (-1,))
        out = self.matmul(self.one_hot(flat, self.vocab_size, on, off), table)
        return self.reshape(out, ids.shape + (self.embedding_size,))

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table!r}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")
