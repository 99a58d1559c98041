"""Other primitives: StopGradient (identity that blocks gradients)."""
from ...ir.rules import non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_tensor

__all__ = ["StopGradient"]


class StopGradient(Primitive):
    """y = x, and no gradient flows through y (the grad recorder never records it)."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_tensor(self, "x", x)
        return x


non_differentiable(StopGradient)
