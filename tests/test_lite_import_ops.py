"""The Lite runtime's import rules against numpy references, one node a file (hypothesis):
pools with Lite's explicit padding and CEIL rounding (max never picks a padded cell, an
average counts the window's cells inside the input only, as nnacl's), PadFusion (constant,
reflect), the ONNX form of StridedSlice, Gather with negative indices, Split, Resize
(nearest, asymmetric), in NHWC; an attribute mindlite has no kernel for names the node."""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mindlite.lite import schema as S
from mindlite.lite.graph_build import LiteBuildError
from mindlite.lite.ms_file import MsModel, MsNode, MsSubGraph, MsTensor, write_ms

from lite_models import build, run

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")


def one_node(op_type, attrs, x, consts=(), n_out=1, fmt=S.FORMAT_NHWC):
    """The .ms bytes of one node: input x (a runtime tensor of x's shape), then constants."""
    m = MsModel("one")
    m.tensors = [MsTensor("x", x.dtype, x.shape, fmt, S.NODE_PARAMETER)]
    for i, c in enumerate(consts):
        c = np.asarray(c)
        m.tensors.append(MsTensor(f"c{i}", c.dtype, c.shape, fmt, S.NODE_VALUE,
                                  np.ascontiguousarray(c).tobytes()))
    outs = list(range(len(m.tensors), len(m.tensors) + n_out))
    m.tensors += [MsTensor(f"y{i}", x.dtype, [], fmt) for i in range(n_out)]
    m.nodes = [MsNode("the_node", op_type, attrs, list(range(len(consts) + 1)), outs)]
    m.subgraphs = [MsSubGraph("main", [0], outs, [0], list(range(len(m.tensors))))]
    m.inputs, m.outputs = [0], outs
    return write_ms(m)


def pool_size(n, k, s, lo, hi, ceil):
    span = n + lo + hi - k
    return (-(-span // s) if ceil else span // s) + 1


def pool_reference(x, k, s, pad, ceil, is_max):
    """nnacl's pooling of NHWC x: windows over the padded input, CEIL or FLOOR output size,
    max over the real cells, average over the real cells."""
    n, h, w, c = x.shape
    oh = pool_size(h, k[0], s[0], pad[0], pad[1], ceil)
    ow = pool_size(w, k[1], s[1], pad[2], pad[3], ceil)
    out = np.empty((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - pad[0], j * s[1] - pad[2]
            win = x[:, max(h0, 0):max(min(h0 + k[0], h), 0), max(w0, 0):max(min(w0 + k[1], w), 0)]
            out[:, i, j] = win.max((1, 2)) if is_max else win.mean((1, 2))
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2),
       st.lists(st.integers(0, 1), min_size=4, max_size=4), st.booleans(), st.booleans(),
       st.integers(3, 7), st.integers(3, 7))
def test_padded_pools(kh, kw, sh, sw, pad, ceil, is_max, h, w):
    pad = [min(p, k - 1) for p, k in zip(pad, (kh, kh, kw, kw))]
    assume(h + pad[0] + pad[1] >= kh and w + pad[2] + pad[3] >= kw)
    # every window must hold a real cell (nnacl would divide by zero)
    assume((pool_size(h, kh, sh, pad[0], pad[1], ceil) - 1) * sh - pad[0] < h)
    assume((pool_size(w, kw, sw, pad[2], pad[3], ceil) - 1) * sw - pad[2] < w)
    x = np.random.default_rng(h * 7 + w).standard_normal((2, h, w, 3)).astype(np.float32)
    want = pool_reference(x, (kh, kw), (sh, sw), pad, ceil, is_max)
    attrs = {"kernel_size": [kh, kw], "strides": [sh, sw], "pad": pad,
             "pad_mode": S.PAD_MODE["PAD"], "round_mode": int(ceil), "format": S.FORMAT_NHWC}
    data = one_node("MaxPoolFusion" if is_max else "AvgPoolFusion", attrs, x)
    got = run(build(data), x)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=6, max_size=6), st.booleans(),
       st.floats(-3, 3, allow_nan=False))
def test_pad_fusion(p, reflect, value):
    x = np.random.default_rng(sum(p)).standard_normal((1, 4, 5, 3)).astype(np.float32)
    pairs = [[0, 0], p[0:2], p[2:4], [0, 0]] if reflect else [[0, 0], p[0:2], p[2:4], p[4:6]]
    attrs = {"padding_mode": S.PADDING_MODE["REFLECT" if reflect else "CONSTANT"],
             "constant_value": value}
    got = run(build(one_node("PadFusion", attrs, x, [np.asarray(pairs, np.int32)])), x)[0]
    want = np.pad(x, pairs, mode="reflect") if reflect else \
        np.pad(x, pairs, constant_values=np.float32(value))
    np.testing.assert_array_equal(got, want)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_strided_slice_onnx_form(data):
    x = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    axes = data.draw(st.lists(st.integers(-3, 2), min_size=1, max_size=3,
                              unique_by=lambda a: a % 3))
    starts, ends, steps = [], [], []
    for ax in axes:
        n = x.shape[ax]
        step = data.draw(st.sampled_from([1, 2, -1, -2]))
        starts.append(data.draw(st.integers(-n - 2, n + 2)))
        ends.append(data.draw(st.sampled_from([-2 ** 31, 2 ** 31 - 1]) |
                              st.integers(-n - 2, n + 2)))
        steps.append(step)
    index = [slice(None)] * 3
    for ax, b, e, s in zip(axes, starts, ends, steps):
        index[ax] = slice(b, e, s)
    consts = [np.asarray(v, np.int32) for v in (starts, ends, axes, steps)]
    got = run(build(one_node("StridedSlice", {}, x, consts)), x)[0]
    np.testing.assert_array_equal(got, x[tuple(index)])


def test_gather_negative_indices_and_split():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    idx = np.asarray([-1, 0, 2, -4], np.int32)
    got = run(build(one_node("Gather", {}, x, [idx, np.asarray([0], np.int32)])), x)[0]
    np.testing.assert_array_equal(got, np.take(x, idx, 0))
    attrs = {"output_num": 3, "size_splits": [1, 2, 3], "axis": 1}
    got = run(build(one_node("Split", attrs, x, n_out=3)), x)
    for g, w in zip(got, np.split(x, [1, 3], 1)):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("scale", [2.0, 0.5])
def test_resize_nearest_asymmetric(scale):
    x = np.random.default_rng(0).standard_normal((1, 4, 6, 2)).astype(np.float32)
    attrs = {"format": S.FORMAT_NHWC, "method": S.RESIZE_METHOD["NEAREST"],
             "coordinate_transform_mode": S.COORDINATE["ASYMMETRIC"],
             "nearest_mode": S.NEAREST["FLOOR"]}
    got = run(build(one_node("Resize", attrs, x, [np.asarray([scale, scale], np.float32)])),
              x)[0]
    oh, ow = int(round(4 * scale)), int(round(6 * scale))
    rows = np.minimum(np.floor(np.arange(oh) / scale).astype(int), 3)
    cols = np.minimum(np.floor(np.arange(ow) / scale).astype(int), 5)
    np.testing.assert_array_equal(got, x[:, rows][:, :, cols])


def test_unsupported_attributes_name_the_node():
    x = np.zeros((1, 4, 4, 2), np.float32)
    attrs = {"format": S.FORMAT_NHWC, "method": S.RESIZE_METHOD["CUBIC"]}
    with pytest.raises(LiteBuildError, match="one.ms: node 'the_node' .op Resize.: method CUBIC"):
        build(one_node("Resize", attrs, x, [np.asarray([2, 2], np.int32)]), name="one.ms")
    attrs = {"padding_mode": S.PADDING_MODE["SYMMETRIC"]}
    with pytest.raises(LiteBuildError, match="node 'the_node' .op PadFusion.: padding_mode 2"):
        build(one_node("PadFusion", attrs, x, [np.zeros((4, 2), np.int32)]))
