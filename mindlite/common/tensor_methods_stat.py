"""Tensor's statistics, linear-algebra and sampling methods of MindSpore 2.10:
`x.median(...)`, `x.nansum(...)`, `x.quantile(q)`, `x.kthvalue(k)`, `x.histc()`,
`x.unique(...)`, `x.addmm(...)`, `x.cholesky()`, `x.multinomial(n)`, ... Each calls its
functional op, so it is recorded for autograd. Methods with two MindSpore signatures are
`overloaded` (tensor_overload.py). Listed in tensor.py's `_METHOD_MODULES`.
"""
from . import dtype as mstype
from .tensor_overload import overloaded

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


def _median_old(self, axis, keepdims):
    return F.median(self, axis, keepdims)


def _median_dim(self, dim, keepdim):
    return F.median(self, dim, keepdim)


def _median_all(self):
    """The median of all elements (the lower middle one), as a 0-D tensor."""
    return F.median(F.reshape(self, (-1,)), 0)[0]


def _nansum_dim(self, dim, keepdim, dtype):
    return F.nansum(self, dim, keepdim, dtype=dtype)


def _count_dim(self, dim):
    """int32 counts: MindSpore 2.10's CPU runs this form through CountNonZero's int32 kernel."""
    return F.count_nonzero(self, () if dim is None else dim)


def _count_old(self, axis, keep_dims, dtype):
    return F.count_nonzero(self, axis, keep_dims, mstype.int32 if dtype is None else dtype)


class StatTensorMethods:
    """Order statistics, NaN-aware reductions, products, decompositions, samplers."""
    __slots__ = ()

    median = overloaded("median", ("axis: int = -1, keepdims: bool = False", _median_old),
                        ("", _median_all), ("dim: int = -1, keepdim: bool = False",
                                            _median_dim))
    nansum = overloaded(
        "nansum", ("dim: ints? = None, keepdim: bool = False, *, dtype: dtype? = None",
                   _nansum_dim),
        ("axis: ints? = None, keepdims: bool = False, *, dtype: dtype? = None", _nansum_dim))
    count_nonzero = overloaded("count_nonzero", ("dim: ints? = None", _count_dim),
                               ("axis: ints = (), keep_dims: bool = False, dtype: dtype? = None",
                                _count_old))

    def nanmean(self, axis=None, keepdims=False, *, dtype=None):
        return F.nanmean(self, axis, keepdims, dtype=dtype)

    def nanmedian(self, axis=-1, keepdims=False): return F.nanmedian(self, axis, keepdims)

    def quantile(self, q, axis=None, keepdims=False):
        return F.quantile(self, q, axis, keepdims)

    def nanquantile(self, q, axis=None, keepdims=False):
        return F.nanquantile(self, q, axis, keepdims)

    def kthvalue(self, k, dim=-1, keepdim=False): return F.kthvalue(self, k, dim, keepdim)
    def histc(self, bins=100, min=0, max=0): return F.histc(self, bins, min, max)

    def bincount(self, weights=None, minlength=0):
        return F.bincount(self, weights, minlength)

    def aminmax(self, *, axis=0, keepdims=False):
        return F.aminmax(self, axis=axis, keepdims=keepdims)

    def ptp(self, axis=None, keepdims=False):
        return F.sub(F.amax(self, axis, keepdims), F.amin(self, axis, keepdims))

    def logcumsumexp(self, axis): return F.logcumsumexp(self, axis)
    def renorm(self, p, axis, maxnorm): return F.renorm(self, p, axis, maxnorm)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        return F.cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def searchsorted(self, v, side="left", sorter=None):
        """int32 insertion points (as MindSpore's Tensor.searchsorted)."""
        return F.searchsorted(self, v, out_int32=True, side=side, sorter=sorter)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return F.unique_ext(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return F.unique_consecutive(self, return_inverse, return_counts, dim)

    def argmax_with_value(self, axis=0, keep_dims=False):
        """(values, int64 indices) of the maximum along axis."""
        return F.max(self, axis, keep_dims)

    def argmin_with_value(self, axis=0, keep_dims=False):
        return F.min(self, axis, keep_dims)

    def top_k(self, k, sorted=True): return F.topk(self, k, -1, True, sorted)

    # ---- products ------------------------------------------------------------------------
    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return F.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return F.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return F.baddbmm(self, batch1, batch2, beta, alpha)

    def addmv(self, mat, vec, beta=1, alpha=1):
        return F.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addr(self, vec1, vec2, beta=1, alpha=1):
        return F.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def adjoint(self): return F.adjoint(self)
    def cross(self, other, dim=None): return F.cross(self, other, dim)

    # ---- decompositions (linalg_decomp_func.py) ------------------------------------------
    def cholesky(self, upper=False): return F.cholesky(self, upper)
    def cholesky_inverse(self, upper=False): return F.cholesky_inverse(self, upper)
    def cholesky_solve(self, input2, upper=False): return F.cholesky_solve(self, input2, upper)
    def qr(self, some=True): return F.qr(self, "reduced" if some else "complete")
    def slogdet(self): return F.slogdet(self)
    def logdet(self): return F.logdet(self)
    def log_matrix_determinant(self): return F.slogdet(self)
    def eigvals(self): return F.eigvals(self)
    def lstsq(self, A): return F.lstsq(self, A)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        return F.triangular_solve(self, A, upper, transpose, unitriangular)

    def svd(self, full_matrices=False, compute_uv=True):
        return F.svd(self, full_matrices, compute_uv)

    # ---- sampling ------------------------------------------------------------------------
    def bernoulli(self, *, generator=None): return F.bernoulli(self, self)

    def multinomial(self, num_samples, replacement=True, seed=None):
        return F.multinomial(self, num_samples, replacement, seed)

    def uniform(self, from_=0.0, to=1.0, generator=None):
        return F.add(F.mul(F.rand(self.shape, dtype=self.dtype), to - from_), from_)

    def log_normal(self, mean=1.0, std=2.0):
        return F.exp(F.add(F.mul(F.randn(self.shape, dtype=self.dtype), std), mean))

    def random_categorical(self, num_sample, seed=0, dtype=mstype.int64):
        return F.cast(F.multinomial(F.softmax(self, -1), num_sample, True), dtype)


METHODS = StatTensorMethods
