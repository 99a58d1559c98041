"""Lite extension points: the AddN -> Custom_AddN converter pass with its provider kernel
(examples/lite_custom_addn.py), a provider kernel overriding a built-in op picked by the
Lite scheduler (with the prepare/resize/execute life cycle), user passes at after_fusion
seeing the Lite fusions, and a Custom node with no kernel (a clear error)."""
import importlib.util
import pathlib

import numpy as np
import pytest

import mindlite as ms
from mindlite.ir import ValueNode
from mindlite.jit.passes import (PassPosition, register_pass, register_scheduled_passes,
                                 unregister_pass)
from mindlite.kernels.registry import Kernel, register_kernel, unregister_kernel
from mindlite.lite.converter import convert, convert_graph
from mindlite.lite.graph_build import LiteBuildError
from mindlite.jit.export_graph import graph_for_export

from lite_models import LeNet, build, rand, round_trip, run

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")
EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "lite_custom_addn.py"


def test_addn_custom_example(tmp_path):
    spec = importlib.util.spec_from_file_location("lite_custom_addn", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    result = mod.main(str(tmp_path))
    np.testing.assert_array_equal(result["out"], result["want"])
    assert (tmp_path / "three_way_sum.ms").exists()
    assert mod.CustomAddNKernel.resized          # Lite's resize ran before execute


class CountingRelu(Kernel):
    """A provider's ReLU with Lite's life cycle, counting each stage."""
    calls = {"prepare": 0, "resize": 0, "execute": 0}

    def prepare(self):
        CountingRelu.calls["prepare"] += 1

    def resize(self, inputs, outputs):
        CountingRelu.calls["resize"] += 1

    def execute(self, x, out):
        CountingRelu.calls["execute"] += 1
        np.maximum(x, 0, out=out)


def test_provider_kernel_chosen_by_lite_scheduler():
    register_kernel("ReLU", provider="Acme", dtypes=(ms.float32,), kernel=CountingRelu)
    try:
        got, want, model = round_trip(LeNet(), rand(2, 1, 32, 32))
        np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
        conv = model._session.main.kernels[0]
        assert conv.type == "Conv2DFusion" and ("ReLU", "Acme") in conv.selected
        before = dict(CountingRelu.calls)
        run(model, rand(2, 1, 32, 32, seed=9))
        assert CountingRelu.calls["execute"] >= before["execute"] + 4   # 2 convs + 2 dense
        assert CountingRelu.calls["prepare"] >= 1 and CountingRelu.calls["resize"] >= 1
    finally:
        unregister_kernel("ReLU", "Acme")


def test_user_pass_after_fusion_sees_lite_fusions():
    seen = []

    def spy(graph, manager):
        seen.extend(getattr(n.inputs[0].value, "name", None) for g in manager.graphs()
                    for n in g.order if isinstance(n.inputs[0], ValueNode))
        return False
    register_pass("lite_spy", spy)
    register_scheduled_passes(PassPosition.POSITION_END, ["lite_spy"])
    try:
        convert_graph(graph_for_export(LeNet(), ms.Tensor(rand(1, 1, 32, 32))))
    finally:
        register_scheduled_passes(PassPosition.POSITION_END, [])
        unregister_pass("lite_spy")
    assert "Conv2DFusion" in seen and "MatMulFusion" in seen and "BiasAdd" not in seen


def test_failing_user_pass_is_named():
    def broken(graph, manager):
        raise KeyError("boom")
    register_pass("lite_broken", broken)
    register_scheduled_passes(PassPosition.POSITION_BEGIN, ["lite_broken"])
    try:
        with pytest.raises(RuntimeError, match="lite_broken"):
            convert(LeNet(), ms.Tensor(rand(1, 1, 32, 32)))
    finally:
        register_scheduled_passes(PassPosition.POSITION_BEGIN, [])
        unregister_pass("lite_broken")


def test_custom_without_kernel_is_a_clear_error():
    from mindlite.lite.ms_file import MsModel, MsNode, MsSubGraph, MsTensor, write_ms
    m = MsModel("custom")
    m.tensors = [MsTensor("x", np.float32, [2, 3], node_type=1), MsTensor("y", np.float32, [2, 3])]
    m.nodes = [MsNode("my_custom", "Custom", {"type": "Custom_NoKernel", "attr": [("k", b"1")]},
                      [0], [1])]
    m.subgraphs = [MsSubGraph("main", [0], [1], [0], [0, 1])]
    m.inputs, m.outputs = [0], [1]
    data = write_ms(m)
    with pytest.raises(LiteBuildError, match="c.ms: node 'my_custom' .op Custom.: no kernel.*"
                                              "Custom_NoKernel"):
        build(data, name="c.ms")
