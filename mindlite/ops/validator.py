"""Checks used by inference. Every error names the primitive, the argument, what was
expected and what was given, and is raised before any kernel runs."""
import numbers

from ..common.abstract import AbstractTensor, abstract_tensor
from ..common import dtype as mstype
from ..common import limits


def _types(valid):
    return ", ".join(str(t) for t in valid)


def check_tensor(prim, arg, x):
    if not isinstance(x, AbstractTensor):
        raise TypeError(f"For '{prim.name}', the input '{arg}' must be a Tensor, but got "
                        f"{type(x).__name__}: {x!r}")
    return x


def check_dtype(prim, arg, x, valid):
    check_tensor(prim, arg, x)
    if x.dtype not in valid:
        raise TypeError(f"For '{prim.name}', the type of '{arg}' should be one of "
                        f"[{_types(valid)}], but got {x.dtype}")
    return x.dtype


def check_same_dtype(prim, args):
    """args: [(name, abstract)]; all dtypes must be equal (MindSpore's wording)."""
    (n0, a0) = args[0]
    for n, a in args[1:]:
        if a.dtype is not a0.dtype:
            raise TypeError(f"For '{prim.name}', the type of '{n}' should be same as '{n0}', but "
                            f"got '{n}' with type {a.dtype} and '{n0}' with type {a0.dtype}")
    return a0.dtype


def broadcast_shape(prim, sx, sy, names=("input1", "input2")):
    """numpy's broadcast of shapes sx and sy; a -1 (a dynamic dim in graph mode) against a
    size n > 1 gives n, as MindSpore's rule (the kernel sees the real sizes)."""
    nx, ny = len(sx), len(sy)
    n = max(nx, ny)
    out = []
    for i in range(n):
        dx = sx[i - n + nx] if i - n + nx >= 0 else 1
        dy = sy[i - n + ny] if i - n + ny >= 0 else 1
        if dx == dy or dy == 1:
            out.append(dx)
        elif dx == 1:
            out.append(dy)
        elif dx == -1 or dy == -1:          # a dynamic dim (graph mode): the other one, as MS
            out.append(dy if dx == -1 else dx)
        else:
            raise ValueError(f"For '{prim.name}', {names[0]}.shape and {names[1]}.shape need to "
                             f"broadcast. The value of {names[0]}.shape[{i - n + nx}] or "
                             f"{names[1]}.shape[{i - n + ny}] must be 1 or -1 when they are not "
                             f"the same, but got {names[0]}.shape = {list(sx)} and "
                             f"{names[1]}.shape = {list(sy)}")
    return tuple(out)


def check_int(prim, arg, value, lo=None, hi=None):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"For '{prim.name}', '{arg}' must be an int, but got "
                        f"{type(value).__name__}: {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = f"[{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}]"
        raise ValueError(f"For '{prim.name}', '{arg}' must be in range {rng}, but got {value}")
    return int(value)


def check_output_size(prim, what, shape):
    """`shape` (an output built from an attribute or constant input) within
    limits.MAX_OUTPUT_ELEMENTS, else a ValueError naming the op and `what`."""
    return limits.check_output_size(prim.name, what, shape)


def check_bool(prim, arg, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{prim.name}', '{arg}' must be a bool, but got "
                        f"{type(value).__name__}: {value!r}")
    return value


def check_axis(prim, arg, axis, ndim):
    """One axis in [-ndim, ndim) (a 0-d tensor accepts -1 and 0); returns it non-negative."""
    check_int(prim, arg, axis)
    lim = max(ndim, 1)
    if not -lim <= axis < lim:
        raise ValueError(f"For '{prim.name}', '{arg}' must be in range [{-lim}, {lim}), but got "
                         f"{axis}")
    return axis % lim if ndim else 0


def check_axes(prim, arg, axes, ndim):
    """int, tuple or list of ints, or () / None meaning all; returns sorted unique axes."""
    if axes is None or axes == ():
        return tuple(range(ndim))
    if isinstance(axes, numbers.Integral) and not isinstance(axes, bool):
        axes = (axes,)
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"For '{prim.name}', '{arg}' must be an int, tuple or list of ints, but "
                        f"got {type(axes).__name__}: {axes!r}")
    out = []
    for a in axes:
        a = check_axis(prim, arg, a, ndim)
        if a in out:
            raise ValueError(f"For '{prim.name}', '{arg}' has duplicate axis {a}: {tuple(axes)}")
        out.append(a)
    return tuple(sorted(out)) if ndim else ()


def check_shape_arg(prim, arg, shape):
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in shape):
        raise TypeError(f"For '{prim.name}', '{arg}' must be a tuple of ints, but got {shape!r}")
    return tuple(int(d) for d in shape)


def check_type_arg(prim, arg, value):
    try:
        return mstype.to_type(value)
    except TypeError:
        raise TypeError(f"For '{prim.name}', '{arg}' must be a mindlite dtype, but got "
                        f"{value!r}") from None


def check_index_type(prim, arg, value):
    """An index dtype argument (Argmax's output_type, a pooling's argmax_type): int32 or int64
    (as a Type or anything mstype.to_type takes). Returns the Type."""
    try:
        t = mstype.to_type(value)
    except TypeError:
        t = None
    if t is not mstype.int32 and t is not mstype.int64:
        raise TypeError(f"For '{prim.name}', '{arg}' must be int32 or int64, but got {value!r}")
    return t


def tensor(dtype, shape):
    return abstract_tensor(dtype, tuple(shape))
