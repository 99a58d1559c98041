"""mindlite.communication: multi-process communication over MPI, as
mindspore.communication (init, ranks, groups). The collective primitives (AllReduce, ...)
are in mindlite.ops; data-parallel training in nn.DistributedGradReducer and
set_auto_parallel_context (docs/distributed.md)."""
from .management import (GlobalComm, HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP,  # noqa: F401
                         NCCL_WORLD_COMM_GROUP, create_group, destroy_group, get_group_size,
                         get_group_rank_from_world_rank, get_local_rank, get_local_rank_size,
                         get_rank, get_world_rank_from_group_rank, init, release)
from . import management  # noqa: F401
