"""All primitives, by family (MindSpore's ops.operations).

The family modules are imported at the first `operations.<name>` the namespace
lacks, all at once (mindlite/_lazy.py); a later module in _MODULES wins a name
exported by two, as with the star-imports this replaces.

custom_ops is imported here, eagerly: it installs the kernel registry's glue (the
"does a primitive exist" check and the runner-cache reset on (un)registration),
which must be in place before any user registers a kernel. Primitives of families
not imported yet are found by the second check below, which imports them.
"""
from ..._lazy import lazy_exports as _lazy_exports
from ...kernels import registry as _registry
from ...ir.primitive import Primitive as _Primitive
from . import custom_ops  # noqa: F401

_MODULES = ("math_ops", "elementwise_ops", "logic_ops", "nn_ops", "array_ops", "join_ops",
            "creation_ops", "reduce_ops", "slice_ops", "scatter_ops", "other_ops", "custom_ops",
            "_grad_ops", "conv_ops", "pool_ops", "norm_ops", "loss_ops", "optim_ops",
            "index_ops", "activation_ops", "clip_cum_ops", "reorder_ops", "fused_ops",
            "sort_ops", "scatter_index_ops", "mask_ops", "resize_pad_ops",
            "pool_nd_ops", "random_ops", "pointwise_loss_ops", "linalg_ops", "stat_ops",
            "svd_ops", "optim_adaptive_ops", "hook_ops", "rnn_ops", "comm_ops", "complex_ops",
            "transcendental_ops", "bessel_ops", "bitwise_ops", "tensor_scatter_ops",
            "reinterpret_ops", "search_ops", "linalg_decomp_ops", "fft_ops",
            "segment_ops", "random_dist_ops", "linalg_factor_ops",
            "loss_pointwise_ops", "guarded_div_ops", "space_depth_ops", "sparse_optim_ops",
            "local_norm_ops", "detection_ops", "conv3d_transpose_ops", "copy_slices_ops",
            "classic_nn_ops")

_LAZY = _lazy_exports(globals(), _MODULES)


def _lazy_primitive_exists(name):
    """registry.OP_CHECKERS entry: `name` is a primitive of a family (imported now if not yet)."""
    _LAZY.complete()
    value = globals().get(name)
    return (isinstance(value, type) and issubclass(value, _Primitive)
            and value is not custom_ops.Custom)


_registry.OP_CHECKERS.append(_lazy_primitive_exists)
