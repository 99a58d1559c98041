"""`mindlite.export` and `mindlite.load`: MindSpore 2.x's model-file API.

    export(net, *inputs, file_name, file_format, **kwargs)
        net: a Cell or a function of Tensors; inputs: Tensors (or Tensor(shape=[None, ...])
        placeholders). The graph written is jit/export_graph.graph_for_export's (a GraphCell's
        own graph for a loaded model). file_format:
        "MINDIR" (train/mindir, ".mindir" appended to file_name when missing), "ONNX"
        (mindlite/onnx, ".onnx" appended by that writer) or "AIR" (Ascend only: ValueError,
        as MindSpore on CPU).
    load(file_name, **kwargs) -> the FuncGraph of a .mindir file; nn.GraphCell(graph) runs it.

Model file modules import protobuf / onnx, so they are imported here on first use.
"""
import os

SUPPORTED_FORMATS = ["AIR", "ONNX", "MINDIR"]


def _check_file_name(file_name, fn):
    if not isinstance(file_name, str):
        raise TypeError(f"For '{fn}', the argument 'file_name' must be a str, but got "
                        f"{type(file_name).__name__}")
    if not file_name or os.path.basename(file_name) in ("", ".", ".."):
        raise ValueError(f"For '{fn}', the argument 'file_name' must name a file, but got "
                         f"{file_name!r}")


def export(net, *inputs, file_name, file_format, **kwargs):
    """Export `net` traced on `inputs` to a model file (see the module docstring)."""
    if "obf_func" in kwargs:
        raise NotImplementedError("Dynamic model structure obfuscation is no longer supported.")
    if file_format not in SUPPORTED_FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {SUPPORTED_FORMATS}, but "
                         f"got {file_format}.")
    _check_file_name(file_name, "export")
    for key in ("enc_key", "enc_mode", "dataset", "custom_func"):
        if kwargs.get(key) is not None:
            raise ValueError(f"For 'export', '{key}' is not supported by mindlite")
    if file_format == "AIR":
        raise ValueError("Only support export file in 'AIR' format with Ascend backend.")
    from ..jit.export_graph import graph_for_export
    from ..nn.graph_cell import GraphCell
    if isinstance(net, GraphCell):            # a loaded model: its graph as it is
        net._check_inputs(inputs)
        graph = net.graph
    else:
        graph = graph_for_export(net, *inputs)
    file_name = os.path.realpath(file_name)
    if file_format == "MINDIR":
        from .mindir import save_mindir
        save_mindir(graph, file_name)
        return None
    from ..onnx import export_onnx         # imports the `onnx` package on first use
    return export_onnx(graph, file_name)


def load(file_name, **kwargs):
    """The graph of MINDIR file `file_name`, to run with nn.GraphCell(graph)."""
    if "obf_func" in kwargs:
        raise NotImplementedError("Dynamic model structure obfuscation is no longer supported.")
    if kwargs.get("dec_key") is not None:
        raise ValueError("For 'load', encrypted MindIR files (dec_key) are not supported by "
                         "mindlite")
    _check_file_name(file_name, "load")
    if not file_name.endswith(".mindir"):
        raise ValueError("For 'load', the argument 'file_name'(MindIR file) should end with "
                         f"'.mindir', please input the correct 'file_name', but got {file_name}.")
    if not os.path.exists(file_name):
        raise ValueError("For 'load', the argument 'file_name'(MindIR file) does not exist, "
                         f"please check whether the 'file_name' is correct: {file_name}.")
    from .mindir import load_mindir
    return load_mindir(file_name)
