"""Array primitives: shape manipulation, slicing, gathering, creation, Cast, Assign.
Kernels: kernels/cpu/array_*.py."""
from ...abstract import AbstractScalar
from ..primitive import Primitive, prim_attr_register
from ..validator import check_shape_arg, check_tensor, tensor

__all__ = ["Reshape", "Shape"]


class Reshape(Primitive):
    """y = x with `shape` (one -1 is inferred); returns a view when numpy can."""
    input_names = ("input_x", "input_shape")
    const_inputs = (1,)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, shape):
        check_tensor(self, "input_x", x)
        shape = check_shape_arg(self, "input_shape", shape)
        if shape.count(-1) > 1 or any(d < -1 for d in shape):
            raise ValueError(f"For '{self.name}', 'input_shape' may hold at most one -1 and no "
                             f"other negative value, but got {list(shape)}")
        known = 1
        for d in shape:
            known *= d if d != -1 else 1
        if -1 in shape:
            if known == 0 or x.size % known:
                raise ValueError(f"For '{self.name}', cannot infer -1 in 'input_shape' "
                                 f"{list(shape)} for an input of size {x.size}")
            shape = tuple(x.size // known if d == -1 else d for d in shape)
        elif known != x.size:
            raise ValueError(f"For '{self.name}', the product of 'input_shape' {list(shape)} must "
                             f"equal the size of 'input_x' {x.size} (shape {list(x.shape)})")
        return tensor(x.dtype, shape)

    def kernel_params(self, x, shape):
        return {"shape": self.infer(x, shape).shape}


class Shape(Primitive):
    """The shape of x as a tuple of ints (constant-folded: no kernel runs)."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_tensor(self, "input_x", x)
        return AbstractScalar(x.shape)
