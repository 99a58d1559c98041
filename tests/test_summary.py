"""SummaryRecord and SummaryCollector (issue 14) write MindSpore 2.10's summary format.

tests/data/summary_mindspore.events is a file MindSpore 2.10's SummaryRecord wrote for the
values `_add_values` adds; mindlite's file for the same values holds the same events byte for
byte (wall times aside). tests/data/summary_collector_mindspore.json holds what `collect`
(a Model.train run with a SummaryCollector) read back when run with mindspore in place of
mindlite. Files are read back with summary_proto.read_summary (CRCs checked).
"""
import glob
import io
import json
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import Tensor, nn
from mindlite.dataset import NumpySlicesDataset
from mindlite.train import Model, SummaryCollector, SummaryRecord
from mindlite.train import summary_proto as sp

DATA = os.path.join(os.path.dirname(__file__), "data")


def _add_values(record):
    record.add_value("scalar", "loss", Tensor(np.float32(0.5)))
    record.add_value("tensor", "w", Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
    record.add_value("histogram", "h", Tensor(np.array(
        [0., 1, 2, 3, np.nan, np.inf, 5, 6, 7, 8, 9, 10, 11], np.float32)))
    record.add_value("image", "img", Tensor(
        np.linspace(0, 1, 2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)))
    record.record(1)
    record.add_value("scalar", "loss", Tensor(np.float32(0.25)))
    record.add_value("tensor", "i", Tensor(np.arange(4, dtype=np.int32)))
    record.record(2)


def _events_without_time(path):
    out = []
    for payload in sp.read_records(path):
        event = sp.Event()
        event.ParseFromString(payload)
        event.wall_time = 0.0
        out.append(event.SerializeToString())
    return out


def test_summary_record_writes_mindspores_events(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        _add_values(record)
        path = record.log_dir
    name = os.path.basename(path)
    assert name.startswith("events.out.events.summary.") and name.endswith("_MS")
    assert _events_without_time(path) == _events_without_time(
        os.path.join(DATA, "summary_mindspore.events"))


def test_read_back_values(tmp_path):
    with SummaryRecord(str(tmp_path), file_prefix="run", file_suffix="_x") as record:
        _add_values(record)
        path = record.log_dir
    assert os.path.basename(path).startswith("run.out.") and path.endswith("_x")
    head, first, second = sp.read_summary(path)
    assert head["version"] == "MindSpore.Event:1"
    assert (first["step"], second["step"]) == (1, 2)
    values = first["values"]
    assert values["loss"] == 0.5
    np.testing.assert_array_equal(values["w"], np.arange(6, dtype=np.float32).reshape(2, 3))
    assert second["values"]["i"].dtype == np.int32
    hist = values["h"]
    assert (hist["count"], hist["nan_count"], hist["pos_inf_count"]) == (13, 1, 1)
    assert (hist["min"], hist["max"], hist["sum"]) == (0.0, 11.0, 62.0)
    assert sum(b[2] for b in hist["buckets"]) == 11 and len(hist["buckets"]) == 2
    from PIL import Image
    image = values["img"]
    pixels = np.asarray(Image.open(io.BytesIO(image["png"])))
    assert pixels.shape == (4, 10, 3) == (image["height"], image["width"], 3)
    want = (np.linspace(0, 1, 120, dtype=np.float32).reshape(2, 3, 4, 5) * 255).astype(np.uint8)
    np.testing.assert_array_equal(pixels[:, :5], want[0].transpose(1, 2, 0))
    np.testing.assert_array_equal(pixels[:, 5:], want[1].transpose(1, 2, 0))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flat, self.fc = nn.Flatten(), nn.Dense(12, 3)

    def construct(self, x):
        return self.fc(self.flat(x))


def collect(summary_dir, specified=None, freq=2):
    """Train 2 epochs of 3 steps with a SummaryCollector; -> the events read back as plain
    values (run with mindlite or, for the pinned file, mindspore)."""
    rng = np.random.default_rng(0)
    x = rng.random((12, 1, 3, 4)).astype(np.float32)
    y = rng.integers(0, 3, 12).astype(np.int32)
    net = Net()
    net.fc.weight.set_data(ms.Tensor((rng.standard_normal((3, 12)) * 0.3).astype(np.float32)))
    net.fc.bias.set_data(ms.Tensor(np.zeros(3, np.float32)))
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.SGD(net.trainable_params(), 0.1))
    collector = SummaryCollector(summary_dir, collect_freq=freq,
                                 collect_specified_data=specified)
    model.train(2, NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4),
                callbacks=[collector])
    files = glob.glob(os.path.join(summary_dir, "*_MS"))
    out = []
    for event in sp.read_summary(files[0])[1:]:
        item = {"step": event["step"]}
        for tag, value in event["values"].items():
            if isinstance(value, float):
                item[tag] = value
            elif "png" in value:
                from PIL import Image
                pixels = np.asarray(Image.open(io.BytesIO(value["png"]))).astype(np.int64)
                item[tag] = [value["height"], value["width"], int(pixels.sum())]
            else:
                item[tag] = [value["min"], value["max"], value["count"],
                             [b[2] for b in value["buckets"]]]
        out.append(item)
    return out


def test_collector_matches_mindspore(tmp_path):
    want = json.load(open(os.path.join(DATA, "summary_collector_mindspore.json")))
    got = collect(str(tmp_path))
    assert [e["step"] for e in got] == [e["step"] for e in want] == [1, 2, 4, 6, 6]
    for g, w in zip(got, want):
        assert sorted(g) == sorted(w)
        np.testing.assert_allclose(g["loss/auto"], w["loss/auto"], rtol=1e-5)
        assert g["input_data/auto"] == w["input_data/auto"]          # pixels too
        assert g["input_data/auto"][:2] == [3, 4 * 4]
        for tag in ("fc.weight/auto", "fc.bias/auto"):
            np.testing.assert_allclose(g[tag][:2], w[tag][:2], rtol=1e-5, atol=1e-7)
            assert g[tag][2:] == w[tag][2:]


def test_collector_options(tmp_path):
    got = collect(str(tmp_path / "a"), {"collect_input_data": False,
                                        "histogram_regular": "fc.bias"}, freq=3)
    assert [e["step"] for e in got] == [1, 3, 3, 6, 6]
    assert all(sorted(e) == ["fc.bias/auto", "loss/auto", "step"] for e in got)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = collect(str(tmp_path / "b"), {"collect_metric": True}, freq=6)
    assert [sorted(e) for e in got][0] == ["fc.bias/auto", "fc.weight/auto", "input_data/auto",
                                           "loss/auto", "step"]
    net = Net()
    with SummaryCollector(str(tmp_path / "c"), collect_freq=2, keep_default_action=False,
                          collect_specified_data={"collect_metric": True}) as collector:
        model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                      nn.SGD(net.trainable_params(), 0.1))
        data = NumpySlicesDataset({"x": np.ones((4, 12), np.float32),
                                   "y": np.zeros(4, np.int32)}, shuffle=False).batch(2)
        model.train(1, data, callbacks=collector)
        model.train(1, data, callbacks=collector)          # the same file: the `with` owns it
    (path,) = glob.glob(str(tmp_path / "c" / "*_MS"))
    events = sp.read_summary(path)[1:]
    assert [e["step"] for e in events] == [1, 2, 2, 2, 2]
    assert all(list(e["values"]) == ["loss/auto"] for e in events)


def test_record_limits_and_export(tmp_path):
    with SummaryRecord(str(tmp_path), max_file_size=200,
                       export_options={"tensor_format": "npy"}) as record:
        record.add_value("scalar", "a", Tensor(np.float32(1)))
        record.add_value("tensor", "t/x", Tensor(np.arange(3, dtype=np.float32)))
        record.record(3)
        record.add_value("histogram", "big", Tensor(np.arange(1000, dtype=np.float32)))
        with pytest.warns(UserWarning, match="'max_file_size' reached"):
            record.record(4)
        path = record.log_dir
    assert [e["step"] for e in sp.read_summary(path)] == [0, 3]
    (npy,) = glob.glob(str(tmp_path / "export_*" / "tensor" / "*.npy"))
    assert os.path.basename(npy) == "t%2Fx_3.npy"
    np.testing.assert_array_equal(np.load(npy), np.arange(3, dtype=np.float32))
    with pytest.warns(UserWarning, match="the record writer is closed"):
        assert record.record(5) is False


def test_errors(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        with pytest.raises(RuntimeError, match="only one instance"):
            SummaryRecord(str(tmp_path))
        with pytest.raises(ValueError, match="no such 'plugin'"):
            record.add_value("text", "a", Tensor(np.float32(1)))
        with pytest.raises(ValueError, match="does not write the 'graph' plugin"):
            record.add_value("graph", "a", Tensor(np.float32(1)))
        with pytest.raises(TypeError, match="expect to be Tensor"):
            record.add_value("scalar", "a", 1.0)
        with pytest.raises(ValueError, match="a scalar value must hold one element"):
            record.add_value("scalar", "a", Tensor(np.zeros(2, np.float32)))
        with pytest.raises(ValueError, match="must be 4-d"):
            record.add_value("image", "a", Tensor(np.zeros((2, 2), np.float32)))
        with pytest.raises(ValueError, match="should not be 0-d"):
            record.add_value("histogram", "a", Tensor(np.float32(1)))
        with pytest.raises(TypeError, match="'step' must be an int"):
            record.record(1.5)
        with pytest.raises(ValueError, match="not a recognized mode"):
            record.set_mode("test")
    with SummaryRecord(str(tmp_path), network=nn.Dense(2, 2)) as record:
        record.add_value("scalar", "a", Tensor(np.float32(1)))
        with pytest.warns(UserWarning, match="writes no graph"):
            record.record(0)
    with pytest.raises(ValueError, match="'file_prefix' must be"):
        SummaryRecord(str(tmp_path), file_prefix="a b")
    with pytest.raises(ValueError, match="'collect_freq' should be greater than 0"):
        SummaryCollector(str(tmp_path), collect_freq=0)
    with pytest.raises(ValueError, match="are unsupported"):
        SummaryCollector(str(tmp_path), collect_specified_data={"collect_loss": True})
    with pytest.raises(ValueError, match="not a valid regular expression"):
        SummaryCollector(str(tmp_path), collect_specified_data={"histogram_regular": "("})
    with pytest.raises(TypeError, match="'collect_metric' must be a bool"):
        SummaryCollector(str(tmp_path), collect_specified_data={"collect_metric": 1})
    bad = tmp_path / "bad.events"
    good = open(os.path.join(DATA, "summary_mindspore.events"), "rb").read()
    bad.write_bytes(good[:100] + bytes([good[100] ^ 1]) + good[101:])
    with pytest.raises(sp.SummaryFormatError, match="bad.events: bad data CRC"):
        sp.read_summary(str(bad))
    bad.write_bytes(good[:-3])
    with pytest.raises(sp.SummaryFormatError, match="truncated"):
        sp.read_summary(str(bad))


def _crc32c_bitwise(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


@settings(max_examples=20, deadline=None)
@given(st.binary(min_size=0, max_size=700))
def test_crc32c_and_framing_round_trip(tmp_path_factory, payload):
    assert sp.crc32c(payload) == _crc32c_bitwise(payload)      # table and numba paths
    path = tmp_path_factory.mktemp("frames") / "f"
    path.write_bytes(sp.frame(payload) + sp.frame(payload[::-1]))
    assert sp.read_records(str(path)) == [payload, payload[::-1]]


@settings(max_examples=20, deadline=None)
@given(hnp.arrays(np.float32, st.integers(1, 200),
                  elements=st.one_of(st.floats(-1e3, 1e3, width=32),
                                     st.sampled_from([np.nan, np.inf, -np.inf]))))
def test_histogram_counts_every_finite_value(tmp_path_factory, values):
    with SummaryRecord(str(tmp_path_factory.mktemp("hist"))) as record, \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record.add_value("histogram", "h", Tensor(values))
        record.record(0)
        path = record.log_dir
    assert bool(caught) == (not np.isfinite(values).any())      # "no finite value"
    hist = sp.read_summary(path)[1]["values"]["h"]
    finite = values[np.isfinite(values)]
    assert hist["count"] == values.size
    assert hist["nan_count"] == np.isnan(values).sum()
    assert (hist["pos_inf_count"], hist["neg_inf_count"]) == (np.isposinf(values).sum(),
                                                              np.isneginf(values).sum())
    if finite.size:
        assert sum(b[2] for b in hist["buckets"]) == finite.size
        assert (hist["min"], hist["max"]) == (finite.min(), finite.max())
        want_bins = 2 if finite.size <= 5 else 3 if finite.size <= 10 else finite.size // 10 + 1
        assert len(hist["buckets"]) == want_bins
    else:
        assert hist["buckets"] == []


def test_one_instance_rule_under_four_threads(tmp_path):
    """Four threads opening a SummaryRecord at once: exactly one opens it, the others raise
    RuntimeError (the rule is checked and counted under one lock); closed, a new one opens."""
    import threading
    start = threading.Barrier(4)
    opened, refused = [], []

    def open_one(k):
        start.wait(timeout=10)
        try:
            opened.append(SummaryRecord(str(tmp_path / f"run{k}")))
        except RuntimeError:
            refused.append(k)
    threads = [threading.Thread(target=open_one, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(opened) == 1 and len(refused) == 3
    opened[0].close()
    with SummaryRecord(str(tmp_path / "again")) as record:
        assert record.log_dir
