"""OnnxGraphCell: run a FuncGraph imported by load_onnx (or any graph with the layout
jit/export_graph gives: inputs, then weights with Parameter defaults) on mindlite's graph
runtime: the buffer-planned C runner when the graph lowers (jit/kernel_graph.py), else the
graph interpreter (jit/executor.py), exactly as a compiled @jit function runs."""
from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, CNode, FuncGraph, ValueNode
from ..jit.api import Compiled


class OnnxGraphCell:
    """`cell = OnnxGraphCell(load_onnx("m.onnx")); y = cell(x)`: a callable over the graph's
    inputs (Tensors of the shapes and dtypes the model declares; -1 dims take any size).
    `cell.parameters` are the weights (Parameters named like the ONNX initializers)."""

    def __init__(self, graph):
        if isinstance(graph, str):
            from .importer import load_onnx
            graph = load_onnx(graph)
        if not isinstance(graph, FuncGraph):
            raise TypeError(f"OnnxGraphCell: graph must be a FuncGraph or an .onnx path, got "
                            f"{type(graph).__name__}")
        self.graph = graph
        self.inputs = [p for p in graph.parameters if p.default is None]
        self.parameters = [p.default for p in graph.parameters if p.default is not None]
        out = graph.output
        if (isinstance(out, CNode) and isinstance(out.inputs[0], ValueNode)
                and out.inputs[0].value is MAKE_TUPLE):
            template = (tuple, [("leaf", i) for i in range(len(out.inputs) - 1)])
        else:
            template = ("leaf", 0)
        weights = [p for p in graph.parameters if p.default is not None]
        self._compiled = Compiled(graph, weights, (), template)

    def __call__(self, *inputs):
        if len(inputs) != len(self.inputs):
            raise TypeError(f"OnnxGraphCell: the model takes {len(self.inputs)} inputs "
                            f"({', '.join(p.name for p in self.inputs)}), got {len(inputs)}")
        for p, x in zip(self.inputs, inputs):
            if not isinstance(x, Tensor):
                raise TypeError(f"OnnxGraphCell: input '{p.name}' must be a Tensor, got "
                                f"{type(x).__name__}")
            want = p.abstract
            if x.dtype is not want.dtype or len(x.shape) != len(want.shape) or any(
                    w >= 0 and w != d for w, d in zip(want.shape, x.shape)):
                raise ValueError(f"OnnxGraphCell: input '{p.name}' must be {want.dtype} of "
                                 f"shape {list(want.shape)}, got {x.dtype} of shape "
                                 f"{list(x.shape)}")
        return self._compiled.run(inputs)
