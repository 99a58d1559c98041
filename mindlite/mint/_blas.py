"""mint's products and solves (mint.matmul, mint.mm, mint.bmm, mint.baddbmm, mint.addmm,
mint.addmv, mint.mv, mint.dot, mint.outer, mint.inverse, mint.cdist, mint.triangular_solve,
...): PyTorch-style signatures over the same MatMul / BatchMatMul / linalg primitives as ops.
"""
from ..ops import functional as F

__all__ = ['addbmm', 'addmm', 'addmv', 'addr_', 'baddbmm', 'bmm', 'cdist', 'dot', 'inverse',
           'matmul', 'mm', 'mv', 'outer', 'qr', 'triangular_solve', 'vdot']


def matmul(input, other):
    return F.matmul(input, other)


def mm(input, mat2):
    return F.mm(input, mat2)


def bmm(input, mat2):
    return F.bmm(input, mat2)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return F.baddbmm(input, batch1, batch2, beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return F.addbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return F.addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    return F.addmv(input, mat, vec, beta=beta, alpha=alpha)


def addr_(input, vec1, vec2, beta=1, alpha=1):
    """input = beta * input + alpha * outer(vec1, vec2), in place."""
    return input.copy_(F.addr(input, vec1, vec2, beta=beta, alpha=alpha))


def mv(input, vec):
    return F.mv(input, vec)


def dot(input, other):
    return F.dot_1d(input, other)


def vdot(input, other):
    return F.vdot(input, other)


def outer(input, vec2):
    """The outer product of two 1-D tensors."""
    for x in (input, vec2):
        if x.ndim != 1:
            raise ValueError(f"For 'outer', the rank of the inputs must be 1, but got {x.ndim}")
    return F.outer(input, vec2)


def inverse(input):
    return F.inverse(input)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    return F.cdist(x1, x2, p)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(solution of A X = b with A triangular, A)."""
    return F.triangular_solve(b, A, upper, transpose, unitriangular)


def qr(input, some=True):
    return F.qr(input, "reduced" if some else "complete")
