"""mindlite.communication: multi-process communication over MPI, as
mindspore.communication (init, ranks, groups). The collective primitives (AllReduce, ...)
are in mindlite.ops; data-parallel training in nn.DistributedGradReducer and
set_auto_parallel_context (docs/distributed.md).

The names (management.py's init, get_rank, create_group, ...) load at the first one used
(mindlite/_lazy.py), so `import mindlite` (whose context imports auto_parallel.py from here)
does not load the MPI layer.
"""
from .._lazy import lazy_exports as _lazy_exports

_LAZY = _lazy_exports(globals(), ("management",))
