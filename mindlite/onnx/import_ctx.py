"""What an ONNX importer (import_ops*.py) works with: IMPORTERS (ONNX op type -> importer,
filled by @importer), `Const` (a tensor known at import
time), `Ctx` (one ONNX node: attributes, inputs as values or constants, `call` of a mindlite
primitive through the Importer, `fail`), the ONNX -> mindlite dtype mapping, and
ImportError_ (a node that cannot be imported; importer.py names the file, node and op)."""
import numpy as np

from ..common import dtype as mstype
from . import _lib

IMPORTERS = {}        # ONNX op type -> fn(ctx) returning the list of output values


def importer(*op_types):
    """Register `fn(ctx)` as the importer of the ONNX op types `op_types`."""
    def deco(fn):
        for t in op_types:
            IMPORTERS[t] = fn
        return fn
    return deco


class Const:
    """A tensor known at import time; `weight` names the initializer it came from when it
    becomes a trainable weight (a float initializer) once used by a graph node."""
    __slots__ = ("array", "weight")

    def __init__(self, array, weight=None):
        self.array = np.asarray(array)
        self.weight = weight


def np_type(onnx_type):
    return np.dtype(_lib.onnx().helper.tensor_dtype_to_np_dtype(onnx_type))


def ms_type(onnx_type):
    return mstype.from_numpy_dtype(np_type(onnx_type))


class ImportError_(ValueError):
    """A node cannot be imported (converted to ValueError naming file, node and op)."""


class Ctx:
    """One ONNX node as an importer sees it."""

    def __init__(self, imp, node, scope):
        self.imp = imp
        self.node = node
        self.scope = scope
        helper = _lib.onnx().helper
        self.attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}

    @property
    def opset(self):
        return self.imp.opset

    def attr(self, name, default=None):
        v = self.attrs.get(name, default)
        return v.decode() if isinstance(v, bytes) else v

    def has(self, i):
        return i < len(self.node.input) and self.node.input[i] != ""

    @property
    def n_inputs(self):
        return len(self.node.input)

    def t(self, i):
        """Input i as a value (AnfNode or Const)."""
        if not self.has(i):
            raise ImportError_(f"input {i} is required")
        return self.scope.get(self.node.input[i])

    def c(self, i, default=None):
        """Input i as a numpy array known at import time (shape, axes, pads...)."""
        if not self.has(i):
            return default
        v = self.t(i)
        if isinstance(v, Const):
            return v.array
        raise ImportError_(f"input {i} ('{self.node.input[i]}') must be a constant: "
                           f"mindlite needs it at import time")

    def abstract(self, v):
        return self.imp.abstract(v)

    def shape(self, v):
        return tuple(self.abstract(v).shape)

    def call(self, prim, *args):
        return self.imp.call(self.scope, prim, *args)

    def fail(self, why):
        raise ImportError_(why)
