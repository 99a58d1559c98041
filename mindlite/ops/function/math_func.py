"""Functional math ops: ops.add, ops.matmul, ... (each calls a module-level primitive)."""
from ..operations import math_ops as P

__all__ = ['add', 'matmul']

_add = P.Add()
_matmul = P.MatMul()


def add(input, other):
    return _add(input, other)


def matmul(input, other):
    return _matmul(input, other)
