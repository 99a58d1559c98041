"""mindlite.common: the ground floor (dtypes, Tensor and Parameter data, initializers), and
MindSpore's `mindspore.common` path for the names scripts import from it (`from
mindspore.common import set_seed`, `dtype as mstype`, `Tensor`, `Parameter`). `api` is
MindSpore's `mindspore.common.api` path (`jit`), filled from the jit floor above
(mindlite/__init__.py binds it), as this floor imports nothing above itself."""
from . import dtype  # noqa: F401
from .dtype import *  # noqa: F401,F403
from .tensor import Tensor  # noqa: F401
from .parameter import Parameter, ParameterTuple  # noqa: F401
from . import initializer  # noqa: F401
from . import api  # noqa: F401
from ..random_state import get_seed, set_seed  # noqa: F401
