"""mint's batch-norm statistic helpers (the pieces of a synchronized BatchNorm:
batch_norm_stats, batch_norm_gather_stats_with_counts, batch_norm_elemt), conv_tbc and
npu_gelu, composed from ops' primitives."""
from ..ops import functional as F

__all__ = ['batch_norm_elemt', 'batch_norm_gather_stats_with_counts', 'batch_norm_stats',
           'conv_tbc', 'npu_gelu']


def _axes(input):
    return (0,) + tuple(range(2, input.ndim))


def batch_norm_stats(input, eps):
    """(mean, invstd) of each channel (dim 1) over the batch and spatial dims (biased var)."""
    axes = _axes(input)
    mean = F.mean(input, axes)
    shape = (1, -1) + (1,) * (input.ndim - 2)
    var = F.mean(F.square(F.sub(input, F.reshape(mean, shape))), axes)
    return mean, F.rsqrt(F.add(var, eps))


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None,
                                        running_var=None, momentum=0.1, eps=1e-05,
                                        counts=None):
    """The global (mean, invstd) from per-group (mean, invstd) rows and their element
    counts; running_mean / running_var (when given) move toward them by `momentum`
    (the running variance unbiased)."""
    if counts is None:
        raise ValueError("For 'batch_norm_gather_stats_with_counts', 'counts' is required")
    c = F.reshape(F.cast(counts, mean.dtype), (-1, 1))
    total = F.sum(c)
    gmean = F.div(F.sum(F.mul(mean, c), 0), total)
    var_i = F.sub(F.reciprocal(F.square(invstd)), eps)
    gvar = F.div(F.sum(F.mul(F.add(var_i, F.square(F.sub(mean, gmean))), c), 0), total)
    if running_mean is not None:
        running_mean.copy_(F.add(F.mul(running_mean, 1 - momentum), F.mul(gmean, momentum)))
    if running_var is not None:
        unbiased = F.mul(gvar, F.div(total, F.maximum(F.sub(total, 1), 1)))
        running_var.copy_(F.add(F.mul(running_var, 1 - momentum), F.mul(unbiased, momentum)))
    return gmean, F.rsqrt(F.add(gvar, eps))


def batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-05):
    """(input - mean) * invstd * weight + bias, per channel (dim 1)."""
    shape = (1, -1) + (1,) * (input.ndim - 2)
    y = F.mul(F.sub(input, F.reshape(mean, shape)), F.reshape(invstd, shape))
    if weight is not None:
        y = F.mul(y, F.reshape(weight, shape))
    if bias is not None:
        y = F.add(y, F.reshape(bias, shape))
    return y


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution over time of input (T, B, C_in) with weight (K, C_in, C_out) and bias
    (C_out,): (T + 2 pad - K + 1, B, C_out)."""
    x = F.transpose(input, (1, 2, 0))
    w = F.transpose(weight, (2, 1, 0))
    y = F.conv1d(x, w, bias, 1, "pad", pad)
    return F.transpose(y, (2, 0, 1))


def npu_gelu(input, approximate="none"):
    return F.gelu(input, approximate)
