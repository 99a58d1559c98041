"""ONNX -> mindlite import (mindlite/onnx/importer.py, import_ops*.py): models built here
with onnx.helper (opsets 13-21, the version-dependent forms of Squeeze/Reduce*/Split/Pad/
Clip/Resize) must give onnxruntime's outputs; mindlite -> ONNX -> mindlite round trips give
eager's; torch.onnx exports load when torch is installed."""
import os

import numpy as np
import pytest

import mindlite as ms
from mindlite import nn

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed")
ort = pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from mindlite.jit.export_graph import graph_for_export  # noqa: E402
from mindlite.onnx import OnnxGraphCell, export_onnx_model, load_onnx  # noqa: E402

import test_onnx_export as ex  # noqa: E402
import test_onnx_export_layers as exm  # noqa: E402

RNG = np.random.default_rng(1)
F = TensorProto.FLOAT


def make_model(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s)
                                       for n, t, s in inputs],
                          [helper.make_tensor_value_info(o[0], o[1], o[2] if len(o) > 2 else None)
                           for o in outputs],
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8 if opset <= 18 else 10
    return m


def against_ort(model, *arrays, atol=1e-5):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), arrays)})
    got = OnnxGraphCell(load_onnx(model))(*[ms.Tensor(a) for a in arrays])
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = g.asnumpy()
        assert g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=atol)


def x_of(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def one(op, opset=13, shape=(2, 3, 4), inits=(), n_in=1, out_type=F, **attrs):
    """A model of one node over `n_in` float inputs of `shape` plus the constant inits."""
    names = [f"x{i}" for i in range(n_in)]
    node = helper.make_node(op, names + [k for k, _ in inits], ["y"], **attrs)
    return make_model([node], [(n, F, list(shape)) for n in names], [("y", out_type)],
                      inits, opset)


I64 = np.int64


@pytest.mark.parametrize("op", ["Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Erf", "Floor",
                                "Ceil", "Sin", "Cos", "Softplus", "Sign", "Identity"])
def test_unary(op):
    against_ort(one(op), x_of(2, 3, 4))


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean"])
def test_binary_broadcast(op):
    m = one(op, inits=[("b", x_of(4))])
    against_ort(m, x_of(2, 3, 4))


@pytest.mark.parametrize("opset,attrs,inits", [
    (13, {"axes": [1]}, []), (18, {}, [("axes", np.array([1, -1], I64))]),
    (13, {"keepdims": 0}, []), (21, {"keepdims": 0}, [("axes", np.array([0], I64))])])
@pytest.mark.parametrize("op", ["ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"])
def test_reduce_opset_forms(op, opset, attrs, inits):
    against_ort(one(op, opset, inits=inits, **attrs), x_of(2, 3, 4))


def test_reduce_sum_axes_input_and_noop():
    against_ort(one("ReduceSum", inits=[("a", np.array([2], I64))], keepdims=0), x_of(2, 3, 4))
    against_ort(one("ReduceSum", noop_with_empty_axes=1), x_of(2, 3, 4))


@pytest.mark.parametrize("opset", [13, 17, 21])
def test_squeeze_unsqueeze_axes_inputs(opset):
    nodes = [helper.make_node("Unsqueeze", ["x", "ax"], ["u"]),
             helper.make_node("Squeeze", ["u", "ax2"], ["y"])]
    m = make_model(nodes, [("x", F, [2, 1, 3])], [("y", F)],
                   [("ax", np.array([0, -1], I64)), ("ax2", np.array([0, 2], I64))], opset)
    against_ort(m, x_of(2, 1, 3))


@pytest.mark.parametrize("opset,attrs,inits,n", [
    (13, {"axis": 2}, [("s", np.array([1, 3], I64))], 2),
    (13, {"axis": 1}, [], 3),
    (18, {"axis": 2, "num_outputs": 2}, [], 2)])
def test_split_forms(opset, attrs, inits, n):
    node = helper.make_node("Split", ["x"] + [k for k, _ in inits], [f"y{i}" for i in range(n)],
                            **attrs)
    m = make_model([node], [("x", F, [2, 3, 4])], [(f"y{i}", F) for i in range(n)], inits,
                   opset)
    against_ort(m, x_of(2, 3, 4))


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad_forms(mode):
    pads = np.array([0, 1, 2, 0, 0, 1], I64)
    inits = [("p", pads)] + ([("v", np.array(1.5, np.float32))] if mode == "constant" else [])
    against_ort(one("Pad", inits=inits, mode=mode), x_of(2, 3, 4))
    if mode == "constant":            # opset 18: pads of the listed axes only
        m = one("Pad", 18, inits=[("p", np.array([1, 2], I64)), ("v", np.array(0.5, np.float32)),
                                  ("axes", np.array([-1], I64))])
        against_ort(m, x_of(2, 3, 4))


def test_clip_min_max_inputs():
    against_ort(one("Clip", inits=[("lo", np.array(-0.5, np.float32)),
                                   ("hi", np.array(0.7, np.float32))]), x_of(2, 3, 4))
    node = helper.make_node("Clip", ["x", "", "hi"], ["y"])
    m = make_model([node], [("x", F, [5])], [("y", F)], [("hi", np.array(0.1, np.float32))])
    against_ort(m, x_of(5))


@pytest.mark.parametrize("mode,ctm,nearest", [
    ("nearest", "asymmetric", "floor"), ("nearest", "tf_half_pixel_for_nn", "floor"),
    ("linear", "half_pixel", None), ("linear", "align_corners", None),
    ("linear", "pytorch_half_pixel", None)])
def test_resize_forms(mode, ctm, nearest):
    kw = {"mode": mode, "coordinate_transformation_mode": ctm}
    if nearest:
        kw["nearest_mode"] = nearest
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], **kw)
    m = make_model([node], [("x", F, [1, 2, 3, 4])], [("y", F)],
                   [("scales", np.array([1, 1, 2, 1.5], np.float32))])
    against_ort(m, x_of(1, 2, 3, 4))
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], **kw)
    m = make_model([node], [("x", F, [1, 2, 3, 4])], [("y", F)],
                   [("sizes", np.array([1, 2, 5, 7], I64))], 19)
    against_ort(m, x_of(1, 2, 3, 4))


def test_gemm_conv_pool_bn():
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 0, 2, 1], strides=[1, 2]),
             helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"]),
             helper.make_node("MaxPool", ["n"], ["p"], kernel_shape=[2, 2], pads=[1, 1, 0, 0]),
             helper.make_node("AveragePool", ["p"], ["a"], kernel_shape=[2, 2], strides=[1, 1],
                              auto_pad="SAME_UPPER"),
             helper.make_node("GlobalAveragePool", ["a"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "gw", "gb"], ["y"], transB=1, alpha=0.5, beta=2.0)]
    inits = [("w", x_of(4, 3, 3, 3)), ("b", x_of(4)), ("s", x_of(4)), ("bb", x_of(4)),
             ("m", x_of(4)), ("v", np.abs(x_of(4)) + 0.5), ("gw", x_of(5, 4)), ("gb", x_of(5))]
    m = make_model(nodes, [("x", F, [2, 3, 8, 9])], [("y", F)], inits)
    against_ort(m, x_of(2, 3, 8, 9), atol=1e-4)
    g = load_onnx(m)
    names = [p.default.name for p in g.parameters if p.default is not None]
    assert set(names) == {k for k, _ in inits}


def test_shape_arithmetic_folds():
    """torch-style Shape -> Gather -> Unsqueeze -> Concat -> Reshape becomes a constant."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
             helper.make_node("Unsqueeze", ["b", "ax"], ["bu"]),
             helper.make_node("Concat", ["bu", "minus1"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("ConstantOfShape", ["s2"], ["ones"],
                              value=numpy_helper.from_array(np.array([2.0], np.float32))),
             helper.make_node("Mul", ["r", "ones"], ["y"])]
    inits = [("zero", np.array(0, I64)), ("ax", np.array([0], I64)),
             ("minus1", np.array([-1], I64)), ("s2", np.array([12], I64))]
    m = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, [2, 12])], inits)
    against_ort(m, x_of(2, 3, 4))
    g = load_onnx(m)
    assert {n.inputs[0].value.name for n in g.order} == {"Reshape", "Mul"}


def test_array_ops():
    nodes = [helper.make_node("Slice", ["x", "st", "en", "axs", "stp"], ["sl"]),
             helper.make_node("Gather", ["x", "idx"], ["ga"], axis=2),
             helper.make_node("Transpose", ["ga"], ["tr"], perm=[0, 2, 1, 3]),
             helper.make_node("Tile", ["sl", "rep"], ["ti"]),
             helper.make_node("Expand", ["one", "eshape"], ["ex"]),
             helper.make_node("Where", ["cond", "x", "ex"], ["wh"]),
             helper.make_node("TopK", ["x", "k"], ["tv", "ti2"]),
             helper.make_node("CumSum", ["x", "cax"], ["cs"], reverse=1),
             helper.make_node("ArgMax", ["x"], ["am"], axis=1),
             helper.make_node("Range", ["r0", "r1", "r2"], ["rg"]),
             helper.make_node("Cast", ["rg"], ["rgf"], to=F),
             helper.make_node("Add", ["cs", "rgf"], ["y"])]
    inits = [("st", np.array([2, 0], I64)), ("en", np.array([-9, 9], I64)),
             ("axs", np.array([2, 1], I64)), ("stp", np.array([-1, 2], I64)),
             ("idx", np.array([[0, -1], [1, 2]], I64)), ("rep", np.array([1, 2, 1], I64)),
             ("one", x_of(3, 1)), ("eshape", np.array([2, 1, 4], I64)),
             ("cond", RNG.random((3, 4)) > 0.5), ("k", np.array([2], I64)),
             ("cax", np.array(2, I64)), ("r0", np.array(0, I64)), ("r1", np.array(8, I64)),
             ("r2", np.array(2, I64))]
    outs = [("y", F), ("sl", F), ("tr", F), ("ti", F), ("wh", F), ("tv", F),
            ("ti2", TensorProto.INT64), ("am", TensorProto.INT64)]
    m = make_model(nodes, [("x", F, [2, 3, 4])], outs, inits)
    against_ort(m, x_of(2, 3, 4))


def test_activations_and_norms_new_opsets():
    nodes = [helper.make_node("LayerNormalization", ["x", "g", "b"], ["ln"], axis=-1,
                              epsilon=1e-5),
             helper.make_node("Gelu", ["ln"], ["ge"]),
             helper.make_node("Gelu", ["ln"], ["gt"], approximate="tanh"),
             helper.make_node("HardSigmoid", ["gt"], ["hs"], alpha=0.3, beta=0.4),
             helper.make_node("HardSwish", ["ge"], ["hw"]),
             helper.make_node("LeakyRelu", ["hw"], ["lr"], alpha=0.1),
             helper.make_node("Softmax", ["lr"], ["sm"], axis=1),
             helper.make_node("LogSoftmax", ["hs"], ["ls"]),
             helper.make_node("Add", ["sm", "ls"], ["y"])]
    m = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F)],
                   [("g", x_of(4)), ("b", x_of(4))], 20)
    against_ort(m, x_of(2, 3, 4))


def test_integer_div_and_logic():
    i32 = TensorProto.INT32
    nodes = [helper.make_node("Div", ["a", "b"], ["d"]),
             helper.make_node("Greater", ["a", "b"], ["g"]),
             helper.make_node("Not", ["g"], ["n"]),
             helper.make_node("Xor", ["g", "n"], ["x"]),
             helper.make_node("And", ["x", "g"], ["y"])]
    m = make_model(nodes, [("a", i32, [4]), ("b", i32, [4])],
                   [("d", i32), ("y", TensorProto.BOOL)])
    against_ort(m, np.array([-7, 7, 9, -9], np.int32), np.array([2, 2, -4, -4], np.int32))


def test_if_becomes_switch():
    then_g = helper.make_graph([helper.make_node("Mul", ["x", "two"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", F, None)])
    else_g = helper.make_graph([helper.make_node("Sub", ["x", "two"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", F, None)])
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    m = make_model(nodes, [("x", F, [3])], [("y", F)],
                   [("two", np.array(2, np.float32)), ("zero", np.array(0, np.float32))])
    against_ort(m, np.array([1, 2, 3], np.float32))
    against_ort(m, np.array([-1, -2, 3], np.float32))


@pytest.mark.parametrize("opset", [13, 18, 21])
def test_round_trip_models(opset):
    net = ex.LeNet()
    x = ex.rand(2, 1, 32, 32)
    cell = OnnxGraphCell(load_onnx(export_onnx_model(graph_for_export(net, x), opset)))
    np.testing.assert_allclose(cell(x).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)
    for net, args in [(ex.MLP(), (ex.rand(3, 8),)), (ex.branches, (ex.rand(2, 3), ex.rand(2, 3))),
                      (ex.elementwise, (ex.rand(3, 4), ex.rand(3, 4))),
                      (ex.reductions, (ex.rand(2, 3, 4),)), (ex.resize, (ex.rand(1, 2, 4, 4),)),
                      (ex.arrays, (ex.rand(2, 3, 4), ms.Tensor(np.array([[0, 2], [1, 1]],
                                                                         np.int32))))]:
        cell = OnnxGraphCell(load_onnx(export_onnx_model(graph_for_export(net, *args), opset)))
        got, want = cell(*args), net(*args)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-5)


def test_round_trip_transformer_block(tmp_path):
    net = ex.Block()
    net.set_train(False)
    idx = ms.Tensor(RNG.integers(0, 20, (2, 5)).astype(np.int32))
    path = tmp_path / "block.onnx"
    onnx.save(export_onnx_model(graph_for_export(net, idx)), str(path))
    cell = OnnxGraphCell(str(path))
    np.testing.assert_allclose(cell(idx).asnumpy(), net(idx).asnumpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="idx"):
        cell(ms.Tensor(np.zeros((3, 5), np.int32)))
    assert set(cell.parameters_dict()) == {p.name for p in net.get_parameters()}
    graph_cell = nn.GraphCell(load_onnx(str(path)))        # the interpreter: same results
    np.testing.assert_allclose(graph_cell(idx).asnumpy(), cell(idx).asnumpy(), rtol=1e-6)


def test_mindspore_written_file():
    """ms_cnn.onnx: written by MindSpore 2.10's export (opset 11, Conv with bias, Gemm,
    BatchNormalization; tests/data/make_onnx_fixtures.py) loads, upgraded to opset 13, and
    gives MindSpore's output."""
    data = os.path.join(os.path.dirname(__file__), "data")
    ref = np.load(os.path.join(data, "ms_cnn_onnx.npz"))
    cell = OnnxGraphCell(os.path.join(data, "ms_cnn.onnx"))
    np.testing.assert_allclose(cell(ms.Tensor(ref["x"])).asnumpy(), ref["y"], rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("attrs", [
    {}, {"strides": [2, 1], "pads": [1, 0, 1, 0]},
    {"strides": [2, 2], "pads": [1, 1, 0, 0], "output_padding": [1, 1]},
    {"strides": [3, 2], "output_padding": [2, 1], "group": 2, "dilations": [1, 2]}])
def test_conv_transpose(attrs):
    g = attrs.get("group", 1)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **attrs)
    m = make_model([node], [("x", F, [1, 4, 5, 5])], [("y", F)],
                   [("w", x_of(4, 3, 3, 3)), ("b", x_of(3 * g))])
    against_ort(m, x_of(1, 4, 5, 5), atol=1e-4)


@pytest.mark.parametrize("name", sorted(exm.LAYERS))
def test_round_trip_layers(name):
    net, shape = exm.LAYERS[name]()
    net.set_train(False)
    x = ms.Tensor(RNG.standard_normal(shape).astype(np.float32))
    cell = OnnxGraphCell(load_onnx(export_onnx_model(graph_for_export(net, x))))
    np.testing.assert_allclose(cell(x).asnumpy(), net(x).asnumpy(), rtol=1e-4, atol=1e-4)


def loop_model(with_trip, with_cond):
    """y = x * 2 + 1 repeated while the sum stays under 40, at most M times."""
    body = helper.make_graph(
        [helper.make_node("Mul", ["v", "two"], ["m"]), helper.make_node("Add", ["m", "one"],
                                                                          ["v2"]),
         helper.make_node("ReduceSum", ["v2"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "forty"], ["c2"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("v", F, [3])],
        [helper.make_tensor_value_info("c2", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v2", F, [3])])
    ins = ["M" if with_trip else "", "c0" if with_cond else "", "x"]
    m = make_model([helper.make_node("Loop", ins, ["y"], body=body)],
                   [("x", F, [3])], [("y", F, [3])],
                   [("M", np.array(3, I64)), ("c0", np.array(True)),
                    ("two", np.array(2, np.float32)), ("one", np.array(1, np.float32)),
                    ("forty", np.array(40, np.float32))])
    return m


@pytest.mark.parametrize("with_trip,with_cond", [(True, False), (False, True), (True, True)])
def test_loop_becomes_while_graph(with_trip, with_cond):
    m = loop_model(with_trip, with_cond)
    for start in (0.1, 1.0, 20.0):
        against_ort(m, np.full(3, start, np.float32))


def test_while_loops_round_trip():
    x = ex.rand(4)
    for n in (0, 3):
        args = (x, ms.Tensor(n, ms.int32))
        cell = OnnxGraphCell(load_onnx(export_onnx_model(graph_for_export(exm.while_loop,
                                                                          *args))))
        for g, w in zip(cell(*args), exm.while_loop(*args)):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)
