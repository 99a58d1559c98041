"""The Lite runtime end to end: mindlite -> converter -> .ms -> Model.predict equals mindlite
for an MLP, LeNet (batch 1 and 4), a control-flow model (both branches: Switch +
PartialFusion + Call), the Python API (get_inputs, resize, callbacks, errors), the fusions the
converter makes, and optimize="none"."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import lite as mslite
from mindlite import ops
from mindlite.lite.converter import convert_graph
from mindlite.lite.ms_file import read_ms
from mindlite.jit.export_graph import graph_for_export

from helpers import run_threads
from lite_models import Branchy, Counting, Doubling, LeNet, MLP, nhwc, rand, round_trip, run

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")


def test_mlp_round_trip():
    got, want, _ = round_trip(MLP((8, 16, 16, 4)), rand(3, 8))
    np.testing.assert_array_equal(got[0], want[0])          # the same kernels: bit-identical


@pytest.mark.parametrize("batch", [1, 4])
def test_lenet_round_trip(batch):
    got, want, model = round_trip(LeNet(), rand(batch, 1, 32, 32))
    np.testing.assert_array_equal(got[0], want[0])
    types = [k.type for k in model._session.main.kernels]
    assert types == ["Conv2DFusion", "MaxPoolFusion", "Conv2DFusion", "MaxPoolFusion",
                     "Transpose", "Flatten", "MatMulFusion", "MatMulFusion", "MatMulFusion"]
    m = model._session.model           # NHWC as MindSpore Lite's converter writes it
    assert m.tensors[m.inputs[0]].dims == [batch, 32, 32, 1]


def test_converter_fusions_and_optimize_none():
    x = ms.Tensor(rand(2, 1, 32, 32))
    fused = convert_graph(graph_for_export(LeNet(), x))
    plain = convert_graph(graph_for_export(LeNet(), x), optimize="none")
    conv = [n for n in fused.nodes if n.op_type == "Conv2DFusion"][0]
    assert conv.attrs["activation_type"] == 1 and len(conv.inputs) == 2
    mm = [n for n in fused.nodes if n.op_type == "MatMulFusion"]
    assert [len(n.inputs) for n in mm] == [3, 3, 3]
    assert [n.attrs.get("activation_type", 0) for n in mm] == [1, 1, 0]
    plain_types = [n.op_type for n in plain.nodes]
    assert plain_types.count("BiasAdd") == 3 and plain_types.count("Activation") == 4
    net = LeNet()
    a = rand(2, 1, 32, 32)
    got, want, _ = round_trip(net, a, optimize="none")
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_control_flow_subgraphs(sign):
    net = Branchy()
    x, y = np.abs(rand(2, 4)) * sign, rand(2, 4, seed=1)
    got, want, model = round_trip(net, x, y)
    np.testing.assert_array_equal(got[0], want[0])
    m = model._session.model
    assert len(m.subgraphs) == 3
    assert sorted(n.op_type for n in m.nodes if n.op_type in ("PartialFusion", "Switch", "Call")) \
        == ["Call", "PartialFusion", "PartialFusion", "Switch"]


def test_control_flow_both_branches_one_model():
    net = Branchy()
    x, y = np.abs(rand(2, 4)), rand(2, 4, seed=1)
    _, _, model = round_trip(net, x, y)
    for sign in (1.0, -1.0):
        got = run(model, x * sign, y)
        want = net(ms.Tensor(x * sign), ms.Tensor(y)).asnumpy()
        np.testing.assert_allclose(got[0], want, rtol=1e-6, atol=1e-7)


def test_api_inputs_resize_and_callbacks():
    net = LeNet()
    _, _, model = round_trip(net, rand(1, 1, 32, 32))
    ins = model.get_inputs()
    assert ins[0].shape == [1, 32, 32, 1] and ins[0].dtype == mslite.DataType.FLOAT32
    model.resize(ins, [[3, 32, 32, 1]])
    assert model.get_inputs()[0].shape == [3, 32, 32, 1]
    x = rand(3, 1, 32, 32, seed=5)
    seen = []
    ins[0].set_data_from_numpy(nhwc(x))
    out = model.predict(ins, before_callback=lambda i, o, info: seen.append(("b", info.node_type)),
                        after_callback=lambda i, o, info: seen.append(
                            ("a", info.node_name, o[0].shape)))
    np.testing.assert_allclose(out[0].get_data_to_numpy(), net(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-6)
    assert seen[0] == ("b", "Conv2DFusion") and seen[1][2] == [3, 28, 28, 6]
    assert len(seen) == 18 and seen[-1][2] == [3, 10]


def test_api_errors():
    _, _, model = round_trip(MLP(), rand(2, 8))
    ins = model.get_inputs()
    with pytest.raises(TypeError, match="data type"):
        ins[0].set_data_from_numpy(np.zeros((2, 8), np.float64))
    with pytest.raises(ValueError, match="data size"):
        ins[0].set_data_from_numpy(np.zeros((3, 8), np.float32))
    with pytest.raises(ValueError, match="rank"):
        model.resize(ins, [[2, 8, 1]])
    with pytest.raises(TypeError, match="list of 1 Tensors"):
        model.predict([])
    with pytest.raises(ValueError, match="not available"):
        mslite.Context().target = ["gpu"]
    with pytest.raises(TypeError, match="thread_num"):
        mslite.Context().cpu.thread_num = -1
    with pytest.raises(RuntimeError, match="build the model first"):
        mslite.Model().get_inputs()
    with pytest.raises(TypeError, match="ModelType"):
        mslite.Model().build_from_file("x.ms", "MINDIR_LITE")


def test_build_from_file(tmp_path):
    from mindlite.lite.converter import convert
    net = MLP()
    x = rand(2, 8)
    convert(net, ms.Tensor(x), file_name=str(tmp_path / "mlp"))
    model = mslite.Model()
    ctx = mslite.Context()
    ctx.target = ["cpu"]
    ctx.cpu.thread_num = 2
    model.build_from_file(str(tmp_path / "mlp.ms"), mslite.ModelType.MINDIR_LITE, ctx)
    from mindlite import _C
    forced = _C.get_num_threads()
    seen = []
    ins = model.get_inputs()
    ins[0].set_data_from_numpy(x)
    out = model.predict(ins, before_callback=lambda i, o, info: seen.append(
        _C.get_num_threads()))[0].get_data_to_numpy()
    np.testing.assert_allclose(out, net(ms.Tensor(x)).asnumpy(), rtol=1e-6)
    assert set(seen) == {2} and _C.get_num_threads() == forced   # forced during, restored
    assert read_ms((tmp_path / "mlp.ms").read_bytes()).outputs



def test_thread_num_runs_from_four_threads_restore_the_settings(tmp_path):
    """Runs that set thread_num from 4 threads at once share one counted override: every run
    sees its count and the process's pool and BLAS settings come back afterwards."""
    import threading
    from mindlite import _C
    from mindlite.lite.converter import convert
    net, x = MLP(), rand(2, 8)
    convert(net, ms.Tensor(x), file_name=str(tmp_path / "mlp"))
    want = net(ms.Tensor(x)).asnumpy()
    before = _C.get_num_threads()
    errors = []

    def work():
        ctx = mslite.Context()
        ctx.cpu.thread_num = 1
        model = mslite.Model()
        model.build_from_file(str(tmp_path / "mlp.ms"), mslite.ModelType.MINDIR_LITE, ctx)
        ins = model.get_inputs()
        ins[0].set_data_from_numpy(x)
        for _ in range(50):
            out = model.predict(ins)[0].get_data_to_numpy()
            if not np.allclose(out, want, rtol=1e-6):
                errors.append(out)
                return

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and _C.get_num_threads() == before

def _add(a, b):
    return a + b * 2.0


def _sub(a, b):
    return a - b


def _mul(a, b):
    return a * b


def _div(a, b):
    return a / (ops.abs(b) + 1)


def _max(a, b):
    return ops.maximum(a, b)


def _sigmoid(a, b):
    return ops.sigmoid(a) + b


def _tanh(a, b):
    return ops.tanh(a - b)


def _exp(a, b):
    return ops.exp(a) - b


def _sqrt(a, b):
    return ops.sqrt(ops.abs(a)) + b


def _neg(a, b):
    return -a + b


def _square(a, b):
    return ops.square(a) * b


def _logsoftmax(a, b):
    return ops.log_softmax(a + b, -1)


def _mean(a, b):
    return a.mean(-1, keep_dims=True) + b


def _transpose(a, b):
    return ops.transpose(a, (1, 0)) * 3.0


FNS = [_add, _sub, _mul, _div, _max, _sigmoid, _tanh, _exp, _sqrt, _neg, _square, _logsoftmax,
       _mean, _transpose]


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(FNS), st.integers(1, 3), st.integers(1, 5))
def test_ops_round_trip(fn, rows, cols):
    a, b = rand(rows, cols), rand(rows, cols, seed=3)
    got, want, _ = round_trip(ms.jit(fn), a, b)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)


def test_callbacks_reach_branch_subgraphs_and_threads_share_a_model():
    net = Branchy()
    x, y = np.abs(rand(2, 4)), rand(2, 4, seed=1)
    _, _, model = round_trip(net, x, y)
    seen = []
    ins = model.get_inputs()
    ins[0].set_data_from_numpy(x)
    ins[1].set_data_from_numpy(y)
    model.predict(ins, after_callback=lambda i, o, info: seen.append(info.node_type))
    assert "Call" in seen and "MatMulFusion" in seen and "SubFusion" not in seen
    results = {}

    def work(k):
        sign = 1.0 if k % 2 else -1.0
        for _ in range(5):         # each thread its own input Tensors
            outs = model.predict([mslite.Tensor(x * sign), mslite.Tensor(y)])
            results[k] = outs[0].get_data_to_numpy()
    errors = run_threads(work)
    assert not errors
    for k, got in results.items():
        sign = 1.0 if k % 2 else -1.0
        np.testing.assert_array_equal(got, net(ms.Tensor(x * sign), ms.Tensor(y)).asnumpy())


@pytest.mark.parametrize("limit", [0.0, 100.0, 1e30])
def test_while_loop_is_a_recursive_subgraph(limit):
    net = Doubling()
    x, lim = rand(2, 3), np.array([limit], np.float32)
    got, want, model = round_trip(net, x, lim)
    np.testing.assert_array_equal(got[0], want[0])
    m = model._session.model
    partials = [n.attrs["sub_graph_index"] for n in m.nodes if n.op_type == "PartialFusion"]
    assert len(m.subgraphs) == 4 and partials.count(1) == 2    # main and the body call it


def test_long_loop_runs_without_recursion():
    net = Counting()
    x, lim = np.zeros((2, 3), np.float32), np.array([12000.0], np.float32)
    got, want, _ = round_trip(net, x, lim)                  # 2000 iterations
    np.testing.assert_array_equal(got[0], want[0])
    assert got[0][0, 0] == 2000


def _if_in_while(x):
    i = ms.Tensor(0.0)
    while i < 3:
        if x.sum() > 0:
            x = x - 1
        i = i + 1
    return x


def _if_after_while(x):
    while x.sum() < 10:
        x = x + 1
        if x.sum() > 5:
            x = x + 2
    return x


def _while_then_if(x):
    y = x
    while x.sum() < 5:
        x = x + 1
    if y.sum() > 0:
        x = x - y
    return x


@pytest.mark.parametrize("fn", [_if_in_while, _if_after_while, _while_then_if])
def test_tensor_if_with_tensor_while(fn):
    """Issue 28.5(b)/(c): a branch that returns another graph's value (the loop's result,
    an earlier branch's) takes it as an input of its subgraph; the converter crashed with
    'list indices must be integers or slices, not _Switch', or wrote a subgraph whose output
    no node computed."""
    for x in (np.array([1.0, 2.0], np.float32), np.array([-4.0, 1.0], np.float32)):
        got, want, _ = round_trip(ms.jit(fn), x)
        np.testing.assert_array_equal(got[0], want[0])
