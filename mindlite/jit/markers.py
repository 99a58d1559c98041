"""MindSpore 2.10's graph-compilation markers: `mutable`, `lazy_inline`, `no_inline`,
`jit_class`, `recompute`. Each tells MindSpore's graph compiler how to treat a value, a
Cell or a class; none changes a result. mindlite's graph mode (jit/) compiles each input
signature separately and inlines every call, so here they check their arguments as
MindSpore does and otherwise run the code as written: `mutable(x)` is `x`, a
`lazy_inline` / `no_inline` function runs unchanged, `recompute(block, *args)` is
`block(*args)` (the same values and gradients; MindSpore would also recompute the
block's activations in the backward pass to save memory)."""
import functools
import numbers

from ..common.tensor import Tensor
from ..nn.cell import Cell

__all__ = ["mutable", "lazy_inline", "no_inline", "jit_class", "recompute"]


def _mutable_ok(value):
    if isinstance(value, (Tensor, numbers.Number)) and not isinstance(value, bool):
        return True
    if isinstance(value, (tuple, list)):
        return all(_mutable_ok(v) for v in value)
    if isinstance(value, dict):
        return all(_mutable_ok(v) for v in value.values())
    return False


def mutable(input_data, dynamic_len=False):
    """Mark a Tensor, number, or tuple / list / dict of them as a variable of the compiled
    graph (not a constant); returns it. `dynamic_len`: a list / tuple whose length may
    change."""
    if not _mutable_ok(input_data):
        raise TypeError(f"For 'mutable', 'input_data' must be a Tensor, int, float, or a "
                        f"tuple / list / dict of them, but got {type(input_data).__name__}")
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise TypeError("For 'mutable', 'dynamic_len' is only for a tuple or list, but got "
                        f"{type(input_data).__name__}")
    return input_data


def _marker(name):
    def decorate(fn=None, **kwargs):
        if fn is None:
            return lambda f: decorate(f, **kwargs)
        if not callable(fn):
            raise TypeError(f"For '{name}', the decorated object must be callable, but got "
                            f"{type(fn).__name__}")

        @functools.wraps(fn)
        def wrapper(*args, **kw):
            return fn(*args, **kw)
        setattr(wrapper, f"_{name}", True)
        return wrapper
    decorate.__name__ = name
    return decorate


_lazy = _marker("lazy_inline")
_no_inline = _marker("no_inline")


def lazy_inline(fn=None, attrs=None, policy=None):
    """Decorate a Cell's `__init__` so MindSpore's compiler reuses the Cell's graph instead
    of inlining it at every call; the Cell runs unchanged."""
    if fn is None:
        return lambda f: _lazy(f)
    return _lazy(fn)


def no_inline(fn=None):
    """Decorate a function MindSpore's compiler should keep as a separate subgraph."""
    return _no_inline(fn) if fn is not None else _no_inline


def jit_class(cls):
    """Mark a user class whose instances and methods graph mode may use."""
    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got "
                        f"{cls!r}")
    if issubclass(cls, Cell):
        raise TypeError(f"Decorator jit_class is used for user-defined classes and cannot be "
                        f"used for nn.Cell: {cls!r}")
    cls.__ms_class__ = True
    return cls


def recompute(block, *args, use_reentrant=True, output_recompute=False, early_stop=True,
              context_fn=None, **kwargs):
    """block(*args, **kwargs), whose activations MindSpore recomputes in the backward pass
    rather than keeping them; same values and gradients here."""
    if not callable(block):
        raise TypeError(f"For 'recompute', 'block' must be callable, but got "
                        f"{type(block).__name__}")
    return block(*args, **kwargs)
