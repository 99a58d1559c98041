"""Graph-mode errors: every one names the construct or op and the source file:line.

`located(exc, stack)` re-raises an error from inference or from a constant computation
with the graph's call chain appended (user code first, as MindSpore's "The Traceback of
Net Construct Code"), keeping the exception's type (TypeError stays TypeError).
"""


class UnsupportedSyntaxError(RuntimeError):
    """Python syntax or a call that graph mode cannot compile (never silently changed)."""


def trace_text(stack):
    lines = ["", "----- graph mode source trace -----"]
    for loc in stack:
        lines.append(f"In file {loc.file}:{loc.line}")
        text = loc.text.strip()
        if text:
            lines.append(f"    {text}")
    return "\n".join(lines)


def located(exc, stack):
    """The same exception type with the source trace appended (once)."""
    if getattr(exc, "_jit_located", False):
        return exc
    try:
        new = type(exc)(f"{exc}{trace_text(stack)}")
    except Exception:       # an exception class whose constructor takes other arguments
        new = RuntimeError(f"{type(exc).__name__}: {exc}{trace_text(stack)}")
    new._jit_located = True
    return new


def unsupported(what, stack):
    err = UnsupportedSyntaxError(f"Graph mode does not support {what}{trace_text(stack)}")
    err._jit_located = True
    return err
