"""The converter CLI and file inputs: `python -m mindlite.lite.converter --fmk=MINDIR|ONNX
--modelFile --outputFile [--optimize]` on MINDIR files written by MindSpore 2.x (tests/data,
with MindSpore's outputs) and by mindlite, on an ONNX file; the .ms runs in the Lite runtime
with the same outputs; ModelType.MINDIR builds straight from a .mindir; errors."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import mindlite as ms
from mindlite import lite as mslite
from mindlite.lite.converter import main as converter_main

from lite_models import LeNet, Branchy, nhwc, rand, run

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")
DATA = pathlib.Path(__file__).resolve().parent / "data"


def _lite(path, context=None):
    model = mslite.Model()
    model.build_from_file(str(path), mslite.ModelType.MINDIR_LITE, context)
    return model


def test_cli_subprocess_mindspore_lenet(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).resolve().parents[1]))
    proc = subprocess.run([sys.executable, "-m", "mindlite.lite.converter", "--fmk=MINDIR",
                           f"--modelFile={DATA / 'ms_lenet.mindir'}",
                           f"--outputFile={tmp_path / 'lenet'}"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "CONVERT RESULT SUCCESS" in proc.stdout
    d = np.load(DATA / "ms_lenet.npz")
    got = run(_lite(tmp_path / "lenet.ms"), d["input0"])[0]
    np.testing.assert_allclose(got, d["output"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["ms_mlp", "ms_switch"])
@pytest.mark.parametrize("optimize", ["general", "none"])
def test_mindspore_mindir_files(tmp_path, name, optimize):
    out = tmp_path / name
    assert converter_main(["--fmk=MINDIR", f"--modelFile={DATA / (name + '.mindir')}",
                           f"--outputFile={out}", f"--optimize={optimize}"]) == 0
    d = np.load(DATA / f"{name}.npz")
    model = _lite(str(out) + ".ms")
    inputs = [d[k] for k in sorted(d.files) if k.startswith("input")]
    np.testing.assert_allclose(run(model, *inputs)[0], d["output"], rtol=1e-5, atol=1e-6)
    if "neg_input0" in d.files:                       # the other branch of the if
        np.testing.assert_allclose(run(model, d["neg_input0"], *inputs[1:])[0],
                                   d["neg_output"], rtol=1e-5, atol=1e-6)


def test_onnx_file(tmp_path):
    pytest.importorskip("onnx", reason="ONNX input needs the onnx package")
    out = tmp_path / "cnn"
    assert converter_main(["--fmk=ONNX", f"--modelFile={DATA / 'ms_cnn.onnx'}",
                           f"--outputFile={out}"]) == 0
    d = np.load(DATA / "ms_cnn_onnx.npz")
    model = _lite(str(out) + ".ms")
    np.testing.assert_allclose(run(model, d["x"])[0], d["y"], rtol=1e-5, atol=1e-6)
    assert "FusedBatchNorm" in [k.type for k in model._session.main.kernels]


def test_mindlite_written_files(tmp_path):
    net, x = LeNet(), rand(2, 1, 32, 32)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "lenet"), file_format="MINDIR")
    assert converter_main(["--fmk=MINDIR", f"--modelFile={tmp_path / 'lenet.mindir'}",
                           f"--outputFile={tmp_path / 'lenet'}"]) == 0
    want = net(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(run(_lite(tmp_path / "lenet.ms"), x)[0], want, rtol=1e-5,
                               atol=1e-6)
    direct = mslite.Model()
    direct.build_from_file(str(tmp_path / "lenet.mindir"), mslite.ModelType.MINDIR)
    np.testing.assert_allclose(run(direct, x)[0], want, rtol=1e-5, atol=1e-6)


def test_control_flow_through_mindir(tmp_path):
    net = Branchy()
    x, y = np.abs(rand(2, 4)), rand(2, 4, seed=1)
    ms.export(net, ms.Tensor(x), ms.Tensor(y), file_name=str(tmp_path / "b"),
              file_format="MINDIR")
    assert converter_main(["--fmk=MINDIR", f"--modelFile={tmp_path / 'b.mindir'}",
                           f"--outputFile={tmp_path / 'b'}"]) == 0
    model = _lite(tmp_path / "b.ms")
    for sign in (1.0, -1.0):
        np.testing.assert_allclose(run(model, x * sign, y)[0],
                                   net(ms.Tensor(x * sign), ms.Tensor(y)).asnumpy(),
                                   rtol=1e-5, atol=1e-6)


def test_cli_errors(tmp_path, capsys):
    assert converter_main(["--fmk=MINDIR", f"--modelFile={tmp_path / 'none.mindir'}",
                           f"--outputFile={tmp_path / 'x'}"]) == 1
    assert "CONVERT RESULT FAILED" in capsys.readouterr().err
    (tmp_path / "junk.mindir").write_bytes(b"\x08\x01garbage" * 10)
    assert converter_main(["--fmk=MINDIR", f"--modelFile={tmp_path / 'junk.mindir'}",
                           f"--outputFile={tmp_path / 'x'}"]) == 1
    assert "junk.mindir" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        converter_main(["--fmk=TFLITE", "--modelFile=a", "--outputFile=b"])
    assert not (tmp_path / "x.ms").exists()


def test_onnx_gemm_folds_to_matmul_fusion(tmp_path):
    pytest.importorskip("onnx", reason="ONNX input needs the onnx package")
    net, x = LeNet(), rand(1, 1, 32, 32, seed=4)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "lenet"), file_format="ONNX")
    assert converter_main(["--fmk=ONNX", f"--modelFile={tmp_path / 'lenet.onnx'}",
                           f"--outputFile={tmp_path / 'lenet'}"]) == 0
    model = _lite(tmp_path / "lenet.ms")
    types = [k.type for k in model._session.main.kernels]
    assert types.count("Transpose") == 1 and types.count("MatMulFusion") == 3   # NHWC -> Flatten
    assert all(len(k.in_tensors) == 3 for k in model._session.main.kernels
               if k.type == "MatMulFusion")
    np.testing.assert_allclose(run(model, nhwc(x))[0], net(ms.Tensor(x)).asnumpy(), rtol=1e-5,
                               atol=1e-6)


def test_dynamic_batch_onnx_model(tmp_path):
    onnx = pytest.importorskip("onnx", reason="ONNX input needs the onnx package")
    ort = pytest.importorskip("onnxruntime", reason="the reference runs in onnxruntime")
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), "b")
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
         helper.make_node("Relu", ["a"], ["y"])], "dyn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])], [w, b])
    path = str(tmp_path / "dyn.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    assert converter_main(["--fmk=ONNX", f"--modelFile={path}",
                           f"--outputFile={tmp_path / 'dyn'}"]) == 0
    model = _lite(tmp_path / "dyn.ms")
    ins = model.get_inputs()
    assert ins[0].shape == [-1, 4] and model.get_outputs()[0].shape == [-1, 3]
    with pytest.raises(ValueError, match="dynamic dims.*resize"):
        ins[0].set_data_from_numpy(np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match="dynamic dims.*resize"):
        model._session.run([ms.Tensor(np.ones((2, 4), np.float32))])
    for batch in (5, 1):
        model.resize(ins, [[batch, 4]])
        x = rng.standard_normal((batch, 4)).astype(np.float32)
        want = ort.InferenceSession(path).run(None, {"x": x})[0]
        np.testing.assert_allclose(run(model, x)[0], want, rtol=1e-5, atol=1e-6)
    assert [k.type for k in model._session.main.kernels] == ["MatMulFusion"]
