"""numpy kernels for index_ops (BasicIndex, BasicIndexGrad): the index's start values arrive
as 0-d int arrays on each call, are checked against the axis sizes here (the only place they
are known) and become one numpy basic index. Nothing is written before the check passes."""
import builtins

from ..registry import register_kernel

_FULL = builtins.slice(None)
_EMPTY = builtins.slice(0, 0)
_INT, _NEW, _FULL_KIND = -1, -2, -3


def _index(op, items, starts):
    """The numpy index of `items` (kind or n, step, axis size) with these start values."""
    idx = []
    k = 0
    for kind, step, d in items:
        if kind == _FULL_KIND:
            idx.append(_FULL)
        elif kind == _NEW:
            idx.append(None)
        else:
            s = int(starts[k])
            k += 1
            if kind == _INT:
                if not -d <= s < d:
                    raise ValueError(f"For '{op}', index {s} is out of bounds for an axis of "
                                     f"size {d}")
                idx.append(s)
            elif kind == 0:
                idx.append(_EMPTY)
            else:
                last = s + (kind - 1) * step
                if not (0 <= s < d and 0 <= last < d):
                    raise ValueError(f"For '{op}', a slice of {kind} elements with step {step} "
                                     f"from {s} is out of bounds for an axis of size {d}")
                stop = s + kind * step
                idx.append(builtins.slice(s, stop if stop >= 0 else None, step))
    return tuple(idx)


@register_kernel("BasicIndex", provider="numpy")
def basic_index_numpy(x, *arrays, items=None):
    """items None: the layout (-1, 0), x[i] (BasicIndex.kernel_params binds nothing then, so
    a row iteration calls this function directly)."""
    out = arrays[-1]
    if items is None:
        s = int(arrays[0])
        try:
            out[...] = x[s]
        except IndexError:
            raise ValueError(f"For 'BasicIndex', index {s} is out of bounds for an axis of "
                             f"size {x.shape[0] if x.ndim else 0}") from None
        return
    out[...] = x[_index("BasicIndex", items, arrays[:-1])]


@register_kernel("BasicIndexGrad", provider="numpy")
def basic_index_grad_numpy(dy, *arrays, items):
    out = arrays[-1]
    idx = _index("BasicIndexGrad", items, arrays[:-1])
    out.fill(0)
    out[idx] = dy
