"""The optional `onnx` / `onnxruntime` packages, imported on first use with a clear error
(they come with the `onnx` extra: pip install 'mindlite[onnx]'), and what the exporter and
the importer share: the dtype mapping, the Custom op domain, the pad modes."""
import numpy as np

CUSTOM_DOMAIN = "ai.mindlite.custom"      # Custom ops in ONNX files: op_type = the Custom's type
PAD_MODES = ("constant", "reflect", "edge")   # PadV3 modes ONNX Pad has under the same name


def onnx():
    try:
        import onnx as mod
        import onnx.numpy_helper  # noqa: F401
    except ImportError as e:
        raise ImportError("mindlite.onnx needs the 'onnx' package: "
                          "pip install 'mindlite[onnx]'") from e
    return mod


def onnxruntime():
    try:
        import onnxruntime as mod
    except ImportError as e:
        raise ImportError("running ONNX models needs the 'onnxruntime' package: "
                          "pip install 'mindlite[onnx]'") from e
    return mod


def onnx_dtype(t):
    """A mindlite Type -> the ONNX TensorProto element type."""
    return onnx().helper.np_dtype_to_tensor_dtype(np.dtype(t.np))
