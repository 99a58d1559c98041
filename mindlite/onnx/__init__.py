"""ONNX in and out of mindlite (issue 16): `export_onnx(graph, file_name)` and
`export_onnx_model(graph)` write a FuncGraph made by jit/export_graph.graph_for_export as an
ONNX model (export*.py); `load_onnx(path_or_model)` reads an ONNX model back into a FuncGraph
(importer.py, import_ops*.py) and `OnnxGraphCell` runs one (runner.py).
`mindlite.export(..., file_format="ONNX")` calls export_onnx. Needs the optional `onnx`
package (onnxruntime only to run exported files)."""
from .export import DEFAULT_OPSET, export_onnx, export_onnx_model, exportable_primitives
from .importer import load_onnx
from .runner import OnnxGraphCell

__all__ = ["DEFAULT_OPSET", "export_onnx", "export_onnx_model", "exportable_primitives",
           "load_onnx", "OnnxGraphCell"]
