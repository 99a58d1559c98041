"""Cell hooks (MindSpore's Cell.register_forward_pre_hook, register_forward_hook,
register_backward_pre_hook, register_backward_hook), PyNative only as in MindSpore: a
compiled (GRAPH_MODE / @jit) call parses `construct` and does not run them.

- forward_pre_hook(cell, inputs) -> None or new inputs (a tuple, or one value)
- forward_hook(cell, inputs, output) -> None or a new output
- backward_pre_hook(cell, grad_output) -> None or a new grad_output
- backward_hook(cell, grad_input, grad_output) -> None or new grad_input (a tuple)

Backward hooks wrap the call's Tensor inputs and outputs in ops.HookBackward identities
while a gradient is being recorded: the outputs' identity sees grad_output first (and keeps
it for this call), the inputs' identity then sees grad_input. Each register_* returns a
handle whose remove() unregisters the hook; a Cell without hooks pays one attribute check.
"""
import itertools

from ..common.tensor import Tensor
from ..ops.operations.hook_ops import HookBackward
from ..pynative.grad import GRAD_EXECUTOR

__all__ = ["HookHandle", "register", "hooked_call"]

KINDS = ("forward_pre", "forward", "backward_pre", "backward")
_IDS = itertools.count()


class HookHandle:
    """remove() unregisters the hook (idempotent)."""

    def __init__(self, cell, kind, key):
        self._cell, self._kind, self.handle_id = cell, kind, key

    def remove(self):
        hooks = self._cell.__dict__.get("_hooks")
        if hooks is None:
            return
        hooks[self._kind].pop(self.handle_id, None)
        if not any(hooks.values()):
            object.__setattr__(self._cell, "_hooks", None)


def register(cell, kind, hook_fn):
    if not callable(hook_fn):
        raise TypeError(f"For '{type(cell).__name__}.register_{kind}_hook', 'hook_fn' must be a "
                        f"function, but got {type(hook_fn).__name__}")
    hooks = cell.__dict__.get("_hooks")
    if hooks is None:
        hooks = {k: {} for k in KINDS}
        object.__setattr__(cell, "_hooks", hooks)
    key = next(_IDS)
    hooks[kind][key] = hook_fn
    return HookHandle(cell, kind, key)


def _wrap(values, hook_fn):
    """The Tensors among `values` passed through one HookBackward(hook_fn)."""
    positions = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    if not positions:
        return values
    wrapped = HookBackward(hook_fn)(*[values[i] for i in positions])
    wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
    out = list(values)
    for i, w in zip(positions, wrapped):
        out[i] = w
    return tuple(out)


def _as_tuple(g):
    return g if isinstance(g, tuple) else (g,)


def hooked_call(cell, args, kwargs, eager=False):
    hooks = cell._hooks
    for fn in list(hooks["forward_pre"].values()):
        new = fn(cell, args)
        if new is not None:
            args = new if isinstance(new, tuple) else (new,)
    backward = GRAD_EXECUTOR.recording and (hooks["backward"] or hooks["backward_pre"])
    if backward:
        state = {"grad_output": ()}

        def on_grad_output(g):
            grad_output = _as_tuple(g)
            for fn in list(hooks["backward_pre"].values()):
                new = fn(cell, grad_output)
                if new is not None:
                    grad_output = _as_tuple(new)
            state["grad_output"] = grad_output
            return grad_output if isinstance(g, tuple) else grad_output[0]

        def on_grad_input(g):
            grad_input = _as_tuple(g)
            for fn in list(hooks["backward"].values()):
                new = fn(cell, grad_input, state["grad_output"])
                if new is not None:
                    grad_input = _as_tuple(new)
            return grad_input if isinstance(g, tuple) else grad_input[0]
        args = _wrap(args, on_grad_input)
    out = cell._call(args, kwargs, eager)
    if backward:
        if isinstance(out, tuple):
            out = _wrap(out, on_grad_output)
        elif isinstance(out, Tensor):
            out = _wrap((out,), on_grad_output)[0]
    for fn in list(hooks["forward"].values()):
        new = fn(cell, args, out)
        if new is not None:
            out = new
    return out
