"""Real models round-trip through the converter and mindlite's Lite runtime (no MindSpore
Lite needed; tests/test_lite_real.py adds real Lite): a ResNet-style net with a padded max
pool, a MobileNetV2-style net and a transformer encoder built with mindlite, converted
directly and through MINDIR; LeNet, ResNet18, MobileNetV2, an encoder and an op zoo built with
PyTorch, converted from ONNX. Each is in MindSpore Lite's layout and gives the reference's
outputs; a BatchNorm CNN runs fully in the onnxruntime delegate."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import lite as mslite
from mindlite.lite import schema as S
from mindlite.lite.converter import convert, convert_file
from mindlite.lite.ms_file import read_ms

from lite_models import build, nhwc, run
from lite_nets import ms_nets, onnx_file, torch_nets

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")

MS_NETS = ms_nets()


def _close(got, want, rel):
    for g, w in zip(got, want):
        assert g.shape == w.shape
        assert np.abs(g - w).max() <= rel * max(np.abs(w).max(), 1e-6), \
            (np.abs(g - w).max(), np.abs(w).max())


def _ops(data):
    return [n.op_type for n in read_ms(data).nodes]


@pytest.mark.parametrize("name", sorted(MS_NETS))
def test_mindlite_nets_direct_and_through_mindir(name, tmp_path):
    net, x = MS_NETS[name]
    want = [net(ms.Tensor(x)).asnumpy()]
    data = convert(net, ms.Tensor(x))
    _close(run(build(data), nhwc(x)), want, 1e-5)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / name), file_format="MINDIR")
    path = convert_file("MINDIR", str(tmp_path / f"{name}.mindir"), str(tmp_path / name))
    with open(path, "rb") as f:
        from_mindir = f.read()
    _close(run(build(from_mindir), nhwc(x)), want, 1e-5)
    ops = _ops(from_mindir)
    if name == "ms_resnet":          # BN folded into the convolutions, the padded max pool one op
        pool = [n for n in read_ms(from_mindir).nodes if n.op_type == "MaxPoolFusion"][0]
        assert pool.attrs["pad"] == [1, 1, 1, 1] and pool.attrs["format"] == S.FORMAT_NHWC
        assert "FusedBatchNorm" not in ops and "BatchNorm" not in ops
        assert ops.count("Transpose") == 0      # the mean over H, W reads NHWC directly
    if name == "ms_mobilenet":
        convs = [n for n in read_ms(from_mindir).nodes if n.op_type == "Conv2DFusion"]
        assert {n.attrs["activation_type"] for n in convs} == {0, S.ACT["RELU6"]}
        assert any(n.attrs["group"] == n.attrs["in_channel"] > 1 for n in convs)
    if name == "ms_encoder":
        assert ops.count("LayerNormFusion") == 2 and "Softmax" in ops


@pytest.fixture(scope="module")
def torch_models(tmp_path_factory):
    pytest.importorskip("torch", reason="the ONNX models are exported from PyTorch")
    pytest.importorskip("onnx", reason="ONNX input needs the onnx package")
    out = tmp_path_factory.mktemp("onnx")
    models = {}
    for name, (net, x) in torch_nets(size=64).items():
        path = str(out / f"{name}.onnx")
        models[name] = (path, x, onnx_file(net, x, path))
    return models


@pytest.mark.parametrize("name", ["lenet", "resnet18", "mobilenetv2", "encoder", "zoo"])
def test_torch_onnx_models(name, torch_models, tmp_path):
    path, x, want = torch_models[name]
    ms_path = convert_file("ONNX", path, str(tmp_path / name))
    with open(ms_path, "rb") as f:
        data = f.read()
    _close(run(build(data), nhwc(x)), want, 1e-4 if name == "lenet" else 1e-3)
    ops = _ops(data)
    assert "BiasAdd" not in ops
    if name == "resnet18":           # ONNX's padded MaxPool (PadV3 as imported) is one op
        assert "PadFusion" not in ops and ops.count("MaxPoolFusion") == 1
        assert ops.count("Transpose") == 1        # NHWC back to NCHW for the Flatten only
    if name == "mobilenetv2":        # Clip(0, 6) fused as RELU6
        assert "Activation" not in ops and "Maximum" not in ops


def test_batch_norm_cnn_runs_fully_in_the_onnxruntime_delegate():
    pytest.importorskip("onnxruntime", reason="the delegate needs onnxruntime")
    net, x = MS_NETS["ms_resnet"]
    want = net(ms.Tensor(x)).asnumpy()
    data = convert(net, ms.Tensor(x), optimize="none")        # FusedBatchNorm kept
    assert "FusedBatchNorm" in _ops(data)
    ctx = mslite.Context()
    ctx.delegate = mslite.OnnxRuntimeDelegate()
    model = build(data, ctx)
    units = model._session.main.units
    assert [type(u).__name__ for u in units] == ["OnnxRuntimeKernel"]
    assert "FusedBatchNorm" in [k.type for k in units[0].kernels]
    _close(run(model, nhwc(x)), [want], 1e-5)
