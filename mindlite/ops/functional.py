"""ops.functional: every functional op (ops.relu, ops.add, ...), one import for Tensor methods.

The function modules (ops/function/*.py; ops.vmap's module, a graph-mode transform, is
jit/vmap.py, listed under its old path function.vmap_func: mindlite/_moved.py) are imported
at the first `F.<name>` the namespace lacks, all at once (mindlite/_lazy.py); after that
every name is a plain module attribute, so Tensor methods look F.add up at full speed.
"""
from .._lazy import lazy_exports as _lazy_exports

_MODULES = ("function.math_func", "function.nn_func", "function.reduce_func",
            "function.array_func", "function.index_func", "function.grad_api",
            "function.loss_func", "function.conv_func", "function.activation_func",
            "function.clip_cum_func", "function.clip_norm_func", "function.loss_margin_nll_func",
            "function.vmap_func", "function.sort_index_func",
            "function.pool_resize_func", "function.linalg_func", "function.stat_func",
            "function.conv_nd_func", "function.loss_distance_func",
            "function.random_func", "function.complex_func",
            "function.transcendental_func", "function.elementwise_func",
            "function.scatter_func", "function.shape_func", "function.matrix_build_func",
            "function.order_stat_func",
            "function.product_func", "function.random_like_func",
            "function.nn_vision_func", "function.pool_adaptive_func",
            "function.linalg_decomp_func", "function.fft_func",
            "function.segment_func", "function.alias_func", "function.sequence_func",
            "function.matrix_func", "function.box_func", "function.autodiff_func",
            "function.scalar_func", "function.comm_func", "function.sampling_func",
            "function.linalg_factor_func", "function.layout_func",
            "function.nn_composite_func", "function.graph_helpers_func")

_LAZY = _lazy_exports(globals(), _MODULES)
