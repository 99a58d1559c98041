"""mindlite.mint.nn (MindSpore 2.10's mint.nn): PyTorch-style layers, activations, losses and
normalization Cells over mint.nn.functional (the same primitives as ops and nn). The layer
modules load at the first `mint.nn.<name>` the namespace lacks (mindlite/_lazy.py); the
`functional` submodule is imported on its own when asked for.
"""
from ..._lazy import lazy_exports as _lazy_exports

_LAZY = _lazy_exports(globals(), ("_layers_basic", "_layers_conv", "_layers_norm", "_losses"))
