"""OnnxGraphCell: nn.GraphCell for a FuncGraph imported by load_onnx, or built from an .onnx
path. It runs as nn.GraphCell runs a loaded graph (nn/graph_cell.py): on the buffer-planned C
runner when the graph lowers (backend/lowering.py), else on the graph interpreter
(backend/interpreter.py), exactly as a compiled @jit function runs."""
from ..ir.anf import FuncGraph
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
