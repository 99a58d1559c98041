"""OnnxGraphCell: nn.GraphCell for a FuncGraph imported by load_onnx (or built from an .onnx
path), run on mindlite's compiled-graph runtime: the buffer-planned C runner when the graph
lowers (jit/kernel_graph.py), else the graph interpreter (jit/executor.py), exactly as a
compiled @jit function runs. nn.GraphCell(load_onnx(path)) runs the same graph on the
interpreter."""
from ..ir.anf import MAKE_TUPLE, CNode, FuncGraph, ValueNode
from ..jit.api import Compiled
from ..nn.graph_cell import GraphCell


class OnnxGraphCell(GraphCell):
    """`cell = OnnxGraphCell("m.onnx")` or `OnnxGraphCell(load_onnx(...))`; `cell(x)` takes
    the model's inputs (Tensors of the declared shapes and dtypes; -1 dims take any size).
    The weights are the cell's parameters, named like the ONNX initializers."""

    def __init__(self, graph, params_init=None):
        if isinstance(graph, str):
            from .importer import load_onnx
            graph = load_onnx(graph)
        if not isinstance(graph, FuncGraph):
            raise TypeError(f"OnnxGraphCell: graph must be a FuncGraph or an .onnx path, got "
                            f"{type(graph).__name__}")
        super().__init__(graph, params_init)
        out = graph.output
        if (isinstance(out, CNode) and isinstance(out.inputs[0], ValueNode)
                and out.inputs[0].value is MAKE_TUPLE):
            template = (tuple, [("leaf", i) for i in range(len(out.inputs) - 1)])
        else:
            template = ("leaf", 0)
        weights = [p for p in graph.parameters if p.default is not None]
        self._compiled = Compiled(graph, weights, (), template)

    def construct(self, *inputs):
        self._check_inputs(inputs)
        return self._compiled.run(inputs)
