"""mindlite.mint.nn.functional (MindSpore 2.10's mint.nn.functional): activations, convolutions,
pooling, normalization, dropout, losses and resampling with PyTorch-style signatures
(`dim`, `inplace`, `padding` as numbers or 'same' / 'valid'), each a thin call of the ops
functional layer (ops/functional.py): the same primitives, kernels and bprops as ops.
The in-place forms (relu_, sigmoid_, ...) write the result into their input
(Tensor.copy_), recorded for autograd as Tensor's in-place methods are.
"""
import numbers

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ops import functional as F

__all__ = ['adaptive_avg_pool1d', 'adaptive_avg_pool2d', 'adaptive_avg_pool3d',
           'adaptive_max_pool1d', 'adaptive_max_pool2d', 'avg_pool1d', 'avg_pool2d',
           'avg_pool3d', 'batch_norm', 'binary_cross_entropy', 'binary_cross_entropy_with_logits',
           'conv1d', 'conv2d', 'conv3d', 'conv_transpose2d', 'cosine_embedding_loss',
           'cross_entropy', 'dropout', 'dropout2d', 'elu', 'elu_', 'embedding', 'flatten',
           'fold', 'gelu', 'glu', 'grid_sample', 'group_norm', 'hardtanh', 'hardtanh_',
           'interpolate', 'kl_div', 'layer_norm', 'leaky_relu', 'linear', 'log_softmax',
           'logsigmoid', 'max_pool2d', 'max_unpool2d', 'mse_loss', 'nll_loss', 'normalize',
           'one_hot', 'pad', 'pixel_shuffle', 'prelu', 'relu', 'relu6', 'relu_', 'sigmoid',
           'sigmoid_', 'silu', 'soft_margin_loss', 'softmax', 'tanh', 'threshold', 'threshold_',
           'unfold', 'upsample']


def _inplace(input, out, inplace):
    return input.copy_(out) if inplace else out


# ---- activations ---------------------------------------------------------------------------
def relu(input, inplace=False):
    return _inplace(input, F.relu(input), inplace)


def relu_(input):
    return input.copy_(F.relu(input))


def relu6(input, inplace=False):
    return _inplace(input, F.relu6(input), inplace)


def sigmoid(input):
    return F.sigmoid(input)


def sigmoid_(input):
    return input.copy_(F.sigmoid(input))


def tanh(input):
    return F.tanh(input)


def silu(input, inplace=False):
    return _inplace(input, F.silu(input), inplace)


def gelu(input, *, approximate="none"):
    return F.gelu(input, approximate)


def _elu(input, alpha):
    """x, or alpha (e^x - 1) below 0 (MindSpore's Elu primitive takes alpha 1 only: other
    alphas compose)."""
    if alpha == 1.0:
        return F.elu(input, 1.0)
    return F.where(F.greater(input, 0), input, F.mul(F.expm1(F.minimum(input, 0.0)), alpha))


def elu(input, alpha=1.0, inplace=False):
    return _inplace(input, _elu(input, alpha), inplace)


def elu_(input, alpha=1.0):
    return input.copy_(_elu(input, alpha))


def leaky_relu(input, negative_slope=0.01):
    return F.leaky_relu(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _inplace(input, F.hardtanh(input, min_val, max_val), inplace)


def hardtanh_(input, min_val=-1, max_val=1):
    return input.copy_(F.hardtanh(input, min_val, max_val))


def threshold(input, threshold, value, inplace=False):
    return _inplace(input, F.threshold(input, threshold, value), inplace)


def threshold_(input, threshold, value):
    return input.copy_(F.threshold(input, threshold, value))


def logsigmoid(input):
    return F.logsigmoid(input)


def glu(input, dim=-1):
    return F.glu(input, dim)


def prelu(input, weight):
    return F.prelu(input, weight)


def softmax(input, dim=None, dtype=None):
    x = input if dtype is None else F.cast(input, dtype)
    return F.softmax(x, -1 if dim is None else dim)


def log_softmax(input, dim=None, *, dtype=None):
    x = input if dtype is None else F.cast(input, dtype)
    return F.log_softmax(x, -1 if dim is None else dim)


# ---- linear, convolution, pooling ------------------------------------------------------------
def linear(input, weight, bias=None):
    """input @ weight.T + bias."""
    return F.dense(input, weight, bias)


def _conv_pad(padding):
    if isinstance(padding, str):
        return padding.lower(), 0
    return "pad", padding


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    mode, pad = _conv_pad(padding)
    return F.conv1d(input, weight, bias, stride, mode, pad, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    mode, pad = _conv_pad(padding)
    if mode == "pad" and isinstance(pad, (tuple, list)) and len(pad) == 2:
        pad = (pad[0], pad[0], pad[1], pad[1])
    return F.conv2d(input, weight, bias, stride, mode, pad, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    mode, pad = _conv_pad(padding)
    if mode == "pad" and isinstance(pad, (tuple, list)) and len(pad) == 3:
        pad = (pad[0], pad[0], pad[1], pad[1], pad[2], pad[2])
    return F.conv3d(input, weight, bias, stride, mode, pad, dilation, groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return F.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    return F.avg_pool1d(input, kernel_size, kernel_size if stride is None else stride, padding,
                        ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return F.avg_pool2d(input, kernel_size, kernel_size if stride is None else stride, padding,
                        ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return F.avg_pool3d(input, kernel_size, kernel_size if stride is None else stride, padding,
                        ceil_mode, count_include_pad, 0 if divisor_override is None
                        else divisor_override)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return F.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


def adaptive_avg_pool1d(input, output_size):
    """Adaptive windows (any output size), as adaptive_avg_pool3d's separable averaging."""
    from ...ops.function.pool_resize_func import _adaptive_avg_1d
    return _adaptive_avg_1d(input, int(output_size if isinstance(output_size, int)
                                       else output_size[0]))


def adaptive_avg_pool2d(input, output_size):
    return F.adaptive_avg_pool2d(input, output_size)


def adaptive_avg_pool3d(input, output_size):
    return F.adaptive_avg_pool3d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return F.adaptive_max_pool1d_ext(input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return F.adaptive_max_pool2d(input, output_size, return_indices)


# ---- normalization, dropout ----------------------------------------------------------------
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    c = input.shape[1]
    weight = F.ones((c,), input.dtype) if weight is None else weight
    bias = F.zeros((c,), input.dtype) if bias is None else bias
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    return F.group_norm(input, num_groups, weight, bias, eps)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    return F.normalize(input, p, dim, eps)


def dropout(input, p=0.5, training=True, inplace=False):
    return _inplace(input, F.dropout(input, p, training), inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _inplace(input, F.dropout2d(input, p, training), inplace)


# ---- losses ---------------------------------------------------------------------------------
def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    return F.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    return F.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    return F.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return F.nll_loss(input, target, weight, ignore_index, reduction)


def mse_loss(input, target, reduction="mean"):
    return F.mse_loss(input, target, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """The KL divergence of target from input (log-probabilities): target (log target) *
    (log target - input), reduced ('batchmean' divides the sum by the batch size)."""
    t = F.exp(target) if log_target else target
    log_t = target if log_target else F.log(target)
    loss = F.mul(t, F.sub(log_t, input))
    if not log_target:
        loss = F.where(F.greater(target, 0), loss, F.zeros_like(loss))
    if reduction == "none":
        return loss
    if reduction == "sum":
        return F.sum(loss)
    if reduction == "batchmean":
        return F.div(F.sum(loss), input.shape[0] if input.ndim else 1)
    if reduction == "mean":
        return F.mean(loss)
    raise ValueError(f"For 'kl_div', 'reduction' must be 'none', 'sum', 'mean' or 'batchmean', "
                     f"but got {reduction!r}")


def soft_margin_loss(input, target, reduction="mean"):
    return F.soft_margin_loss(input, target, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction)


# ---- shape, embedding, resampling -----------------------------------------------------------
def flatten(input, start_dim=0, end_dim=-1):
    return F.flatten(input, start_dim=start_dim, end_dim=end_dim)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot vectors of the int tensor's values (num_classes -1: max + 1)."""
    if not isinstance(tensor, Tensor) or tensor.dtype not in mstype.INT_TYPES:
        raise TypeError(f"For 'one_hot', 'tensor' must be an int Tensor, but got "
                        f"{getattr(tensor, 'dtype', type(tensor).__name__)}")
    if num_classes == -1:
        num_classes = int(tensor.asnumpy().max()) + 1 if tensor.size else 0
    return F.one_hot(tensor, num_classes, Tensor(1, mstype.int64), Tensor(0, mstype.int64))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False):
    return F.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)


def pad(input, pad, mode="constant", value=None):
    return F.pad(input, pad, mode, value)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """Resampling to `size`, or by `scale_factor` (the output size floor(in * scale))."""
    if scale_factor is not None and size is None and mode not in ("nearest", "area"):
        k = input.ndim - 2
        sf = (scale_factor,) * k if isinstance(scale_factor, (int, float)) else \
            tuple(scale_factor)
        size = tuple(int(d * s) for d, s in zip(input.shape[2:], sf))
        scale_factor = None
    return F.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return F.interpolate(input, size, scale_factor, mode, align_corners)


def pixel_shuffle(input, upscale_factor):
    return F.pixel_shuffle(input, upscale_factor)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    return F.unfold(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return F.fold_ext(input, output_size, kernel_size, dilation, padding, stride)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    return F.grid_sample(input, grid, mode, padding_mode, align_corners)


_ = numbers
