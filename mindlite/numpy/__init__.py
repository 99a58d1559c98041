"""mindlite.numpy: MindSpore's numpy-compatible module (`mindspore.numpy`) on Tensors.

Array creation, math, linear algebra, logic, manipulation and random functions with numpy's
names and MindSpore 2.10's signatures and dtypes (Python ints become int32, floats float32,
as `mindspore.numpy.array`). Every function is built from the primitives of `ops` (the
same inference, kernels and bprops), so results are Tensors and gradients flow where the
primitives are differentiable. The families load at the first `mindlite.numpy.<name>`
(mindlite/_lazy.py), so `import mindlite` does not import them.
"""
from .._lazy import lazy_exports as _lazy_exports

_LAZY = _lazy_exports(globals(), (
    "dtypes", "array_creations", "index_tricks", "array_ops", "selection", "math_ops",
    "logic_ops", "reductions", "linear_algebra", "polynomials", "histograms", "calculus_stats",
    "set_ops", "random"))
