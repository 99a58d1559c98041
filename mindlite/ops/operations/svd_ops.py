"""The singular value decomposition primitive of issue 13's matrix norms ('nuc', 2, -2):
Svd (MindSpore's ops.Svd: outputs (s, u, v), A = u diag(s) v^T over the last two axes), with
its bprop below it (PyTorch's real svd_backward, built from primitives). Kernel:
kernels/cpu/linalg_numpy.py. Functional names: ops.svd, ops.norm (ops/function/linalg_func.py).
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_dtype, tensor
from ._base import cached_prim, needs_grad
from .math_ops import BatchMatMul

__all__ = ["Svd"]

_bmm, _t_a, _t_b = BatchMatMul(), BatchMatMul(True, False), BatchMatMul(False, True)


def _F():
    from .. import functional as F  # bprops only: functional imports this module
    return F


class Svd(Primitive):
    """(s, u, v): singular values in descending order (..., k), k = min(m, n), and the
    singular vectors u (..., m, k) and v (..., n, k) (m and n with full_matrices) of a
    float32/float64 input of rank >= 2. compute_uv False: u and v are empty (..., 0, 0)
    placeholders. Singular vectors are unique up to sign (LAPACK's choice). Gradient:
    U diag(ds) V^T for the values; the vectors' terms divide by s_j^2 - s_i^2, so repeated
    singular values give inf/nan there (as PyTorch)."""
    input_names = ("input",)

    @prim_attr_register
    def __init__(self, full_matrices=False, compute_uv=True):
        check_bool(self, "full_matrices", full_matrices)
        check_bool(self, "compute_uv", compute_uv)

    def infer(self, x):
        check_dtype(self, "input", x, (mstype.float32, mstype.float64))
        if len(x.shape) < 2:
            raise ValueError(f"For '{self.name}', the rank of 'input' must be at least 2, but got "
                             f"shape {list(x.shape)}")
        *batch, m, n = x.shape
        batch, k = tuple(batch), min(m, n)
        s = tensor(x.dtype, batch + (k,))
        if not self.attrs["compute_uv"]:
            empty = tensor(x.dtype, batch + (0, 0))
            return (s, empty, empty)
        cols_u, cols_v = (m, n) if self.attrs["full_matrices"] else (k, k)
        return (s, tensor(x.dtype, batch + (m, cols_u)), tensor(x.dtype, batch + (n, cols_v)))

    def kernel_params(self, x):
        return {"full_matrices": self.attrs["full_matrices"],
                "compute_uv": self.attrs["compute_uv"]}


def _mT(F, t):
    r = len(t.shape)
    return F.transpose(t, tuple(range(r - 2)) + (r - 1, r - 2))


def _diag_embed(F, v, k, dtype):
    return F.mul(F.expand_dims(v, -1), F.eye(k, k, dtype))


@bprop_for(Svd)
def svd_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    F = _F()
    *_, m, n = x.shape
    k = min(m, n)
    ds, du, dv = dout
    if not prim.attrs["compute_uv"]:
        s, u, v = cached_prim(Svd, False, True)(x)
        return (_t_b(_bmm(u, _diag_embed(F, ds, k, x.dtype)), v),)
    s, u, v = out
    if prim.attrs["full_matrices"] and m != n:
        raise ValueError(f"For '{prim.name}', the gradient with full_matrices=True needs a "
                         f"square input (the extra singular vectors are not unique), but got "
                         f"shape {list(x.shape)}")
    srow, scol = F.expand_dims(s, -2), F.expand_dims(s, -1)
    s2 = F.mul(s, s)
    e = F.add(F.sub(F.expand_dims(s2, -2), F.expand_dims(s2, -1)), F.eye(k, k, x.dtype))
    uhgu, vhgv = _t_a(u, du), _t_a(v, dv)
    uhgu, vhgv = F.sub(uhgu, _mT(F, uhgu)), F.sub(vhgv, _mT(F, vhgv))
    inner = F.div(F.add(F.mul(uhgu, srow), F.mul(scol, vhgv)), e)
    inner = F.add(inner, _diag_embed(F, ds, k, x.dtype))
    if m > k:
        g = _bmm(u, inner)
        gus = F.div(du, srow)
        g = F.sub(F.add(g, gus), _bmm(u, _t_a(u, gus)))
        return (_t_b(g, v),)
    if n > k:
        g = _t_b(inner, v)
        gvs = _mT(F, F.div(dv, srow))
        g = F.sub(F.add(g, gvs), _t_b(_bmm(gvs, v), v))
        return (_bmm(u, g),)
    return (_t_b(_bmm(u, inner), v),)
