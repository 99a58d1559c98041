"""Reading an ONNX file for load_onnx (importer.py): parse with `onnx.load` (external data
included), check with onnx.checker (outputs declared without a shape get one from shape
inference), refuse other opsets than 13-21 and upgrade 7-12 to 13 with
onnx.version_converter (MindSpore's own exporter writes opset 11). Every failure is a
ValueError naming the file."""
import os

from . import _lib

MIN_OPSET, MAX_OPSET = 13, 21
UPGRADE_FROM = 7           # older opsets are upgraded to MIN_OPSET first


def read_model(path_or_model):
    """(ModelProto, a name for messages): parse, check, and refuse unsupported opsets."""
    onnx = _lib.onnx()
    if isinstance(path_or_model, onnx.ModelProto):
        model, source = path_or_model, "<ModelProto>"
    elif isinstance(path_or_model, (str, bytes, os.PathLike)):
        source = os.fsdecode(path_or_model)
        if not os.path.isfile(source):
            raise FileNotFoundError(f"load_onnx: no such file: '{source}'")
        try:
            model = onnx.load(source)
        except Exception as e:        # DecodeError, bad external data: all mean "damaged"
            raise ValueError(f"load_onnx: '{source}' is not a readable ONNX model "
                             f"({type(e).__name__}: {e})") from None
    else:
        raise TypeError(f"load_onnx: expected a file path or an onnx.ModelProto, got "
                        f"{type(path_or_model).__name__}")
    try:
        onnx.checker.check_model(model)
    except Exception as e:
        try:                  # outputs without a shape (onnxruntime runs those): infer it
            model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
            onnx.checker.check_model(model)
        except Exception:
            raise ValueError(f"load_onnx: {source} is not a valid ONNX model: "
                             f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
                             ) from None
    versions = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if not versions:
        raise ValueError(f"load_onnx: {source} imports no default-domain opset")
    if UPGRADE_FROM <= versions[0] < MIN_OPSET:
        model = _upgrade(model, source, versions[0])
    elif not MIN_OPSET <= versions[0] <= MAX_OPSET:
        raise ValueError(f"load_onnx: {source} uses opset {versions[0]}; mindlite imports "
                         f"opsets {MIN_OPSET}-{MAX_OPSET} (and upgrades {UPGRADE_FROM}-"
                         f"{MIN_OPSET - 1} with onnx.version_converter)")
    return model, source


def _upgrade(model, source, version):
    """An opset 7-12 model (MindSpore's exporter writes 11) rewritten to opset 13 by
    onnx.version_converter (Softmax's old flattening semantics, attrs turned into inputs)."""
    onnx = _lib.onnx()
    try:
        upgraded = onnx.version_converter.convert_version(model, MIN_OPSET)
        onnx.checker.check_model(upgraded)
    except Exception as e:
        raise ValueError(f"load_onnx: {source} uses opset {version}, which onnx.version_"
                         f"converter could not upgrade to {MIN_OPSET}: "
                         f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    return upgraded
