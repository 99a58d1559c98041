"""mint.nn's normalization layers (BatchNorm1d/2d/3d, GroupNorm, SyncBatchNorm) with PyTorch's
constructor arguments and buffers: weight / bias (affine), running_mean / running_var /
num_batches_tracked (track_running_stats). momentum is PyTorch's: running = (1 - momentum)
running + momentum batch (the BatchNorm primitive's own convention). SyncBatchNorm averages
the batch statistics over the communication group when one is initialised (communication/),
else it is BatchNorm.
"""
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...nn.cell import Cell
from ...ops import functional as OF
from . import functional as F

__all__ = ['BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d', 'GroupNorm', 'SyncBatchNorm']


class _BatchNorm(Cell):
    ranks = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        super().__init__()
        dtype = mstype.float32 if dtype is None else dtype
        self.num_features, self.eps, self.momentum = int(num_features), eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = self.bias = None
        if affine:
            self.weight = Parameter(initializer("ones", (num_features,), dtype), name="weight")
            self.bias = Parameter(initializer("zeros", (num_features,), dtype), name="bias")
        self.running_mean = self.running_var = None
        if track_running_stats:
            self.running_mean = Parameter(initializer("zeros", (num_features,), dtype),
                                          name="running_mean", requires_grad=False)
            self.running_var = Parameter(initializer("ones", (num_features,), dtype),
                                         name="running_var", requires_grad=False)
            self.num_batches_tracked = Parameter(Tensor(0, mstype.int64),
                                                 name="num_batches_tracked", requires_grad=False)

    def _check(self, input):
        if input.ndim not in self.ranks or input.shape[1] != self.num_features:
            raise ValueError(f"For '{type(self).__name__}', the input must be of rank "
                             f"{' or '.join(map(str, self.ranks))} with {self.num_features} "
                             f"channels, but got shape {list(input.shape)}")

    def _stats(self, input):
        return self.running_mean, self.running_var

    def construct(self, input):
        self._check(input)
        use_batch = self.training or not self.track_running_stats
        mean, var = self.running_mean, self.running_var
        if mean is None:
            c = self.num_features
            mean = OF.zeros((c,), input.dtype)
            var = OF.ones((c,), input.dtype)
        if self.training and self.track_running_stats:
            self.num_batches_tracked.assign_value(self.num_batches_tracked + 1)
        return F.batch_norm(input, mean, var, self.weight, self.bias, use_batch, self.momentum,
                            self.eps)


class BatchNorm1d(_BatchNorm):
    ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    ranks = (4,)


class BatchNorm3d(_BatchNorm):
    ranks = (5,)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm whose batch statistics are averaged over `process_group` while training
    (MPI, through communication/); without an initialised group it is BatchNorm."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        self.process_group = process_group

    def construct(self, input):
        from ..distributed import _world_size_or_one
        self._check(input)
        if not self.training or _world_size_or_one(self.process_group) == 1:
            return super().construct(input)
        from ..distributed import all_reduce
        ops = OF
        axes = (0,) + tuple(range(2, input.ndim))
        mean = ops.mean(input, axes)
        meansq = ops.mean(ops.square(input), axes)
        stats = ops.stack([mean, meansq], 0)
        n = _world_size_or_one(self.process_group)
        stats = ops.div(all_reduce(stats, group=self.process_group), float(n))
        mean, meansq = stats[0], stats[1]
        var = ops.sub(meansq, ops.square(mean))
        shape = (1, self.num_features) + (1,) * (input.ndim - 2)
        y = ops.div(ops.sub(input, ops.reshape(mean, shape)),
                    ops.sqrt(ops.add(ops.reshape(var, shape), self.eps)))
        if self.affine:
            y = ops.add(ops.mul(y, ops.reshape(self.weight, shape)),
                        ops.reshape(self.bias, shape))
        if self.track_running_stats:
            m = self.momentum
            count = input.size // self.num_features * n
            unbiased = ops.mul(var, count / max(count - 1, 1))
            self.running_mean.assign_value(ops.add(ops.mul(self.running_mean, 1 - m),
                                                   ops.mul(ops.stop_gradient(mean), m)))
            self.running_var.assign_value(ops.add(ops.mul(self.running_var, 1 - m),
                                                  ops.mul(ops.stop_gradient(unbiased), m)))
        return y


class GroupNorm(Cell):
    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', 'num_channels' {num_channels} must be "
                             f"divisible by 'num_groups' {num_groups}")
        dtype = mstype.float32 if dtype is None else dtype
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.weight = self.bias = None
        if affine:
            self.weight = Parameter(initializer("ones", (num_channels,), dtype), name="weight")
            self.bias = Parameter(initializer("zeros", (num_channels,), dtype), name="bias")

    def construct(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)
