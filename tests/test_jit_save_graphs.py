"""save_graphs: set_context(save_graphs=..., save_graphs_path=...) writes the graph after
parsing and after each pipeline stage as MindSpore 2.10 names them (NN_<stage>_CCCC.ir, a
process-wide counter), `.dot` files at level 3, nothing at 0; every `.ir` has the dump
layout; bad values are errors at set_context."""
import os
import re

import numpy as np
import pytest

import mindlite as ms
from mindlite.jit import passes
from mindlite.jit.passes import register_pass, register_scheduled_passes, unregister_pass

NAME = re.compile(r"^(\d\d)_(\w+?)_(\d{4})\.(ir|dot)$")


@pytest.fixture
def dumps(tmp_path):
    def compile_at(level, fn, *args):
        path = tmp_path / f"level{level}"
        ms.set_context(save_graphs=level, save_graphs_path=str(path))
        try:
            fn(*args)
        finally:
            ms.set_context(save_graphs=False, save_graphs_path=".")
        return sorted(os.listdir(path)) if path.exists() else [], path
    return compile_at


def _f(x, y):
    a = x - 1
    b = a * 1 + y
    return b


def _parse(files):
    out = []
    for f in files:
        m = NAME.match(f)
        assert m, f
        out.append((int(m.group(3)), int(m.group(1)), m.group(2), m.group(4)))
    return sorted(out)


@pytest.mark.parametrize("level", [True, 1, 2])
def test_one_ir_file_per_stage_in_pipeline_order(dumps, level):
    x = ms.Tensor(np.ones(2, np.float32))
    files, path = dumps(level, ms.jit(_f), x, x)
    entries = _parse(files)
    assert [e[2] for e in entries] == ["parse"] + passes.stage_names()
    assert [e[1] for e in entries] == list(range(len(entries)))          # NN: 00, 01, ...
    counters = [e[0] for e in entries]
    assert counters == list(range(counters[0], counters[0] + len(entries)))
    assert {e[3] for e in entries} == {"ir"}
    for f in files:
        text = (path / f).read_text()
        lines = text.splitlines()
        assert lines[0].startswith("# IR entry: @") and lines[1].startswith("# Total subgraphs")
        assert "# Params:" in lines and "# Order:" in lines
        assert re.search(r"^subgraph @\w+\(\) \{$", text, re.M) and "  Return(%" in text
    parse_ir = (path / files[0]).read_text()
    simplified = (path / [f for f in files if "_algebraic_simplify_" in f][0]).read_text()
    assert "PrimFunc_Mul" in parse_ir and "PrimFunc_Mul" not in simplified


def test_level_3_adds_dot_files_numbered_after_their_ir(dumps):
    x = ms.Tensor(np.ones(2, np.float32))
    files, path = dumps(3, ms.jit(_f), x, x)
    entries = _parse(files)
    assert len(entries) == 2 * (1 + len(passes.stage_names()))
    for ir, dot in zip(entries[::2], entries[1::2]):
        assert ir[3] == "ir" and dot[3] == "dot" and dot[0] == ir[0] + 1
        assert ir[1:3] == dot[1:3]
    dot_text = (path / [f for f in files if f.endswith(".dot")][0]).read_text()
    assert dot_text.startswith("digraph ") and dot_text.rstrip().endswith("}")


def test_level_0_writes_nothing_and_user_passes_are_named(dumps):
    x = ms.Tensor(np.ones(2, np.float32))
    files, _ = dumps(0, ms.jit(_f), x, x)
    assert files == []
    register_pass("my_pass", lambda g, m: False)
    register_scheduled_passes("after_fusion", ["my_pass"])
    try:
        files, _ = dumps(1, ms.jit(_f), x, x)
    finally:
        register_scheduled_passes("after_fusion", [])
        unregister_pass("my_pass")
    stages = [e[2] for e in _parse(files)]
    assert stages[-2:] == ["my_pass", "dead_node_elimination_final"]


def test_graph_mode_cells_dump_too(dumps):
    net = ms.nn.Dense(3, 2)
    x = ms.Tensor(np.ones((1, 3), np.float32))

    def call(x):
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            return net(x)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    files, path = dumps(1, call, x)
    assert files and _parse(files)[0][2] == "parse"
    assert "Dense" in (path / files[0]).read_text()


@pytest.mark.parametrize("kwargs, exc", [
    ({"save_graphs": 4}, ValueError), ({"save_graphs": -1}, ValueError),
    ({"save_graphs": "yes"}, TypeError), ({"save_graphs": 1.0}, TypeError),
    ({"save_graphs_path": 3}, TypeError), ({"save_graphs_path": ""}, TypeError),
])
def test_bad_values(kwargs, exc):
    with pytest.raises(exc, match="set_context"):
        ms.set_context(**kwargs)
    assert ms.get_context("save_graphs") in (False, 0)
