"""mindlite and real MindSpore Lite 2.0.0 interoperate, both ways, on real models: each model
is converted by both converters (mindlite's `convert_file` and Lite's `mindspore_lite.Converter`)
and run by both runtimes (mindlite.lite and Lite's `Model`); real Lite runs in its own Python
3.7 environment (tests/lite_real.py), and the module is skipped, saying why, where there is
none. Models: LeNet, ResNet18 and MobileNetV2 (PyTorch, ONNX), a transformer encoder and an
op zoo (PyTorch, ONNX), LeNet as MindSpore 2.10 wrote it (MINDIR, tests/data), and mindlite's
ResNet-, MobileNetV2-style nets and encoder (MINDIR). Bounds: max abs difference 1e-4 on LeNet,
1e-3 relative to the largest output elsewhere. `pytest -s` prints the interop table. And a
Custom node written by real Lite's converter runs on a kernel registered in mindlite."""
import numpy as np
import pytest

import mindlite as ms
from mindlite.lite.converter import convert_file

from lite_models import build, nhwc, run
from lite_nets import ms_nets, onnx_file, torch_nets
from lite_real import WHY_NOT, LiteJobs, lite_python, outputs

pytestmark = pytest.mark.skipif(lite_python() is None, reason=WHY_NOT)
pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")

SIZE = 224                       # ImageNet-size inputs for ResNet18 and MobileNetV2
STATIC = {"encoder": {"x": [2, 5, 32]}}     # Lite's converter folds its Shape ops so


def _diff(got, want):
    """(max abs difference, relative to the largest reference value)."""
    worst = max(float(np.abs(g - w).max()) for g, w in zip(got, want))
    return worst, worst / max(max(float(np.abs(w).max()) for w in want), 1e-30)


def _bound_ok(name, got, want):
    if any(g.shape != w.shape for g, w in zip(got, want)) or len(got) != len(want):
        return False
    absd, rel = _diff(got, want)
    return absd <= 1e-4 if "lenet" in name else rel <= 1e-3


@pytest.fixture(scope="module")
def interop(tmp_path_factory):
    """Every model converted both ways and run by both runtimes; {name: record}."""
    pytest.importorskip("torch", reason="the ONNX models are exported from PyTorch")
    pytest.importorskip("onnx", reason="ONNX input needs the onnx package")
    d = tmp_path_factory.mktemp("interop")
    jobs, models = LiteJobs(d), {}
    for name, (net, x) in torch_nets(SIZE).items():
        src = d / f"{name}.onnx"
        models[name] = {"fmk": "ONNX", "src": src, "x": x, "ref": onnx_file(net, x, str(src))}
    lenet = np.load(ms_data("ms_lenet.npz"))
    models["ms_lenet_mindspore"] = {"fmk": "MINDIR", "src": ms_data("ms_lenet.mindir"),
                                    "x": lenet["input0"], "ref": [lenet["output"]]}
    for name, (net, x) in ms_nets().items():
        ms.export(net, ms.Tensor(x), file_name=str(d / name), file_format="MINDIR")
        models[name] = {"fmk": "MINDIR", "src": d / f"{name}.mindir", "x": x,
                        "ref": [net(ms.Tensor(x)).asnumpy()]}
    for name, m in models.items():
        m["ml_file"] = convert_file(m["fmk"], str(m["src"]), str(d / f"{name}_ml"))
        m["job_ml"] = jobs.run(m["ml_file"], [nhwc(m["x"])], d / f"{name}_ml_lite.npz")
        if m["fmk"] == "ONNX":       # Lite 2.0.0 reads MINDIR of mind_ir_version 1 only
            m["job_conv"] = jobs.convert("ONNX", m["src"], d / f"{name}_lite",
                                         input_shape=STATIC.get(name))
            m["lite_file"] = str(d / f"{name}_lite.ms")
            m["job_lite"] = jobs.run(m["lite_file"], [nhwc(m["x"])], d / f"{name}_lite.npz")
    results = jobs.go()
    for name, m in models.items():
        m["lite_on_ml"] = _result(results[m["job_ml"]], d / f"{name}_ml_lite.npz")
        if m["fmk"] == "ONNX":
            m["lite_on_lite"] = _result(results[m["job_lite"]], d / f"{name}_lite.npz") \
                if results[m["job_conv"]]["ok"] else results[m["job_conv"]]["error"]
    _print_table(models)
    return models


def ms_data(name):
    import os
    return os.path.join(os.path.dirname(__file__), "data", name)


def _result(res, path):
    return outputs(path) if res["ok"] else res["error"]


def _mindlite_run(path, x):
    with open(path, "rb") as f:
        return run(build(f.read(), name=str(path)), nhwc(x))


def _print_table(models):
    print("\nmodel                 mindlite .ms in real Lite      real Lite .ms in mindlite")
    for name, m in models.items():
        a = m["lite_on_ml"]
        left = "%.2e abs %.2e rel" % _diff(a, m["ref"]) if not isinstance(a, str) else a[:30]
        right = "-"
        if m["fmk"] == "ONNX" and not isinstance(m["lite_on_lite"], str):
            right = "%.2e abs %.2e rel" % _diff(_mindlite_run(m["lite_file"], m["x"]),
                                                m["lite_on_lite"])
        print(f"{name:<21} {left:<30} {right}")


NAMES = ["lenet", "resnet18", "mobilenetv2", "encoder", "zoo", "ms_lenet_mindspore",
         "ms_resnet", "ms_mobilenet", "ms_encoder"]


@pytest.mark.parametrize("name", NAMES)
def test_real_lite_runs_mindlite_conversions(name, interop):
    """mindlite's converter -> real Lite's runtime: the reference's outputs (torch's,
    MindSpore's, mindlite eager's), and mindlite's runtime agrees on the same file."""
    m = interop[name]
    got = m["lite_on_ml"]
    assert not isinstance(got, str), f"real MindSpore Lite refused {m['ml_file']}: {got}"
    assert _bound_ok(name, got, m["ref"]), _diff(got, m["ref"])
    assert _bound_ok(name, _mindlite_run(m["ml_file"], m["x"]), got)


@pytest.mark.parametrize("name", [n for n in NAMES if not n.startswith("ms_")])
def test_mindlite_runs_real_lite_conversions(name, interop):
    """real Lite's converter -> mindlite's runtime: real Lite's outputs on the same file."""
    m = interop[name]
    want = m["lite_on_lite"]
    assert not isinstance(want, str), f"real MindSpore Lite failed on its own file: {want}"
    assert _bound_ok(name, want, m["ref"])          # real Lite agrees with the reference
    assert _bound_ok(name, _mindlite_run(m["lite_file"], m["x"]), want)


def _custom_net():
    from mindlite import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.custom = ops.Custom(None, out_shape=(4, 5), out_dtype=ms.float32,
                                     type="Custom_AddN", attrs={"input_num": "2"})

        def construct(self, a, b):
            return ops.relu(self.custom(a, b)) * 2
    return Net()


def test_custom_node_from_real_lites_converter_runs_on_a_registered_kernel(tmp_path):
    """A Custom node written by real Lite's converter (a MINDIR with a Custom_AddN node; the
    converter gets the type's shape inference from a plugin built here, as Lite requires)
    runs in mindlite through the kernel registered with register_kernel for that type."""
    import shutil
    import subprocess
    from mindlite.registry import Kernel, register_kernel, unregister_kernel
    from mindlite.train.mindir import mind_ir_pb2 as pb
    if shutil.which("g++") is None:
        pytest.skip("building Lite's converter plugin needs g++")
    wheel = subprocess.run([lite_python(), "-c", "import mindspore_lite, os; print(os.path."
                            "dirname(mindspore_lite.__file__))"], capture_output=True,
                           text=True, check=True).stdout.strip()
    plugin = tmp_path / "libcustom_addn_infer.so"
    subprocess.run(["g++", "-shared", "-fPIC", "-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=0",
                    f"-I{wheel}", ms_data("lite_custom_addn_infer.cc"), "-o", str(plugin),
                    f"-L{wheel}/lib", "-lmslite_converter_plugin", f"-Wl,-rpath,{wheel}/lib"],
                   check=True, capture_output=True)
    cfg = tmp_path / "plugin.cfg"
    cfg.write_text(f"[registry]\nplugin_path={plugin}\n")

    class AddAll(Kernel):
        """The sum of the inputs (Lite's converter keeps the Custom node's type, not
        mindlite's attributes: this kernel needs none)."""

        def execute(self, *arrays):
            *inputs, out = arrays
            np.copyto(out, inputs[0])
            for x in inputs[1:]:
                np.add(out, x, out=out)
    register_kernel("Custom_AddN", custom=True, provider="Tutorial", dtypes=(ms.float32,),
                    kernel=AddAll)
    try:
        net = _custom_net()
        a, b = np.ones((4, 5), np.float32), np.arange(20, dtype=np.float32).reshape(4, 5)
        want = net(ms.Tensor(a), ms.Tensor(b)).asnumpy()
        ms.export(net, ms.Tensor(a), ms.Tensor(b), file_name=str(tmp_path / "custom"),
                  file_format="MINDIR")
        # NOTE: Lite 2.0.0 reads MINDIR files of mind_ir_version 1 only; mindlite writes
        # MindSpore 2.x's 3. This graph reads the same with the field lowered.
        proto = pb.ModelProto.FromString((tmp_path / "custom.mindir").read_bytes())
        proto.mind_ir_version = 1
        (tmp_path / "custom_v1.mindir").write_bytes(proto.SerializeToString())
        jobs = LiteJobs(tmp_path)
        jobs.convert("MINDIR", tmp_path / "custom_v1.mindir", tmp_path / "custom_lite",
                     config=cfg)
        res = jobs.go()
        assert res[0]["ok"], res[0]
        from mindlite.lite.ms_file import read_ms
        data = (tmp_path / "custom_lite.ms").read_bytes()
        customs = [n for n in read_ms(data).nodes if n.op_type == "Custom"]
        assert [n.attrs["type"] for n in customs] == ["Custom_AddN"]
        model = build(data, name="custom_lite.ms")
        kernel = [k for k in model._session.main.kernels if k.type == "Custom"][0]
        assert ("Custom", "Tutorial") in kernel.selected
        np.testing.assert_array_equal(run(model, a, b)[0], want)
    finally:
        unregister_kernel("Custom_AddN", "Tutorial", custom=True)
