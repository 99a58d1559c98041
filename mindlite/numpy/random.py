"""mindlite.numpy's random functions: `rand` (uniform [0, 1)), `randn` (standard normal),
`randint` ([minval, maxval)); draws come from the ops random primitives and follow
`mindlite.set_seed`."""
import numbers

from ..common import dtype as mstype
from ..ops import functional as F

__all__ = ["rand", "randn", "randint"]


def _shape(shape, name):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if not all(isinstance(d, numbers.Integral) and d >= 0 for d in shape):
        raise TypeError(f"For 'mindlite.numpy.{name}', the shape must be non-negative ints, "
                        f"but got {shape!r}")
    return tuple(int(d) for d in shape)


def _float(dtype, name):
    dtype = mstype.to_type(dtype)
    if dtype not in mstype.FLOAT_TYPES:
        raise TypeError(f"For 'mindlite.numpy.{name}', 'dtype' must be a float type, but got "
                        f"{dtype}")
    return dtype


def rand(*shape, dtype=mstype.float32):
    """Uniform samples in [0, 1) of `shape` (ints or one tuple)."""
    return F.rand(*_shape(shape, "rand"), dtype=_float(dtype, "rand"))


def randn(*shape, dtype=mstype.float32):
    """Standard normal samples of `shape`."""
    return F.randn(*_shape(shape, "randn"), dtype=_float(dtype, "randn"))


def randint(minval, maxval=None, shape=None, dtype=mstype.int32):
    """Uniform ints in [minval, maxval) (maxval None: [0, minval))."""
    if maxval is None:
        minval, maxval = 0, minval
    if maxval <= minval:
        raise ValueError(f"For 'mindlite.numpy.randint', 'maxval' must be greater than "
                         f"'minval', but got {minval} and {maxval}")
    shape = () if shape is None else _shape((shape,) if isinstance(shape, int) else
                                            (tuple(shape),), "randint")
    dtype = mstype.to_type(dtype)
    if dtype not in mstype.INT_TYPES:
        raise TypeError(f"For 'mindlite.numpy.randint', 'dtype' must be an int type, but got "
                        f"{dtype}")
    return F.randint(int(minval), int(maxval), shape, dtype=dtype)
