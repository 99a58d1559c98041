"""mindlite.profiler.Profiler (MindSpore's API): what it collects while on and nothing while
off, the files analyse() writes (op_statistic.csv, trace_view.json) parsed back with the ops
and call counts that ran, the stage split adding up to each op's time, context-manager and
callback use around Model.train, graph-mode kernels, backward ops, threads, and misuse
warning as MindSpore's does. No timing bounds: only counts, names and sums of figures."""
import csv
import glob
import json
import os
import threading

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, _C, nn, ops
from mindlite.profiler import Profiler, ProfilerActivity, ProfilerLevel
from mindlite.profiler.collect import Collection
from mindlite.profiler.report import C_STAGES, STAGE_COLUMNS
from mindlite.train import Callback, Model


def _x(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _files(prof):
    out = os.path.join(prof.result_dir, "ASCEND_PROFILER_OUTPUT")
    with open(os.path.join(out, "op_statistic.csv"), newline="") as f:
        rows = {r["OP Type"]: r for r in csv.DictReader(f)}
    with open(os.path.join(out, "trace_view.json")) as f:
        trace = json.load(f)
    return rows, trace


def _counts(rows):
    return {name: int(r["Count"]) for name, r in rows.items()}


def _op_events(trace):
    return [e for e in trace["traceEvents"] if e["ph"] == "X" and e["cat"] != "first-call stage"]


def test_collects_only_while_on_and_writes_both_files(tmp_path):
    x, y = _x(4, 4), _x(4, 4, seed=1)
    relu, add = ops.ReLU(), ops.Add()
    relu(x), add(x, y)                                  # cached before: no first call inside
    prof = Profiler(output_path=str(tmp_path), start_profile=False)
    relu(x)                                             # off: not collected
    prof.start()
    for _ in range(3):
        relu(x)
    for _ in range(2):
        add(x, y)
    prof.stop()
    add(x, y)                                           # off again
    prof.analyse()
    assert os.path.dirname(prof.result_dir) == str(tmp_path)
    assert prof.result_dir.endswith("_ascend_ms")
    rows, trace = _files(prof)
    assert _counts(rows) == {"ReLU": 3, "Add": 2}
    for r in rows.values():
        assert r["Core Type"] == "CPU"
        assert int(r["cached (C runner) calls"]) == int(r["Count"])
        assert float(r["Total Time(us)"]) >= float(r["Max Time(us)"]) >= float(r["Min Time(us)"])
    assert sum(float(r["Ratio(%)"]) for r in rows.values()) == pytest.approx(100, abs=0.01)
    events = _op_events(trace)
    assert sorted(e["name"] for e in events) == ["Add"] * 2 + ["ReLU"] * 3
    for e in events:
        assert set(e) >= {"name", "ph", "ts", "dur", "pid", "tid", "args"}
        assert e["pid"] == os.getpid() and e["dur"] >= 0 and e["ts"] >= 0
        assert e["args"]["path"] == "cached (C runner)"
    assert [e["ts"] for e in events] == sorted(e["ts"] for e in events)


def test_stage_split_adds_up_to_each_ops_time(tmp_path):
    x = _x(3, 5)
    prim = ops.Softmax()
    with Profiler(output_path=str(tmp_path)) as prof:
        prim(x)                                         # first call of this signature
        prim(x)
        prim(x)
    prof.analyse()
    rows, trace = _files(prof)
    r = rows["Softmax"]
    assert int(r["first call / Python dispatch calls"]) == 1
    assert int(r["cached (C runner) calls"]) == 2
    stages = {s: float(r[f"{s}(us)"]) for s in STAGE_COLUMNS}
    # every µs of the op is in one stage column (the rest named "Python glue / unattributed")
    assert sum(stages.values()) == pytest.approx(float(r["Total Time(us)"]), abs=0.02)
    for s in ("cast inputs", "input abstracts", "inference", "compile op", "kernel inputs",
              "run kernel graph", "runner build"):
        assert stages[f"first call: {s}"] > 0, s
    for s in C_STAGES[1:4]:                             # alloc, launch, wrap of cached calls
        assert stages[s] >= 0
    nested = [e for e in trace["traceEvents"] if e.get("cat") == "first-call stage"]
    assert {e["name"] for e in nested} >= {"inference", "run kernel graph", "runner build"}
    first = next(e for e in _op_events(trace) if e["args"]["path"].startswith("first"))
    for e in nested:                                    # drawn inside their op
        assert first["ts"] - 0.01 <= e["ts"] <= first["ts"] + first["dur"] + 0.01


def test_backward_ops_and_grad_record(tmp_path):
    w = _x(4, 3)
    x = _x(2, 4, seed=1)

    def loss(w):
        return ops.sum(ops.relu(ops.matmul(x, w)))
    grad_fn = ms.grad(loss)
    grad_fn(w)
    with Profiler(output_path=str(tmp_path)) as prof:
        for _ in range(2):
            grad_fn(w)
    prof.analyse()
    counts = _counts(_files(prof)[0])
    assert counts["MatMul"] >= 4 and counts["ReLU"] == 2 and counts["ReluGrad"] == 2


@ms.jit
def _jit_fn(a, b):
    return ops.relu(ops.matmul(a, b)) * 2.0


def test_graph_mode_kernels(tmp_path):
    x = _x(4, 4)
    _jit_fn(x, x)
    with Profiler(output_path=str(tmp_path)) as prof:
        for _ in range(3):
            _jit_fn(x, x)
    prof.analyse()
    rows, trace = _files(prof)
    graph = {n: int(r["graph kernel calls"]) for n, r in rows.items()
             if int(r["graph kernel calls"])}
    assert graph and all(c % 3 == 0 for c in graph.values())
    assert sum(graph.values()) >= 3
    assert any(e["cat"] == "graph kernel" for e in _op_events(trace))


def test_ops_from_several_threads(tmp_path):
    x = _x(4, 4)
    exp = ops.Exp()
    exp(x)
    n, k = 50, 3

    def work():
        for _ in range(n):
            exp(x)
    with Profiler(output_path=str(tmp_path)) as prof:
        threads = [threading.Thread(target=work) for _ in range(k)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    prof.analyse()
    rows, trace = _files(prof)
    assert _counts(rows) == {"Exp": n * k}
    tids = {e["tid"] for e in _op_events(trace)}
    assert len(tids) == k
    named = {e["tid"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    assert tids <= named


def _dataset(n):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((n, 4, 3)).astype(np.float32)
    ys = rng.integers(0, 2, (n, 4)).astype(np.int32)
    return ms.dataset.GeneratorDataset(lambda: zip(xs, ys), ["data", "label"])


def _model():
    net = nn.Dense(3, 2)
    return Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                 nn.Momentum(net.trainable_params(), 0.1, 0.9))


def test_around_model_train(tmp_path):
    model = _model()
    prof = Profiler(output_path=str(tmp_path))
    model.train(1, _dataset(4))
    prof.analyse()
    counts = _counts(_files(prof)[0])
    assert counts["ApplyMomentum"] == 2 * 4                # weight and bias, 4 steps
    assert counts["BiasAdd"] == 4


class _StopAtStep(Callback):
    """MindSpore's documented callback use: start at one step, stop at another."""

    def __init__(self, start_step, stop_step, path):
        super().__init__()
        self.start_step, self.stop_step = start_step, stop_step
        self.profiler = Profiler(start_profile=False, output_path=path)

    def step_begin(self, run_context):
        if run_context.original_args().cur_step_num == self.start_step:
            self.profiler.start()

    def step_end(self, run_context):
        if run_context.original_args().cur_step_num == self.stop_step:
            self.profiler.stop()

    def end(self, run_context):
        self.profiler.analyse()


def test_callback_collects_its_steps(tmp_path):
    cb = _StopAtStep(2, 3, str(tmp_path))
    _model().train(1, _dataset(5), callbacks=[cb])
    counts = _counts(_files(cb.profiler)[0])
    assert counts["ApplyMomentum"] == 2 * 2 and counts["BiasAdd"] == 2


def test_misuse_warns_as_mindspore(tmp_path):
    x = _x(2, 2)
    prof = Profiler(output_path=str(tmp_path))
    with pytest.warns(RuntimeWarning, match="already started"):
        prof.start()
    with pytest.warns(RuntimeWarning, match="another Profiler"):
        other = Profiler(output_path=str(tmp_path / "other"))
    ops.relu(x)
    prof.stop()
    with pytest.warns(RuntimeWarning, match="has not started"):
        prof.stop()
    with pytest.warns(RuntimeWarning, match="no schedule"):
        prof.step()
    prof.analyse()
    assert _counts(_files(prof)[0]) == {"ReLU": 1}
    with pytest.warns(RuntimeWarning, match="no collected data"):
        prof.analyse()
    with pytest.warns(RuntimeWarning, match="no collected data"):
        other.analyse()
    assert not _C.profiler_on()


def test_parameters(tmp_path):
    with pytest.warns(RuntimeWarning, match="start_profile"):
        prof = Profiler(output_path=str(tmp_path), start_profile="yes")
    assert prof._has_started                       # reset to the default, True
    prof.stop()
    with pytest.warns(RuntimeWarning, match="unknown parameters.*outptu_path"):
        Profiler(outptu_path=str(tmp_path), start_profile=False)
    prof = Profiler(output_path=str(tmp_path), start_profile=False, profile_memory=True,
                    profiler_level=ProfilerLevel.Level1, with_stack=True,
                    activities=[ProfilerActivity.CPU])       # device options: no effect
    prof.add_metadata("run", "a")
    prof.add_metadata_json("cfg", '{"lr": 0.1}')
    with prof:
        ops.exp(_x(2))
    prof.analyse()
    with open(os.path.join(prof.result_dir, "profiler_metadata.json")) as f:
        assert json.load(f) == {"run": "a", "cfg": {"lr": 0.1}}
    assert len(glob.glob(str(tmp_path / "*_ascend_ms"))) == 1


def test_errors_inside_keep_the_recorder_sound(tmp_path):
    with Profiler(output_path=str(tmp_path)) as prof:
        with pytest.raises(ValueError):
            ops.add(_x(2, 3), _x(4, 5))
        ops.add(_x(2, 3), _x(2, 3))
    prof.analyse()
    assert _counts(_files(prof)[0])["Add"] >= 1
    assert not _C.profiler_on()


def test_recorder_cap_counts_dropped_calls():
    x = _x(2, 2)
    relu = ops.ReLU()
    relu(x)
    c = Collection(max_events=5)
    assert c.start()
    for _ in range(8):
        relu(x)
    c.stop()
    assert len(c.records) == 5 and c.dropped == 3
    assert c.names == ["ReLU"] and set(c.records["path"].tolist()) == {0}
    with pytest.raises(TypeError, match="profiler_enable"):
        _C.profiler_enable(True, 0)
    assert not _C.profiler_on()


def test_table_sums_match_the_full_walk(tmp_path, monkeypatch):
    """summarize adds up the events that hold no other op with numpy: the same rows as
    walking every event."""
    from mindlite.profiler import report
    x, w = _x(4, 4), _x(4, 4, seed=2)
    prof = Profiler(output_path=str(tmp_path))
    for _ in range(3):
        ms.grad(lambda w: ops.sum(ops.tanh(ops.matmul(x, w))))(w)
        ops.add(x, 1)
    prof.stop()
    fast = report.summarize(prof._collections)
    monkeypatch.setattr(report, "_walk_mask", lambda rec: np.ones(len(rec), bool))
    full = report.summarize(prof._collections)

    def key(rows):
        return [(r.name, r.count, r.total, r.self, r.min, r.max, r.paths, r.stages)
                for r in rows]
    assert key(fast) == key(full)
    assert any(r.paths[2] for r in fast) and any(r.paths[0] for r in fast)
