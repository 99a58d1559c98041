"""Batch normalisation of 5-D inputs and across processes (mindspore.nn): BatchNorm3d and
SyncBatchNorm.

BatchNorm3d is MindSpore's: an inner BatchNorm2d (`bn2d`, so checkpoints carry
`bn2d.gamma`, `bn2d.moving_mean`, ...) applied to (N, C, D*H, W). SyncBatchNorm computes
the batch statistics over the whole batch of a process group: per-channel sums of x and
x**2 and the element count are AllReduced (communication/, MPI), so every rank normalises
with the global mean and (biased) variance and updates its moving statistics alike
(moving = momentum * moving + (1 - momentum) * batch, the variance unbiased as BatchNorm's).
Gradients flow through the AllReduce (its bprop sums the ranks' gradients). Before
communication.init(), or in a group of one, it is BatchNorm over the local batch, as
MindSpore's.
"""
import numpy as np

from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...communication import management as comm
from ...ops import functional as F
from ...ops.operations.comm_ops import AllReduce
from ..cell import Cell
from .normalization import BatchNorm2d, _BatchNorm, _check_tensor

__all__ = ["BatchNorm3d", "SyncBatchNorm"]


class BatchNorm3d(Cell):
    """Batch normalisation of (N, C, D, H, W) inputs over N, D, H and W."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, dtype=mstype.float32):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                dtype=dtype)

    def construct(self, x):
        _check_tensor("BatchNorm3d", x)
        if x.ndim != 5 or x.shape[1] != self.bn2d.num_features:
            raise ValueError(f"For 'BatchNorm3d', the input must be 5-D (N, C, D, H, W) with "
                             f"C = num_features = {self.bn2d.num_features}, but got shape "
                             f"{list(x.shape)}")
        n, c, d, h, w = x.shape
        y = self.bn2d(F.reshape(x, (n, c, d * h, w)))
        return F.reshape(y, x.shape)


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation with statistics over the batches of every rank of a group
    (`process_groups`: None for the world, or a list of rank lists, one group per list)."""
    ranks = (2, 3, 4, 5)
    rank_text = "2-D to 5-D (N, C, ...)"

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, process_groups=None, dtype=mstype.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, dtype=dtype)
        n = (self.num_features,)
        # MindSpore's parameter names: gamma, beta, mean, variance
        self.moving_mean = Parameter(initializer(moving_mean_init, n, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, n, dtype),
                                         name="variance", requires_grad=False)
        self.group = self._group(process_groups)
        self.all_reduce = AllReduce(group=self.group) if self.group is not None else None

    @staticmethod
    def _group(process_groups):
        """The group to reduce over, or None for local statistics (not initialised, or
        alone in the group)."""
        if not comm.GlobalComm.INITED:
            return None
        if process_groups is None:
            return comm.GlobalComm.WORLD_COMM_GROUP if comm.get_group_size() > 1 else None
        if not isinstance(process_groups, (list, tuple)) or not all(
                isinstance(g, (list, tuple)) for g in process_groups):
            raise TypeError("For 'SyncBatchNorm', 'process_groups' must be None or a list of "
                            f"rank lists, but got {process_groups!r}")
        rank = comm.get_rank()
        mine = None
        for k, ranks in enumerate(process_groups):
            name = f"sync_bn_group{k}"
            if rank in ranks:
                comm.create_group(name, list(ranks))
                mine = (name, len(ranks))
        if mine is None:
            raise ValueError(f"For 'SyncBatchNorm', rank {rank} is in none of "
                             f"'process_groups' {process_groups!r}")
        return mine[0] if mine[1] > 1 else None

    def construct(self, x):
        use_batch = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        if self.all_reduce is None or not use_batch:
            return super().construct(x)
        _check_tensor("SyncBatchNorm", x)
        if x.ndim not in self.ranks or x.shape[1] != self.num_features:
            raise ValueError(f"For 'SyncBatchNorm', the input must be {self.rank_text} with "
                             f"C = num_features = {self.num_features}, but got shape "
                             f"{list(x.shape)}")
        c = self.num_features
        axes = (0,) + tuple(range(2, x.ndim))
        count = Tensor(np.array([x.size // c], x.dtype.np))
        local = F.concat((F.sum(x, axes), F.sum(x * x, axes), count), 0)
        total = self.all_reduce(local)
        n = total[2 * c:]
        mean = total[:c] / n
        var = total[c:2 * c] / n - mean * mean
        shape = (1, c) + (1,) * (x.ndim - 2)
        y = (x - F.reshape(mean, shape)) * F.reshape(F.rsqrt(var + self.eps), shape)
        y = y * F.reshape(self.gamma, shape) + F.reshape(self.beta, shape)
        m = self.momentum
        mean_s, var_s, n_s = F.stop_gradient(mean), F.stop_gradient(var), F.stop_gradient(n)
        F.assign(self.moving_mean, self.moving_mean * m + mean_s * (1 - m))
        unbiased = var_s * n_s / F.maximum(n_s - 1, F.ones_like(n_s))
        F.assign(self.moving_variance, self.moving_variance * m + unbiased * (1 - m))
        return y
