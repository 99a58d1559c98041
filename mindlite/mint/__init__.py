"""mindlite.mint (MindSpore 2.10's mindspore.mint): the PyTorch-style API over the same
primitives, kernels and bprops as ops: functions with `dim` / `keepdim`, tuple returns and
keyword-only `dtype` (_elementwise.py, _reduction.py, _array.py, _blas.py, _random.py), the
submodules nn (layers, losses; nn.functional), optim, linalg, special, distributed, and at
the top level the names MindSpore's mint re-exports from them (mint.relu, mint.Linear,
mint.SGD, mint.all_reduce, ...).

Nothing is imported with `import mindlite`: the first `mint.<name>` the namespace lacks
imports every module here, all at once (mindlite/_lazy.py); after that every name is a plain
module attribute.
"""
from .._lazy import lazy_exports as _lazy_exports

_LAZY = _lazy_exports(globals(), (
    "distributed", "optim", "nn._layers_basic", "nn._layers_conv", "nn._layers_norm",
    "nn._losses", "nn.functional", "linalg", "special", "_elementwise", "_reduction", "_array",
    "_blas", "_random", "_norm_stats"))
