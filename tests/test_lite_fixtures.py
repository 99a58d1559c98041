"""`.ms` files MindSpore Lite 2.0.0's own converter wrote (tests/data/lite_*.ms, made by
tests/data/make_lite_fixtures.py with real Lite's outputs) load and run in mindlite with real
Lite's outputs, without Lite installed: no version string, NHWC inputs, KHWC weights,
Transposes, Lite's fused primitives (Conv2DFusion with RELU6, padded MaxPoolFusion, global and
excluded-padding AvgPoolFusion, LayerNormFusion, ONNX-form StridedSlice, PadFusion reflect,
Conv2dTransposeFusion, Resize, Split, Shape -> BroadcastTo)."""
import os
import warnings

import numpy as np
import pytest

from mindlite.lite import schema as S
from mindlite.lite.ms_file import read_ms

from lite_models import build, run

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")

DATA = os.path.join(os.path.dirname(__file__), "data")


def _file(name):
    with open(os.path.join(DATA, f"lite_{name}.ms"), "rb") as f:
        return f.read()


@pytest.mark.parametrize("name", ["cnn", "encoder", "zoo"])
def test_real_lite_files_run_with_real_lites_outputs(name):
    ref = np.load(os.path.join(DATA, "lite_fixtures.npz"))
    data = _file(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # no version: no warning
        m = read_ms(data, f"lite_{name}.ms")
    assert m.version == "" and m.name == ""
    got = run(build(data, name=f"lite_{name}.ms"), ref[f"{name}_x"])
    want = [ref[f"{name}_y{i}"] for i in range(len(got))]
    assert len(want) == len([k for k in ref.files if k.startswith(f"{name}_y")])
    for g, w in zip(got, want):
        assert g.shape == w.shape
        assert np.abs(g - w).max() <= 1e-5 * np.abs(w).max()


def test_what_real_lites_converter_writes():
    cnn = read_ms(_file("cnn"))
    x = cnn.tensors[cnn.inputs[0]]
    assert x.dims == [1, 12, 12, 3] and x.format == S.FORMAT_NHWC
    convs = [n for n in cnn.nodes if n.op_type == "Conv2DFusion"]
    assert all(n.attrs["format"] == S.FORMAT_NHWC for n in convs)
    assert convs[0].attrs["activation_type"] == S.ACT["RELU6"]          # Clip + BN folded
    w = cnn.tensors[convs[1].inputs[1]]
    assert w.dims == [8, 3, 3, 1] and convs[1].attrs["group"] == 8     # depthwise, KHWC
    pool = [n for n in cnn.nodes if n.op_type == "MaxPoolFusion"][0]
    assert pool.attrs["pad"] == [1, 1, 1, 1] and pool.attrs["pad_mode"] == S.PAD_MODE["PAD"]
    avg = [n for n in cnn.nodes if n.op_type == "AvgPoolFusion"]
    assert [n.attrs["global"] for n in avg] == [False, True]
    zoo = [n.op_type for n in read_ms(_file("zoo")).nodes]
    assert {"PadFusion", "Conv2dTransposeFusion", "Resize", "Split", "Shape",
            "BroadcastTo", "StridedSlice"} <= set(zoo)
    enc = [n.op_type for n in read_ms(_file("encoder")).nodes]
    assert enc.count("LayerNormFusion") == 2 and "Softmax" in enc
