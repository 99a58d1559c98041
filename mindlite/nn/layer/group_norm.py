"""GroupNorm, InstanceNorm1d and InstanceNorm2d (mindspore.nn), composed of differentiable ops.

GroupNorm normalizes each sample's channel groups ((N, G, C/G * spatial)) by their mean and
biased variance; InstanceNorm each (sample, channel) over its spatial axes, with the
instance's own statistics in training and evaluation alike (as MindSpore). Both then scale
by "gamma" and shift by "beta" per channel when affine.
"""
import numbers

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..cell import Cell

__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d"]


def _positive(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"For '{cls}', '{name}' must be a positive int, but got {value!r}")
    return int(value)


def _eps(cls, eps):
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or eps <= 0:
        raise ValueError(f"For '{cls}', 'eps' must be a float > 0, but got {eps!r}")
    return float(eps)


def _affine_params(cell, cls, channels, affine, gamma_init, beta_init, dtype):
    if not isinstance(affine, bool):
        raise TypeError(f"For '{cls}', 'affine' must be a bool, but got {type(affine).__name__}")
    cell.affine = affine
    cell.gamma = Parameter(initializer(gamma_init, (channels,), dtype), name="gamma",
                           requires_grad=affine)
    cell.beta = Parameter(initializer(beta_init, (channels,), dtype), name="beta",
                          requires_grad=affine)


def _normalize(x, axes, eps):
    mean = ops.mean(x, axes, True)
    centered = x - mean
    var = ops.mean(centered * centered, axes, True)
    return centered / ops.sqrt(var + eps)


def _scale_shift(cell, y, ndim):
    shape = (1, -1) + (1,) * (ndim - 2)
    return y * ops.reshape(cell.gamma, shape) + ops.reshape(cell.beta, shape)


class GroupNorm(Cell):
    """x (N, C, *) normalized per sample over num_groups channel groups."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        self.num_groups = _positive("GroupNorm", "num_groups", num_groups)
        self.num_channels = _positive("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', 'num_channels' must be divisible by "
                             f"'num_groups', but got {num_channels} and {num_groups}")
        self.eps = _eps("GroupNorm", eps)
        _affine_params(self, "GroupNorm", num_channels, affine, gamma_init, beta_init, dtype)

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"For 'GroupNorm', the input must be (N, {self.num_channels}, ...), "
                             f"but got {getattr(x, 'shape', type(x).__name__)}")
        n = x.shape[0]
        y = _normalize(ops.reshape(x, (n, self.num_groups, -1)), (2,), self.eps)
        return _scale_shift(self, ops.reshape(y, x.shape), x.ndim)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    rank = None

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        self.num_features = _positive(cls, "num_features", num_features)
        self.eps = _eps(cls, eps)
        if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real) \
                or not 0.0 <= momentum <= 1.0:
            raise ValueError(f"For '{cls}', 'momentum' must be in [0, 1], but got {momentum!r}")
        self.momentum = float(momentum)
        # MindSpore's cell holds running statistics it does not use on CPU; kept (never updated)
        # so checkpoints have the same entries
        self.moving_mean = Parameter(initializer("zeros", (num_features,), dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer("ones", (num_features,), dtype),
                                         name="variance", requires_grad=False)
        _affine_params(self, cls, num_features, affine, gamma_init, beta_init, dtype)

    def construct(self, x):
        cls = type(self).__name__
        if not isinstance(x, Tensor) or x.ndim != self.rank or x.shape[1] != self.num_features:
            raise ValueError(f"For '{cls}', the input must be a {self.rank}-D Tensor with "
                             f"{self.num_features} channels (axis 1), but got "
                             f"{getattr(x, 'shape', type(x).__name__)}")
        y = _normalize(x, tuple(range(2, x.ndim)), self.eps)
        return _scale_shift(self, y, x.ndim)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}")


class InstanceNorm1d(_InstanceNorm):
    """x (N, C, L): each (sample, channel) normalized over L."""
    rank = 3


class InstanceNorm2d(_InstanceNorm):
    """x (N, C, H, W): each (sample, channel) normalized over H, W."""
    rank = 4
