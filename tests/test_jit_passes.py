"""The built-in graph passes (mindlite/jit/passes/), each on a small graph before and after:
node counts, lint after the pass, and the optimized graph's result equal to eager's over
generated inputs. Graphs come from the parser with the pipeline switched off (so the pass
under test is the only one that runs) or are built by hand where the parser would already
have simplified them (constant folding, inlining)."""
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import nn, ops
from mindlite.abstract import abstract_tensor
from mindlite.ir import (FuncGraph, FuncGraphManager, ValueNode, lint, reachable_graphs,
                         SWITCH)
from mindlite.ir.anf import FUNC
from mindlite.jit.executor import run_graph
from mindlite.jit.passes import pipeline

SETTINGS = settings(max_examples=15, deadline=None)
F32 = abstract_tensor(ms.float32, (2, 3))


@pytest.fixture
def parse_only(monkeypatch):
    """fn, *args -> the Compiled entry of fn's graph with no pass run (pipeline empty)."""
    monkeypatch.setattr(pipeline, "PIPELINE", [])

    def compile_(fn, *args):
        return ms.jit(fn).compiled(args, {})
    return compile_


def apply(graph, name):
    changed = pipeline.BUILTIN[name](graph, FuncGraphManager(graph))
    lint(graph)
    return changed


def prims(graph):
    """Counter of primitive / IR-primitive names over the live nodes of every graph (a fused
    elementwise node counts as the ops it computes)."""
    pipeline.BUILTIN["dead_node_elimination"](graph, FuncGraphManager(graph))
    out = Counter()
    for g in reachable_graphs(graph):
        for n in g.order:
            callee = n.inputs[0]
            value = callee.value if isinstance(callee, ValueNode) else None
            if getattr(value, "name", None) == "FusedElemwise":   # its steps, by op name
                out.update(step[0] for step in value.attrs["program"])
                continue
            out["call" if value is None or isinstance(value, FuncGraph) else value.name] += 1
    return out


def tensors(draw_shape=st.sampled_from([(2, 3), (1, 3), (4, 1)])):
    return draw_shape.flatmap(lambda s: st.lists(
        st.floats(-50, 50, width=32), min_size=int(np.prod(s)), max_size=int(np.prod(s))).map(
        lambda v: ms.Tensor(np.array(v, np.float32).reshape(s))))


def _identities(x):
    a = x * 1
    b = 1 * a + 0
    c = 0 + b - 0
    d = c / 1
    e = ops.neg(ops.neg(d))
    f = ops.reshape(e, e.shape)
    g = ops.transpose(f, (0, 1))
    h = ops.cast(g, ms.float32)
    t = ops.transpose(ops.transpose(h, (1, 0)), (1, 0))
    return t + 2


@SETTINGS
@given(x=tensors())
def test_algebraic_simplify_removes_identities(x):
    entry = _parse_fresh(_identities, x)
    before = prims(entry.graph)
    assert before["Mul"] == 2 and before["Transpose"] == 3 and before["Neg"] == 2
    assert apply(entry.graph, "algebraic_simplify")
    after = prims(entry.graph)
    assert after == Counter({"Add": 1}), after
    np.testing.assert_array_equal(entry.run([x]).asnumpy(), _identities(x).asnumpy())


def _parse_fresh(fn, *args):
    saved = pipeline.PIPELINE
    pipeline.PIPELINE = []
    try:
        return ms.jit(fn).compiled(args, {})
    finally:
        pipeline.PIPELINE = saved


def test_algebraic_simplify_keeps_promotion_broadcast_and_fresh_outputs(parse_only):
    xi = ms.Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    entry = parse_only(lambda x: (x * 1.0, x + ops.zeros((4, 2, 3), ms.int32), x * 1), xi)
    apply(entry.graph, "algebraic_simplify")
    assert prims(entry.graph) == Counter({"Mul": 2, "Add": 1, "MakeTuple": 1})
    out = entry.run([xi])
    assert out[0].dtype == ms.float32 and out[1].shape == (4, 2, 3)
    assert out[2] is not xi                  # `return x * 1` still gives a new tensor
    np.testing.assert_array_equal(out[2].asnumpy(), xi.asnumpy())


def test_algebraic_simplify_composes_transposes_and_reshapes(parse_only):
    x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))

    def fn(x):
        y = ops.transpose(ops.transpose(x, (1, 2, 0)), (2, 0, 1))      # identity overall
        z = ops.transpose(ops.transpose(x, (1, 0, 2)), (0, 2, 1))
        r = ops.reshape(ops.reshape(x, (6, 4)), (4, 6))
        return y + 1, z * 2, r - 1
    entry = parse_only(fn, x)
    assert prims(entry.graph)["Transpose"] == 4
    apply(entry.graph, "algebraic_simplify")
    count = prims(entry.graph)
    assert count["Transpose"] == 1 and count["Reshape"] == 1
    for got, want in zip(entry.run([x]), fn(x)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


@SETTINGS
@given(x=tensors(), y=tensors())
def test_cse_merges_equal_calls(x, y):
    def fn(x, y):
        a = ops.Add()(x, y)
        b = ops.Add()(x, y)                 # another instance, equal attributes
        c = ops.exp(a) * ops.exp(b)
        return c + ops.exp(a)
    try:
        want = fn(x, y)
    except ValueError:
        return                              # shapes that do not broadcast
    entry = _parse_fresh(fn, x, y)
    before = prims(entry.graph)
    assert before["Add"] == 3 and before["Exp"] == 3
    assert apply(entry.graph, "cse")
    after = prims(entry.graph)
    assert after["Add"] == 2 and after["Exp"] == 1          # x+y once, plus the final add
    np.testing.assert_allclose(entry.run([x, y]).asnumpy(), want.asnumpy(), rtol=1e-6)


class _AssignNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="p")

    def construct(self, x):
        a = self.p * 2
        ops.assign(self.p, x)
        b = self.p * 2                      # reads the new value: not the same as `a`
        return a + b


def test_cse_never_merges_across_an_in_place_write(parse_only):
    x = ms.Tensor(np.full(3, 5, np.float32))
    eager = _AssignNet()(x)
    net = _AssignNet()
    entry = parse_only(type(net).construct, net, x)
    apply(entry.graph, "cse")
    assert prims(entry.graph)["Mul"] == 2
    out = entry.run([x])
    np.testing.assert_array_equal(out.asnumpy(), eager.asnumpy())        # 2 + 10


def test_cse_keeps_random_and_print_nodes(parse_only, capsys):
    x = ms.Tensor(np.ones((64,), np.float32))

    def fn(x):
        print(x)
        print(x)
        return ops.dropout(x, p=0.5) + ops.dropout(x, p=0.5)
    entry = parse_only(fn, x)
    before = prims(entry.graph)
    apply(entry.graph, "cse")
    assert prims(entry.graph) == before
    entry.run([x])
    assert capsys.readouterr().out.count("[1. 1.") == 2


def test_dead_node_elimination_keeps_side_effects(parse_only, capsys):
    x = ms.Tensor(np.ones((2,), np.float32))

    def fn(x):
        unused = ops.exp(x) * 3             # noqa: F841
        print(x)
        return x + 1
    entry = parse_only(fn, x)
    raw = [getattr(n.inputs[0].value, "name", "") for n in entry.graph.order]
    assert "Exp" in raw and "Mul" in raw
    assert apply(entry.graph, "dead_node_elimination")
    names = [getattr(n.inputs[0].value, "name", "") for n in entry.graph.order]
    assert names == ["Print", "Add"]
    assert not apply(entry.graph, "dead_node_elimination")
    np.testing.assert_array_equal(entry.run([x]).asnumpy(), [2, 2])
    assert "[1. 1.]" in capsys.readouterr().out


def _hand_graph():
    """f(x) = Switch(True, @t, @f)() * (c1 + c2), where @t = x * 2, @f = x * 3 and c1, c2
    are constant tensors: the parser would have decided all of this itself."""
    g = FuncGraph("hand")
    x = g.add_parameter("x", F32)
    t, f = FuncGraph("t", parent=g), FuncGraph("f", parent=g)
    t.set_output(t.new_cnode([ops.Mul(), x, ValueNode(2.0, 2.0)], F32))
    f.set_output(f.new_cnode([ops.Mul(), x, ValueNode(3.0, 3.0)], F32))
    c1 = ms.Tensor(np.full((2, 3), 1.5, np.float32))
    c2 = ms.Tensor(np.full((2, 3), 2.5, np.float32))
    s = g.new_cnode([ops.Add(), ValueNode(c1, c1._abs), ValueNode(c2, c2._abs)], F32)
    sw = g.new_cnode([SWITCH, ValueNode(True, True), ValueNode(t, FUNC), ValueNode(f, FUNC)],
                     FUNC)
    call = g.new_cnode([sw], F32)
    g.set_output(g.new_cnode([ops.Mul(), call, s], F32))
    lint(g)
    return g


@SETTINGS
@given(x=tensors(st.just((2, 3))))
def test_constant_folding_and_inline_decide_a_constant_switch(x):
    g = _hand_graph()
    want = run_graph(g, [x]).asnumpy()
    np.testing.assert_allclose(want, x.asnumpy() * 2 * 4)
    assert apply(g, "constant_folding")
    assert prims(g) == Counter({"Mul": 2, "call": 1})     # Add, Switch folded; @t's Mul
    assert apply(g, "inline")
    assert prims(g) == Counter({"Mul": 2}) and len(reachable_graphs(g)) == 1
    np.testing.assert_array_equal(run_graph(g, [x]).asnumpy(), want)


def test_inline_leaves_loops_and_tensor_switches(parse_only):
    def fn(n, x):
        while n > 0:
            x = x * 2
            n = n - 1
        if x.sum() > 10:
            x = x - 1
        return x
    n, x = ms.Tensor(3, ms.int32), ms.Tensor(np.ones(2, np.float32))
    entry = parse_only(fn, n, x)
    graphs = len(reachable_graphs(entry.graph))
    assert not apply(entry.graph, "inline")
    assert len(reachable_graphs(entry.graph)) == graphs
    np.testing.assert_array_equal(entry.run([n, x]).asnumpy(), fn(n, x).asnumpy())


def test_inline_copies_a_plain_graph_call():
    g = FuncGraph("outer")
    x = g.add_parameter("x", F32)
    sub = FuncGraph("sub")
    a = sub.add_parameter("a", F32)
    sub.set_output(sub.new_cnode([ops.Exp(), sub.new_cnode([ops.Neg(), a], F32)], F32))
    first = g.new_cnode([ValueNode(sub, FUNC), x], F32)
    g.set_output(g.new_cnode([ValueNode(sub, FUNC), first], F32))
    xv = ms.Tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    want = run_graph(g, [xv]).asnumpy()
    assert apply(g, "inline")
    assert prims(g) == Counter({"Neg": 2, "Exp": 2}) and reachable_graphs(g) == [g]
    np.testing.assert_array_equal(run_graph(g, [xv]).asnumpy(), want)


def _program(prog, x, y):
    """Runs a generated straight-line program: each step applies one op to two earlier
    values (identities, repeats and transposes included, so every pass has work)."""
    vals = [x, y]
    for op, i, j in prog:
        a, b = vals[i % len(vals)], vals[j % len(vals)]
        if op == 0:
            r = a * 1 + b * 1
        elif op == 1:
            r = a + b
        elif op == 2:
            r = ops.neg(ops.neg(a)) - 0
        elif op == 3:
            r = ops.transpose(ops.transpose(a, (1, 0)), (1, 0)) / 1
        elif op == 4:
            r = ops.tanh(a) * b
        elif op == 5:
            r = ops.reshape(ops.reshape(a, (-1,)), a.shape) + 0
        else:
            r = ops.cast(a, ms.float32) - b
        vals.append(r)
    return vals[-1], vals[-2] + 1


@settings(max_examples=25, deadline=None)
@given(prog=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 9), st.integers(0, 9)),
                     min_size=1, max_size=8).map(tuple),
       x=tensors(st.just((2, 3))), y=tensors(st.just((2, 3))))
def test_the_whole_pipeline_keeps_results_and_lint(prog, x, y):
    want = _program(prog, x, y)
    entry = _parse_fresh(_program, prog, x, y)
    unoptimized = sum(len(g.order) for g in reachable_graphs(entry.graph))
    report = pipeline.run_pipeline(entry.graph, check=True)     # lint after every stage
    assert [name for name, _ in report] == pipeline.stage_names()
    assert sum(len(g.order) for g in reachable_graphs(entry.graph)) <= unoptimized
    for got, w in zip(entry.run([x, y]), want):
        np.testing.assert_allclose(got.asnumpy(), w.asnumpy(), rtol=1e-6, atol=1e-6)


def test_printed_ir_before_and_after(parse_only):
    from mindlite.ir import dump_ir
    x = ms.Tensor(np.ones(3, np.float32))

    def fn(x, y):
        a = x * 1
        return (a + y) * (x + y)
    entry = parse_only(fn, x, x)
    before = dump_ir(entry.graph)
    assert "PrimFunc_Mul(%para1_x, I64(1))" in before
    assert before.count("= PrimFunc_Add(") == 2
    apply(entry.graph, "algebraic_simplify")
    apply(entry.graph, "cse")
    apply(entry.graph, "dead_node_elimination")
    after = dump_ir(entry.graph)
    assert "I64(1)" not in after and after.count("= PrimFunc_Add(%para1_x, %para2_y)") == 1
    assert re.search(r"PrimFunc_Mul\(%0, %0\)", after)
    assert "# In file " in after                        # source lines kept
    assert after.count("#   ") == 3                     # Order: Add, Mul, Return


def test_a_fold_that_raises_is_left_for_run_time():
    g = FuncGraph("bad")
    x = g.add_parameter("x", F32)
    a = ms.Tensor(np.ones((2, 3), np.float32))
    bad = g.new_cnode([ops.MatMul(), ValueNode(a, a._abs), ValueNode(a, a._abs)], F32)
    g.set_output(g.new_cnode([ops.Add(), x, bad], F32))
    assert not apply(g, "constant_folding")
    with pytest.raises(ValueError, match="MatMul"):
        run_graph(g, [a])
