"""Functional array ops: ops.reshape, ops.transpose, ..., and Tensor indexing."""
from ..operations import array_ops as P

__all__ = ['reshape', 'shape']

_reshape = P.Reshape()
_shape = P.Shape()


def reshape(input, shape):
    return _reshape(input, tuple(shape) if isinstance(shape, list) else shape)


def shape(input):
    return _shape(input)
