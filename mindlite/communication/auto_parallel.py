"""The auto-parallel context (MindSpore's set_auto_parallel_context / get / reset and
ParallelMode), re-exported by mindlite.context and mindlite.

mindlite implements data parallelism: parallel_mode DATA_PARALLEL makes TrainOneStepCell,
its loss-scale variant and train.Model reduce gradients across the ranks of the world
(nn.DistributedGradReducer); STAND_ALONE (the default) trains in one process. The model
parallel modes of MindSpore (semi-auto, auto, hybrid) raise ValueError.

Keys: parallel_mode, gradients_mean (average instead of sum; default False),
device_num (the reduction's degree; default the world size), global_rank,
parameter_broadcast (the training wrappers give every rank rank 0's initial parameters),
comm_fusion = {"allreduce": {"mode": "auto" | "size" | "index", "config": ...}}:
gradients fused into buckets, "size" taking the bucket size in MB (0: one allreduce per
gradient, no fusion), "index" a list of parameter indices at which buckets end, "auto"
buckets of 32 MB.
"""
import numbers

__all__ = ["ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context"]

AUTO_BUCKET_MB = 32.0


class ParallelMode:
    """Parallel modes (MindSpore's names and values)."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


_DEFAULTS = {"parallel_mode": ParallelMode.STAND_ALONE, "gradients_mean": False,
             "device_num": None, "global_rank": None, "parameter_broadcast": False,
             "comm_fusion": None, "full_batch": False}
_VALUES = dict(_DEFAULTS)


def _check(key, value):
    fn = "set_auto_parallel_context"
    if key == "parallel_mode":
        if not isinstance(value, str) or value not in ParallelMode.MODE_LIST:
            raise ValueError(f"For '{fn}', 'parallel_mode' must be one of "
                             f"{ParallelMode.MODE_LIST}, but got {value!r}")
        if value not in (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL):
            raise ValueError(f"For '{fn}', mindlite implements the parallel modes "
                             f"'stand_alone' and 'data_parallel' only, but got {value!r}")
    elif key in ("gradients_mean", "parameter_broadcast", "full_batch"):
        if not isinstance(value, bool):
            raise TypeError(f"For '{fn}', '{key}' must be a bool, but got "
                            f"{type(value).__name__}")
    elif key in ("device_num", "global_rank"):
        lo = 1 if key == "device_num" else 0
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise ValueError(f"For '{fn}', '{key}' must be an int >= {lo}, but got {value!r}")
    elif key == "comm_fusion":
        _check_fusion(value)


def _check_fusion(value):
    fn = "set_auto_parallel_context"
    if not isinstance(value, dict) or set(value) - {"allreduce"}:
        raise TypeError(f"For '{fn}', 'comm_fusion' must be a dict like {{'allreduce': "
                        f"{{'mode': 'size', 'config': 32}}}}, but got {value!r}")
    spec = value.get("allreduce", {})
    if not isinstance(spec, dict) or spec.get("mode", "auto") not in ("auto", "size", "index"):
        raise ValueError(f"For '{fn}', comm_fusion['allreduce'] must be a dict with 'mode' "
                         f"'auto', 'size' or 'index', but got {spec!r}")
    mode, config = spec.get("mode", "auto"), spec.get("config")
    if mode == "size" and (isinstance(config, bool) or not isinstance(config, numbers.Real)
                           or config < 0):
        raise ValueError(f"For '{fn}', comm_fusion mode 'size' takes 'config' = a bucket size in "
                         f"MB >= 0, but got {config!r}")
    if mode == "index" and (not isinstance(config, (list, tuple)) or not all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in config)):
        raise ValueError(f"For '{fn}', comm_fusion mode 'index' takes 'config' = a list of "
                         f"parameter indices, but got {config!r}")


def set_auto_parallel_context(**kwargs):
    """Set auto-parallel keys (see the module docstring)."""
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"For 'set_auto_parallel_context', the key '{key}' is not supported "
                             f"by mindlite; supported keys: {sorted(_DEFAULTS)}")
        _check(key, value)
    _VALUES.update(kwargs)


def get_auto_parallel_context(attr_key):
    """The value of `attr_key`; device_num and global_rank default to the world's size and
    this rank once communication is initialized (1 and 0 before)."""
    if attr_key not in _DEFAULTS:
        raise ValueError(f"For 'get_auto_parallel_context', the key '{attr_key}' is not "
                         f"supported; supported keys: {sorted(_DEFAULTS)}")
    value = _VALUES[attr_key]
    if value is None and attr_key in ("device_num", "global_rank"):
        from . import _mpi
        world = _mpi.STATE["world"]
        if world is None:
            return 1 if attr_key == "device_num" else 0
        return world.Get_size() if attr_key == "device_num" else world.Get_rank()
    return value


def reset_auto_parallel_context():
    """Back to the defaults (stand-alone training)."""
    _VALUES.clear()
    _VALUES.update(_DEFAULTS)


def bucket_plan():
    """('size', bytes) or ('index', [indices]) from comm_fusion (the default: auto)."""
    spec = (_VALUES["comm_fusion"] or {}).get("allreduce", {})
    mode, config = spec.get("mode", "auto"), spec.get("config")
    if mode == "index":
        return "index", list(config)
    mb = AUTO_BUCKET_MB if mode == "auto" or config is None else float(config)
    return "size", int(mb * (1 << 20))
