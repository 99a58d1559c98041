"""Gradient clipping by norm, as MindSpore 2.x: ops.clip_by_global_norm and ops.clip_by_norm.

Both are composites of differentiable primitives (Square, ReduceSum, Sqrt, Maximum, Mul,
Cast), so they run under grad and in graph mode like any op.
- clip_by_global_norm(x, clip_norm=1.0, use_norm=None): every tensor times clip_norm,
  divided by max(global_norm, clip_norm), global_norm = sqrt(sum of all squares), in each
  tensor's own dtype. A tuple or list gives a tuple; one Tensor gives a Tensor.
- clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False): PyTorch's rule, which
  MindSpore 2.x follows: the total norm of all tensors (norm of their norms), then each times
  min(max_norm / (total + 1e-6), 1). Integer tensors come back float32; a list gives a list,
  a tuple a tuple.
"""
import math
import numbers

from ...common import dtype as mstype
from ...common.tensor import Tensor
from . import array_func as A
from . import math_func as M
from . import reduce_func as R

__all__ = ["clip_by_global_norm", "clip_by_norm"]


def _tensors(api, x):
    if isinstance(x, Tensor):
        return (x,), False
    if isinstance(x, (tuple, list)) and x and all(isinstance(t, Tensor) for t in x):
        return tuple(x), True
    raise TypeError(f"For '{api}', 'x' must be a Tensor or a non-empty tuple/list of Tensors, "
                    f"but got {type(x).__name__}")


def _number(api, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{api}', '{name}' must be a float or an int, but got "
                        f"{type(value).__name__}")
    return float(value)


def _float(t):
    return t if t.dtype in mstype.FLOAT_TYPES else A.cast(t, mstype.float32)


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """x * clip_norm / max(global_norm(x), clip_norm) (see the module docstring)."""
    api = "clip_by_global_norm"
    xs, many = _tensors(api, x)
    clip = _number(api, "clip_norm", clip_norm)
    if clip <= 0.0:
        raise ValueError(f"For '{api}', the argument 'clip_norm' must > 0.0, but got {clip}.")
    if use_norm is not None:
        raise ValueError(f"For '{api}', input 'use_norm' only supports None currently, but got "
                         f"'use_norm': {use_norm}")
    squares = [R.sum(M.square(A.cast(t, mstype.float32))) for t in xs]
    total = squares[0]
    for s in squares[1:]:
        total = M.add(total, s)
    # x * clip / max(norm, clip) in that order: correctly rounded in x's dtype (as MindSpore)
    denominator = M.maximum(M.sqrt(total), clip)
    out = tuple(M.div(M.mul(t, clip), A.cast(denominator, t.dtype)) for t in xs)
    return out if many else out[0]


def _norm_of(t, norm_type):
    a = M.abs(_float(t))
    if norm_type == math.inf:
        return R.amax(a) if a.size else A.cast(Tensor(0.0), a.dtype)
    if norm_type == 2.0:
        return M.sqrt(R.sum(M.square(a)))
    return M.pow(R.sum(M.pow(a, norm_type)), 1.0 / norm_type)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale x so that its total norm (all tensors together) is at most max_norm."""
    api = "clip_by_norm"
    xs, many = _tensors(api, x)
    limit = _number(api, "max_norm", max_norm)
    p = _number(api, "norm_type", norm_type)
    if not isinstance(error_if_nonfinite, bool):
        raise TypeError(f"For '{api}', 'error_if_nonfinite' must be a bool, but got "
                        f"{type(error_if_nonfinite).__name__}")
    norms = [A.cast(_norm_of(t, p), mstype.float32) for t in xs]
    if len(norms) == 1:
        total = norms[0]
    elif p == math.inf:
        total = norms[0]
        for n in norms[1:]:
            total = M.maximum(total, n)
    else:
        acc = M.pow(norms[0], p)
        for n in norms[1:]:
            acc = M.add(acc, M.pow(n, p))
        total = M.pow(acc, 1.0 / p)
    if error_if_nonfinite and not math.isfinite(float(total.asnumpy())):
        raise RuntimeError(f"For {api}, the total norm of order {p} from input is non-finite.")
    coef = M.minimum(M.div(limit, M.add(total, 1e-6)), 1.0)
    out = [M.mul(_float(t), A.cast(coef, _float(t).dtype)) for t in xs]
    if not many:
        return out[0]
    return out if isinstance(x, list) else tuple(out)
