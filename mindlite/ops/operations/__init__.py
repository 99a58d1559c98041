"""All primitives, by family (MindSpore's ops.operations)."""
from .math_ops import *  # noqa: F401,F403
from .nn_ops import *  # noqa: F401,F403
from .array_ops import *  # noqa: F401,F403
from .reduce_ops import *  # noqa: F401,F403
from .slice_ops import *  # noqa: F401,F403
