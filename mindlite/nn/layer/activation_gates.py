"""Gating, thresholding and shrinkage activations (mindspore.nn): GLU, Threshold, HShrink,
SoftShrink, Softmax2d. Each is a few primitives (slicing, Sigmoid, Select,
Softmax), so gradients flow as through the primitives (the subgradient at a threshold is
that of Select: the branch taken)."""
import numbers

from ...ops import functional as F
from ..cell import Cell
from .normalization import _check_tensor

__all__ = ["GLU", "Threshold", "HShrink", "SoftShrink", "Softmax2d"]


def _real(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    return float(value)


class GLU(Cell):
    """The gated linear unit: a * sigmoid(b), a and b the halves of x along `axis`."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"For 'GLU', 'axis' must be an int, but got {axis!r}")
        self.axis = int(axis)

    def construct(self, x):
        _check_tensor("GLU", x)
        if not -x.ndim <= self.axis < max(x.ndim, 1) or x.ndim == 0:
            raise ValueError(f"For 'GLU', 'axis' must be in [{-x.ndim}, {x.ndim}), but got "
                             f"{self.axis}")
        n = x.shape[self.axis]
        if n % 2:
            raise ValueError(f"For 'GLU', the size of axis {self.axis} must be even, but got "
                             f"{n}")
        axis = self.axis % x.ndim
        lead = (slice(None),) * axis
        a, b = x[lead + (slice(0, n // 2),)], x[lead + (slice(n // 2, n),)]
        return a * F.sigmoid(b)


class Threshold(Cell):
    """y = x where x > threshold, else value."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = _real("Threshold", "threshold", threshold)
        self.value = _real("Threshold", "value", value)

    def construct(self, x):
        _check_tensor("Threshold", x)
        return F.select(x > self.threshold, x, F.fill(x.dtype, x.shape, self.value))


class HShrink(Cell):
    """Hard shrinkage: y = x where |x| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _real("HShrink", "lambd", lambd)
        if self.lambd < 0:
            raise ValueError(f"For 'HShrink', 'lambd' must be non-negative, but got {lambd}")

    def construct(self, x):
        _check_tensor("HShrink", x)
        return F.select(F.abs(x) > self.lambd, x, F.zeros_like(x))


class SoftShrink(Cell):
    """Soft shrinkage: y = x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _real("SoftShrink", "lambd", lambd)
        if self.lambd < 0:
            raise ValueError(f"For 'SoftShrink', 'lambd' must be non-negative, but got {lambd}")

    def construct(self, x):
        _check_tensor("SoftShrink", x)
        zero = F.zeros_like(x)
        return F.select(x > self.lambd, x - self.lambd,
                        F.select(x < -self.lambd, x + self.lambd, zero))


class Softmax2d(Cell):
    """Softmax over the channels of (C, H, W) or (N, C, H, W) inputs."""

    def construct(self, x):
        _check_tensor("Softmax2d", x)
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the input must be 3-D or 4-D, but got shape "
                             f"{list(x.shape)}")
        return F.softmax(x, -3)
