"""Functional reductions: ops.sum, ops.mean, ops.amax, ops.argmax, ..."""
from ..operations import reduce_ops as P

__all__ = ['sum']

_sum = {False: P.ReduceSum(False), True: P.ReduceSum(True)}


def _axis(axis):
    return () if axis is None else axis


def sum(input, dim=None, keepdim=False):
    return _sum[bool(keepdim)](input, _axis(dim))
