"""mindlite.ops: primitives (ops.ReLU) and functional ops (ops.relu), as mindspore.ops."""
from .primitive import Primitive, PrimitiveWithInfer, prim_attr_register  # noqa: F401
from .operations import *  # noqa: F401,F403
from .functional import *  # noqa: F401,F403
from . import operations, functional  # noqa: F401
