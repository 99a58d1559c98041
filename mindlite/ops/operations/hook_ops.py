"""HookBackward (MindSpore's ops.HookBackward(hook_fn, cell_id="")): the identity in the forward
pass; in the backward pass `hook_fn(grad)` sees the gradient arriving at its outputs (a Tensor,
or a tuple for several inputs) and may return a replacement (None keeps it). nn.Cell's
register_backward_hook is built on it (nn/cell_hooks.py).

The hook is per instance, so a call does not go through the shared runner caches (whose
runners record the primitive they were built for): __call__ copies the inputs and records
this very instance on the open grad tapes. Copies, not views: a result never changes
afterwards, whatever later happens to the inputs.
"""
from ...common.tensor import Tensor
from ...common.api import PYNATIVE
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive

__all__ = ["HookBackward"]


class HookBackward(Primitive):
    """y = x (one or more Tensors); the backward calls hook_fn(dy)."""

    def __init__(self, hook_fn, cell_id=""):
        super().__init__("HookBackward")
        if not callable(hook_fn):
            raise TypeError(f"For 'HookBackward', 'hook_fn' must be a function, but got "
                            f"{type(hook_fn).__name__}")
        if not isinstance(cell_id, str):
            raise TypeError(f"For 'HookBackward', 'cell_id' must be a str, but got "
                            f"{type(cell_id).__name__}")
        self.hook_fn, self.cell_id = hook_fn, cell_id

    def infer(self, *inputs):
        if not inputs:
            raise ValueError("For 'HookBackward', at least one input is required")
        for i, x in enumerate(inputs):
            if not isinstance(x, Tensor) and not hasattr(x, "shape"):
                raise TypeError(f"For 'HookBackward', input {i} must be a Tensor, but got "
                                f"{type(x).__name__}")
        return inputs[0] if len(inputs) == 1 else tuple(inputs)

    def __call__(self, *inputs):
        self.infer(*inputs)
        out = tuple(Tensor.from_numpy(x.asnumpy().copy()) for x in inputs)
        out = out[0] if len(out) == 1 else out
        if PYNATIVE.grad.recording:
            PYNATIVE.grad.record(self, inputs, out)
        return out


@bprop_for(HookBackward)
def hook_backward_bprop(prim, *args):
    inputs, dout = args[:-2], args[-1]
    new = prim.hook_fn(dout)
    if new is not None:
        dout = new
    if len(inputs) == 1:
        return (dout[0] if isinstance(dout, tuple) else dout,)
    if not isinstance(dout, tuple) or len(dout) != len(inputs):
        raise ValueError(f"For 'HookBackward', the hook must return {len(inputs)} gradients "
                         f"(a tuple) or None, but got {dout!r}")
    return tuple(dout)
