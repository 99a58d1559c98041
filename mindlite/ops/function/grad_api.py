"""Functional autodiff helpers: ops.stop_gradient, and the grad APIs re-exported."""
from ..composite import GradOperation, grad, value_and_grad  # noqa: F401
from ..operations import other_ops

__all__ = ["stop_gradient", "grad", "value_and_grad", "GradOperation"]

_stop_gradient = other_ops.StopGradient()


def stop_gradient(value):
    return _stop_gradient(value)
