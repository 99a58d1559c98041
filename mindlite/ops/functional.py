"""ops.functional: every functional op (ops.relu, ops.add, ...), one import for Tensor methods."""
from .function.math_func import *  # noqa: F401,F403
from .function.nn_func import *  # noqa: F401,F403
from .function.reduce_func import *  # noqa: F401,F403
from .function.array_func import *  # noqa: F401,F403
from .function.index_func import *  # noqa: F401,F403
from .function.grad_api import *  # noqa: F401,F403
from .function.loss_func import *  # noqa: F401,F403
from .function.conv_func import *  # noqa: F401,F403
