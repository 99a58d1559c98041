"""Neural-network primitives: activations, Softmax / LogSoftmax, BiasAdd.
Kernels: kernels/cpu/nn_*.py; bprops: ops/bprop/nn_bprop.py."""
from ...common import dtype as mstype
from ._base import UnaryOp

__all__ = ["ReLU"]


class ReLU(UnaryOp):
    """y = max(x, 0). Gradient at 0 is 0 (as MindSpore, PyTorch, JAX)."""
    valid_types = mstype.SIGNED_TYPES
