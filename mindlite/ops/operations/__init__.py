"""All primitives, by family (MindSpore's ops.operations)."""
from .math_ops import *  # noqa: F401,F403
from .elementwise_ops import *  # noqa: F401,F403
from .logic_ops import *  # noqa: F401,F403
from .nn_ops import *  # noqa: F401,F403
from .array_ops import *  # noqa: F401,F403
from .creation_ops import *  # noqa: F401,F403
from .reduce_ops import *  # noqa: F401,F403
from .slice_ops import *  # noqa: F401,F403
from .other_ops import *  # noqa: F401,F403
from ._grad_ops import *  # noqa: F401,F403
from . import _grad_ops  # noqa: F401
from .conv_ops import *  # noqa: F401,F403
from .pool_ops import *  # noqa: F401,F403
from .norm_ops import *  # noqa: F401,F403
from .loss_ops import *  # noqa: F401,F403
from .optim_ops import *  # noqa: F401,F403
