"""Delegates: the onnxruntime delegate claims runs of supported kernels and runs them in
onnxruntime (whole LeNet, or only some op types with mindlite running the rest), results
equal mindlite's; a delegate whose build fails falls back to mindlite's kernels with a
warning; a custom Delegate sees the kernels and their primitives."""
import warnings

import numpy as np
import pytest

import mindlite as ms
from mindlite import lite as mslite
from mindlite.lite.converter import convert
from mindlite.lite.delegate import OnnxRuntimeKernel
from mindlite.lite.kernel import SubGraphKernel

from lite_models import LeNet, MLP, Branchy, build, rand, run

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")
pytest.importorskip("onnx", reason="the onnxruntime delegate builds ONNX models")
pytest.importorskip("onnxruntime", reason="the onnxruntime delegate runs onnxruntime")


def _ctx(delegate):
    ctx = mslite.Context()
    ctx.delegate = delegate
    return ctx


def test_ort_delegate_runs_whole_lenet():
    net, x = LeNet(), rand(2, 1, 32, 32)
    d = mslite.OnnxRuntimeDelegate()
    model = build(convert(net, ms.Tensor(x)), _ctx(d))
    units = model._session.main.units
    assert len(units) == 1 and isinstance(units[0], OnnxRuntimeKernel)
    assert [k.type for k in units[0].kernels][:2] == ["Conv2DFusion", "MaxPoolFusion"]
    np.testing.assert_allclose(run(model, x)[0], net(ms.Tensor(x)).asnumpy(), rtol=1e-4,
                               atol=1e-5)
    assert {n.op_type for n in units[0].onnx_model.graph.node} >= {"Conv", "MaxPool", "Gemm",
                                                                   "Relu"}


def test_ort_delegate_partial_claim_mixes_engines():
    net, x = LeNet(), rand(1, 1, 32, 32, seed=2)
    d = mslite.OnnxRuntimeDelegate(ops=["MatMulFusion"])
    model = build(convert(net, ms.Tensor(x)), _ctx(d))
    units = model._session.main.units
    kinds = [type(u).__name__ for u in units]
    assert kinds == ["SubGraphKernel", "OnnxRuntimeKernel"]
    assert isinstance(units[0], SubGraphKernel) and units[0].arch == "CPU"
    assert [k.type for k in units[1].kernels] == ["MatMulFusion"] * 3
    np.testing.assert_allclose(run(model, x)[0], net(ms.Tensor(x)).asnumpy(), rtol=1e-4,
                               atol=1e-5)
    calls = []
    model.predict(_inputs(model, x),
                  after_callback=lambda i, o, info: calls.append(info.node_type))
    assert calls[-1] == "OnnxRuntime" and calls[0] == "Conv2DFusion"


def _inputs(model, x):
    ins = model.get_inputs()
    ins[0].set_data_from_numpy(x)
    return ins


def test_ort_delegate_with_control_flow():
    net = Branchy()
    for sign in (1.0, -1.0):
        x, y = np.abs(rand(2, 4)) * sign, rand(2, 4, seed=1)
        model = build(convert(net, ms.Tensor(x), ms.Tensor(y)),
                      _ctx(mslite.OnnxRuntimeDelegate()))
        np.testing.assert_allclose(run(model, x, y)[0],
                                   net(ms.Tensor(x), ms.Tensor(y)).asnumpy(), rtol=1e-5,
                                   atol=1e-6)


class Broken(mslite.Delegate):
    def build(self, model):
        raise RuntimeError("device lost")


def test_failing_delegate_falls_back_with_warning():
    net, x = MLP(), rand(2, 8)
    with pytest.warns(RuntimeWarning, match="Broken failed to build.*device lost"):
        model = build(convert(net, ms.Tensor(x)), _ctx(Broken()))
    assert all(isinstance(u, SubGraphKernel) for u in model._session.main.units)
    np.testing.assert_allclose(run(model, x)[0], net(ms.Tensor(x)).asnumpy(), rtol=1e-6)


class NoInit(mslite.Delegate):
    def init(self):
        return False

    def build(self, model):
        raise AssertionError("build() must not run when init() fails")


def test_delegate_init_failure_and_type_check():
    with pytest.warns(RuntimeWarning, match="NoInit failed to build.*init.. returned False"):
        build(convert(MLP(), ms.Tensor(rand(2, 8))), _ctx(NoInit()))
    with pytest.raises(TypeError, match="'delegate' must be a mindlite.lite.Delegate"):
        mslite.Context().delegate = object()


class Spy(mslite.Delegate):
    """Claims nothing; records what a delegate sees."""

    def __init__(self):
        self.seen = []

    def build(self, model):
        self.seen = [model.get_primitive(k) for k in model.kernels]


def test_delegate_sees_kernels_and_primitives():
    spy = Spy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build(convert(MLP(), ms.Tensor(rand(2, 8))), _ctx(spy))
    assert [t for t, _ in spy.seen] == ["MatMulFusion", "MatMulFusion"]
    assert spy.seen[0][1]["activation_type"] == 1


def test_custom_node_stays_on_mindlite():
    from mindlite.kernels.registry import register_kernel, unregister_kernel
    from mindlite.lite.ms_file import MsModel, MsNode, MsSubGraph, MsTensor, write_ms
    from mindlite.lite import schema as S

    def triple(x, out):
        np.multiply(x, 3, out=out)
    m = MsModel("custom")
    m.tensors = [MsTensor("x", np.float32, [2, 3], node_type=S.NODE_PARAMETER),
                 MsTensor("r", np.float32, [2, 3]), MsTensor("t", np.float32, [2, 3]),
                 MsTensor("y", np.float32, [2, 3])]
    m.nodes = [MsNode("relu", "Activation", {"activation_type": S.ACT["RELU"]}, [0], [1]),
               MsNode("triple", "Custom", {"type": "Custom_Triple", "attr": []}, [1], [2]),
               MsNode("neg", "Neg", {}, [2], [3])]
    m.subgraphs = [MsSubGraph("main", [0], [3], [0, 1, 2], [0, 1, 2, 3])]
    m.inputs, m.outputs = [0], [3]
    register_kernel("Custom_Triple", custom=True, provider="Mine", kernel=triple)
    try:
        model = build(write_ms(m), _ctx(mslite.OnnxRuntimeDelegate()))
        kinds = [(type(u).__name__, [k.type for k in getattr(u, "kernels", [u])])
                 for u in model._session.main.units]
        assert kinds == [("OnnxRuntimeKernel", ["Activation"]), ("SubGraphKernel", ["Custom"]),
                         ("OnnxRuntimeKernel", ["Neg"])]
        x = rand(2, 3)
        np.testing.assert_allclose(run(model, x)[0], -3 * np.maximum(x, 0), rtol=1e-6)
    finally:
        unregister_kernel("Custom_Triple", "Mine", custom=True)
