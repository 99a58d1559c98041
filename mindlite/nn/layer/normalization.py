"""Normalisation layers (mindspore.nn): BatchNorm1d, BatchNorm2d, LayerNorm.

BatchNorm: batch statistics and an in-place update of moving_mean / moving_variance while
training (cell.training, set by set_train(); or use_batch_statistics=True), the moving
statistics in inference (or use_batch_statistics=False). momentum is MindSpore's layer
convention: moving = momentum * moving + (1 - momentum) * batch (default 0.9), i.e. the
BatchNorm primitive gets 1 - momentum. moving_mean / moving_variance are Parameters with
requires_grad=False; gamma / beta are trainable when affine=True. A wrong input rank or
channel count raises ValueError naming the layer at the call.
"""
import numbers

from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.operations.array_ops import Cast
from ...ops.operations.norm_ops import BatchNorm
from ...ops.operations.norm_ops import LayerNorm as _LayerNormPrim
from ..cell import Cell

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm"]


def _check_float(cls, name, value, lo, hi, lo_open=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    if value < lo or value > hi or (lo_open and value == lo):
        raise ValueError(f"For '{cls}', '{name}' must be in range {'(' if lo_open else '['}"
                         f"{lo}, {hi}], but got {value}")
    return float(value)


def _check_tensor(cls, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cls}', the input must be a Tensor, but got {type(x).__name__}")


class _BatchNorm(Cell):
    ranks = (4,)
    rank_text = "4-D (N, C, H, W)"

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, numbers.Integral):
            raise TypeError(f"For '{cls}', 'num_features' must be an int, but got "
                            f"{type(num_features).__name__}: {num_features!r}")
        if num_features < 1:
            raise ValueError(f"For '{cls}', 'num_features' must be a positive int, but got "
                             f"{num_features}")
        self.num_features = int(num_features)
        self.eps = _check_float(cls, "eps", eps, 0, 1, lo_open=True)
        self.momentum = _check_float(cls, "momentum", momentum, 0, 1)
        if not isinstance(affine, bool):
            raise TypeError(f"For '{cls}', 'affine' must be a bool, but got {affine!r}")
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise TypeError(f"For '{cls}', 'use_batch_statistics' must be a bool or None, but "
                            f"got {use_batch_statistics!r}")
        if data_format != "NCHW":
            raise ValueError(f"For '{cls}', 'data_format' must be 'NCHW' on CPU, but got "
                             f"{data_format!r}")
        self.use_batch_statistics = use_batch_statistics
        self.data_format = data_format
        n = (self.num_features,)
        self.moving_mean = Parameter(initializer(moving_mean_init, n, dtype), requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, n, dtype),
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, n, dtype), requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, n, dtype), requires_grad=affine)
        self.bn_train = BatchNorm(is_training=True, epsilon=self.eps,
                                  momentum=1.0 - self.momentum)
        self.bn_infer = BatchNorm(is_training=False, epsilon=self.eps)

    def construct(self, x):
        cls = type(self).__name__
        _check_tensor(cls, x)
        if x.ndim not in self.ranks or x.shape[1] != self.num_features:
            raise ValueError(f"For '{cls}', the input must be {self.rank_text} with C = "
                             f"num_features = {self.num_features}, but got shape "
                             f"{list(x.shape)}")
        use_batch = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        bn = self.bn_train if use_batch else self.bn_infer
        return bn(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma!r}, beta={self.beta!r}, moving_mean={self.moving_mean!r}, "
                f"moving_variance={self.moving_variance!r}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs over every axis but C."""
    ranks = (2, 3)
    rank_text = "2-D (N, C) or 3-D (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs over N, H and W."""


class LayerNorm(Cell):
    """Layer normalisation: statistics over the axes from begin_norm_axis on; gamma and beta
    of shape normalized_shape, which must equal input.shape[begin_params_axis:]."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNorm', the type of 'normalized_shape' must be tuple[int] "
                            f"or list[int], but got {normalized_shape!r} of type "
                            f"{type(normalized_shape).__name__}")
        for name, v in (("begin_norm_axis", begin_norm_axis),
                        ("begin_params_axis", begin_params_axis)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"For 'LayerNorm', '{name}' must be an int, but got {v!r}")
        self.normalized_shape = normalized_shape
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = _check_float("LayerNorm", "epsilon", epsilon, 0, float("inf"))
        shape = tuple(normalized_shape)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype))
        self.beta = Parameter(initializer(beta_init, shape, dtype))
        self.layer_norm = _LayerNormPrim(begin_norm_axis, begin_params_axis, self.epsilon)
        self.cast = Cast()

    def construct(self, input_x):
        _check_tensor("LayerNorm", input_x)
        rank, bpa = input_x.ndim, self.begin_params_axis
        if not -rank <= bpa < rank or not -rank <= self.begin_norm_axis < rank or \
                tuple(input_x.shape[bpa % rank:]) != tuple(self.normalized_shape):
            raise ValueError(f"For 'LayerNorm', the input's shape from begin_params_axis "
                             f"{bpa} on must equal normalized_shape "
                             f"{list(self.normalized_shape)} (with begin_norm_axis "
                             f"{self.begin_norm_axis} in range), but got input shape "
                             f"{list(input_x.shape)}")
        gamma, beta = self.gamma, self.beta
        if gamma.dtype is not input_x.dtype:
            gamma, beta = self.cast(gamma, input_x.dtype), self.cast(beta, input_x.dtype)
        return self.layer_norm(input_x, gamma, beta)[0]

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis="
                f"{self.begin_norm_axis}, begin_params_axis={self.begin_params_axis}, "
                f"gamma={self.gamma!r}, beta={self.beta!r}")
