"""numpy reference kernels for linalg_ops: Einsum, Cross, Diag / DiagPart, Trace,
MatrixInverse, MatrixDeterminant, MatrixPower. alloc="runtime": each writes into the
preallocated output; inputs may be 0-d, empty or non-contiguous.
"""
import functools
import math

import numpy as np

from ..registry import register_kernel


@functools.lru_cache(maxsize=256)
def _pair_plan(equation, sa, sb):
    """A two-operand einsum as one (batched) matmul, or None when it is not one (a label
    repeated within a term, or size-1 broadcasting between the operands): labels of one
    operand alone and not in the output are summed first; then A -> (batch, M, K),
    B -> (batch, K, N), and the product is permuted into the output's order."""
    lhs, out = equation.split("->")
    ta, tb = lhs.split(",")
    if len(set(ta)) != len(ta) or len(set(tb)) != len(tb):
        return None
    size = dict(zip(ta, sa))
    for c, d in zip(tb, sb):
        if size.setdefault(c, d) != d:
            return None
    sum_a = tuple(i for i, c in enumerate(ta) if c not in tb and c not in out)
    sum_b = tuple(i for i, c in enumerate(tb) if c not in ta and c not in out)
    ta = [c for i, c in enumerate(ta) if i not in sum_a]
    tb = [c for i, c in enumerate(tb) if i not in sum_b]
    batch = [c for c in out if c in ta and c in tb]
    contr = [c for c in ta if c in tb and c not in out]
    a_only = [c for c in ta if c not in tb]
    b_only = [c for c in tb if c not in ta]
    dims = [math.prod(size[c] for c in g) for g in (batch, a_only, contr, b_only)]
    res = batch + a_only + b_only
    perm_a = tuple(ta.index(c) for c in batch + a_only + contr)
    perm_b = tuple(tb.index(c) for c in batch + contr + b_only)
    perm_out = tuple(res.index(c) for c in out)
    lead = (dims[0],) if batch else ()               # no batch: 2-D matmul
    return (sum_a, None if perm_a == tuple(range(len(ta))) else perm_a, lead + (dims[1], dims[2]),
            sum_b, None if perm_b == tuple(range(len(tb))) else perm_b, lead + (dims[2], dims[3]),
            tuple(size[c] for c in res), None if perm_out == tuple(range(len(out))) else perm_out)


@register_kernel("Einsum", provider="numpy")
def einsum_numpy(xs, out, equation):
    """Two operands: one BLAS matmul through _pair_plan where the contraction is one;
    otherwise numpy.einsum (optimize="greedy", pairwise through BLAS, for large inputs).
    NOTE: float16 contracts in float32 (numpy's float16 einsum and matmul are scalar loops)."""
    if out.dtype == np.float16:
        xs = [x.astype(np.float32) for x in xs]
    plan = _pair_plan(equation, xs[0].shape, xs[1].shape) if len(xs) == 2 else None
    if plan is not None:
        sum_a, perm_a, shape_a, sum_b, perm_b, shape_b, res, perm_out = plan
        a = xs[0].sum(axis=sum_a) if sum_a else xs[0]
        b = xs[1].sum(axis=sum_b) if sum_b else xs[1]
        a = (a if perm_a is None else a.transpose(perm_a)).reshape(shape_a)
        b = (b if perm_b is None else b.transpose(perm_b)).reshape(shape_b)
        if perm_out is None and out.dtype == a.dtype:
            np.matmul(a, b, out=out.reshape(shape_a[:-1] + shape_b[-1:]))
        else:
            prod = np.matmul(a, b).reshape(res)
            np.copyto(out, prod if perm_out is None else prod.transpose(perm_out),
                      casting="unsafe")
        return
    big = sum(x.size for x in xs) > 4096 and all(x.size for x in xs)
    np.copyto(out, np.einsum(equation, *xs, optimize="greedy" if big else False),
              casting="unsafe")


_NEXT, _PREV = np.array([1, 2, 0]), np.array([2, 0, 1])


def _cross_into(x, y, out, dim):
    np.subtract(np.take(x, _NEXT, dim) * np.take(y, _PREV, dim),
                np.take(x, _PREV, dim) * np.take(y, _NEXT, dim), out=out, casting="unsafe")


@register_kernel("Cross", provider="numpy")
def cross_numpy(x, y, out, dim):
    """out_i = x_{i+1} y_{i+2} - x_{i+2} y_{i+1} along dim, as four takes (measured 4x3
    float32: ~2x faster than per-component slices)."""
    if x.shape != out.shape or y.shape != out.shape:
        x, y = np.broadcast_to(x, out.shape), np.broadcast_to(y, out.shape)
    if out.dtype.kind == "f":
        with np.errstate(all="ignore"):
            _cross_into(x, y, out, dim)
    else:
        _cross_into(x, y, out, dim)               # ints wrap (arrays do not warn)


@register_kernel("Diag", provider="numpy")
def diag_numpy(x, out):
    n = x.size
    flat = out.reshape(n, n)
    flat.fill(0)
    np.fill_diagonal(flat, x.reshape(-1))


@register_kernel("DiagPart", provider="numpy")
def diag_part_numpy(x, out):
    n = out.size
    np.copyto(out, np.diagonal(np.reshape(x, (n, n))).reshape(out.shape))


@register_kernel("Trace", provider="numpy")
def trace_numpy(x, out):
    with np.errstate(all="ignore"):
        out[()] = x.trace(dtype=x.dtype)


def _inverse(x):
    """Batched inverse; a singular matrix gives nan (no error, as MindSpore raises none)."""
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        pass
    flat = x.reshape((-1,) + x.shape[-2:])
    res = np.empty_like(flat)
    for i, m in enumerate(flat):
        try:
            res[i] = np.linalg.inv(m)
        except np.linalg.LinAlgError:
            res[i] = np.nan
    return res.reshape(x.shape)


@register_kernel("MatrixInverse", provider="numpy")
def matrix_inverse_numpy(x, out, adjoint):
    if x.size:
        np.copyto(out, _inverse(np.swapaxes(x, -1, -2) if adjoint else x))


@register_kernel("MatrixDeterminant", provider="numpy")
def matrix_determinant_numpy(x, out):
    if x.size:
        np.copyto(out, np.linalg.det(x))
    else:
        out.fill(1)                    # the determinant of a 0 x 0 matrix


@register_kernel("MatrixPower", provider="numpy")
def matrix_power_numpy(x, out, n):
    if not x.size:
        return
    if n < 0:
        try:
            x = np.linalg.inv(x)
        except np.linalg.LinAlgError:
            raise ValueError("For MatrixPower, negative power can not apply to singular "
                             "matrix.") from None
        n = -n
    with np.errstate(all="ignore"):
        np.copyto(out, np.linalg.matrix_power(x, n), casting="unsafe")


@register_kernel("Svd", provider="numpy")
def svd_numpy(x, out_s, out_u, out_v, full_matrices, compute_uv):
    if not compute_uv:
        if x.size:
            np.copyto(out_s, np.linalg.svd(x, compute_uv=False))
        return
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    np.copyto(out_s, s)
    np.copyto(out_u, u)
    np.copyto(out_v, np.swapaxes(vh, -1, -2))
