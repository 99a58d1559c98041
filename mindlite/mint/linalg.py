"""mindlite.mint.linalg (MindSpore 2.10's mint.linalg): inv, norm, vector_norm, matrix_norm,
qr, over the same linalg primitives as ops."""
from ..ops import functional as F

__all__ = ['inv', 'matrix_norm', 'norm', 'qr', 'vector_norm']


def inv(input):
    return F.inverse(input)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    return F.norm(A, ord, dim, keepdim, dtype=dtype)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    return F.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    return F.matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def qr(A, mode="reduced"):
    return F.qr(A, mode)
