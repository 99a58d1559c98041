"""numpy kernel of HookBackward (ops/operations/hook_ops.py): copies of its inputs. The
primitive's own __call__ does the same without a kernel launch; this kernel serves the
generic paths (registry completeness, a graph lowered through the registry)."""
from ..registry import register_kernel


@register_kernel("HookBackward", provider="numpy", alloc="kernel")
def hook_backward_numpy(*inputs):
    out = tuple(x.copy() for x in inputs)
    return out[0] if len(out) == 1 else out
