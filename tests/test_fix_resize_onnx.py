"""ONNX Resize of the corrected resize semantics: every flag combination of
ResizeBilinearV2 / ResizeNearestNeighborV2 exports (asymmetric bilinear as
coordinate_transformation_mode='asymmetric', nearest with align_corners as
'align_corners' + nearest_mode 'round_prefer_ceil') and runs in onnxruntime equal to
mindlite, and those ONNX forms import back to the same primitives."""
import numpy as np
import pytest

import mindlite as ms
from mindlite.ops.operations import resize_pad_ops as R

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed")
ort = pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from mindlite.jit.export_graph import graph_for_export  # noqa: E402
from mindlite.onnx import OnnxGraphCell, export_onnx_model, load_onnx  # noqa: E402

_FLAGS = [(False, False), (False, True), (True, False)]
_SIZES = [((1, 2, 3, 4), (5, 7)), ((1, 1, 6, 7), (4, 3)), ((1, 1, 3, 4), (1, 6))]


def _x(shape):
    return ms.Tensor(np.random.default_rng(3).standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize("prim_cls", [R.ResizeBilinearV2, R.ResizeNearestNeighborV2])
@pytest.mark.parametrize("flags", _FLAGS)
@pytest.mark.parametrize("shape,size", _SIZES)
def test_export_runs_in_onnxruntime(prim_cls, flags, shape, size):
    prim = prim_cls(*flags)

    def net(x):
        return prim(x, size)

    x = _x(shape)
    proto = export_onnx_model(graph_for_export(net, x), 13)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x.asnumpy()})[0]
    np.testing.assert_allclose(got, net(x).asnumpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode,ctm,nearest_mode", [
    ("linear", "asymmetric", None), ("nearest", "align_corners", "round_prefer_ceil")])
def test_import_matches_onnxruntime(mode, ctm, nearest_mode):
    kw = {"mode": mode, "coordinate_transformation_mode": ctm}
    if nearest_mode:
        kw["nearest_mode"] = nearest_mode
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], **kw)
    g = helper.make_graph([node], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.array([1, 2, 5, 7], np.int64), "sizes")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    x = _x((1, 2, 3, 4)).asnumpy()
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, {"x": x})[0]
    got = OnnxGraphCell(load_onnx(model))(ms.Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)
