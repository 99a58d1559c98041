"""The composition root: which module fills each ground-floor slot of common/api.py, and
Tensor's binding to ops.functional. Imported first by mindlite/__init__.py (the top floor); the
modules named as providers load at the first use of their slot, not at `import mindlite`.
"""
from .common import api, tensor
from .ops import functional

tensor.bind_functional(functional)

api.PYNATIVE.provided_by("mindlite.pynative.executor")
api.GRAPH.provided_by("mindlite.jit.cell_graph", "mindlite.jit.ad.entry")
api.DEVICES.provided_by("mindlite.device.registry")
