"""Functional neural-network ops: ops.relu, ops.softmax, ..."""
from ..operations import nn_ops as P

__all__ = ['relu']

_relu = P.ReLU()


def relu(input):
    return _relu(input)
