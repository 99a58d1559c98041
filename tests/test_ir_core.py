"""mindlite.ir: nodes, FuncGraph, the manager (users, replace, DCE, toposort), lint, and
the `.ir` text of the issue's seed example checked line by line against MindSpore's layout."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import ops
from mindlite.abstract import abstract_tensor
from mindlite.ir import (CNode, FuncGraph, FuncGraphManager, LintError, ParameterNode,
                         ValueNode, dump_ir, lint, reachable_graphs, toposort)

F32 = abstract_tensor(ms.float32, (2,))


def _graph():
    """f(x, y) = (x - y) * x, with a dead Neg node."""
    g = FuncGraph("f")
    x = g.add_parameter("x", F32)
    y = g.add_parameter("y", F32)
    sub = g.new_cnode([ops.Sub(), x, y], F32, name="a")
    g.new_cnode([ops.Neg(), x], F32)
    mul = g.new_cnode([ops.Mul(), sub, x], F32)
    g.set_output(mul)
    return g, x, y, sub, mul


def test_nodes_and_callee():
    g, x, y, sub, mul = _graph()
    assert isinstance(sub.callee, ValueNode) and sub.callee.value.name == "Sub"
    assert sub.args == [x, y] and sub.graph is g and isinstance(x, ParameterNode)
    assert [n.graph for n in g.order] == [g] * 3
    lint(g)


def test_manager_users_replace_dce_toposort():
    g, x, y, sub, mul = _graph()
    m = FuncGraphManager(g)
    assert sorted(i for _, i in m.users[x]) == [1, 1, 2]
    assert m.users[sub] == [(mul, 1)]
    assert toposort(g) == [sub, mul]                  # the dead Neg is not needed
    assert m.dce() and len(g.order) == 2 and not m.dce()
    m.replace(sub, y)                                 # (x - y) * x  ->  y * x
    assert mul.inputs[1] is y and sub not in m.users and (mul, 1) in m.users[y]
    m.dce()
    assert g.order == [mul]
    lint(g)


def test_lint_catches_broken_graphs():
    g, x, y, sub, mul = _graph()
    g.order.remove(sub)
    g.order.append(sub)                               # used before it is computed
    with pytest.raises(LintError, match="before it is computed"):
        lint(g)
    g2, x2, *_ = _graph()
    other = FuncGraph("other")
    stray = other.add_parameter("z", F32)
    g2.order[0].inputs[2] = stray                     # a parameter of an unrelated graph
    with pytest.raises(LintError, match="unrelated graph"):
        lint(g2)
    g3, *_ = _graph()
    g3.order[1].abstract = None
    with pytest.raises(LintError, match="no abstract"):
        lint(g3)


def test_nested_graph_free_variables_and_reachability():
    g, x, y, sub, mul = _graph()
    child = FuncGraph("child", parent=g)
    c = child.new_cnode([ops.Add(), sub, y], F32)     # sub and y are free variables
    child.set_output(c)
    g.new_cnode([child], F32)
    assert child.free_variables == [sub, y]
    assert reachable_graphs(g) == [g, child]
    lint(g)
    outsider = FuncGraph("outsider")
    o = outsider.new_cnode([ops.Add(), sub, sub], F32)   # sub's graph does not enclose it
    outsider.set_output(o)
    with pytest.raises(LintError, match="does not enclose"):
        lint(outsider)


def seed_test_f(x, y):
    a = x - 1
    b = a + y
    return b


def test_seed_ir_layout_line_by_line():
    """The issue's seed example: `.ir` text in MindSpore's layout, structure line by line
    (checked against MindSpore 2.10's own dump of the same function: header, params with
    their shapes, node counts, source spans `file:line, col~col`, `# Order:` entries)."""
    f = ms.jit(seed_test_f)
    x = ms.Tensor([7], ms.float32)
    y = ms.Tensor([77], ms.float32)
    assert f(x, y).asnumpy().tolist() == [83.0]
    text = dump_ir(f.graph(x, y))
    lines = text.splitlines()
    here = re.escape(__file__)
    line_of = {s: i + 1 for i, s in enumerate(open(__file__).read().splitlines())}
    d = line_of["def seed_test_f(x, y):"]
    expected = [
        r"# IR entry: @(?P<g>\d+_\w*test_ir_core_seed_test_f)",
        r"# Total subgraphs: 1",
        r"",
        r"# Total params: 2",
        r"# Params:",
        r"%para1_x: <Tensor\[Float32\], \(1\)> : \[1\]",
        r"%para2_y: <Tensor\[Float32\], \(1\)> : \[1\]",
        r"",
        r"Node counting information:",
        r"Total number of nodes: 8",
        r"Total number of cnodes: 3",
        r"",
        r"subgraph attr:",
        r"subgraph instance: (?P=g) : 0x[0-9a-f]+",
        rf"# In file {here}:{d}~{d + 3}/def seed_test_f\(x, y\):/",
        r"subgraph @(?P=g)\(\) \{",
        r"  %0\(a\) = PrimFunc_Sub\(%para1_x, I64\(1\)\)",
        r"      : \(<Tensor\[Float32\], \(1\)>, <Int64, NoShape>\) -> "
        r"\(<Tensor\[Float32\], \(1\)>\)",
        rf"      # In file {here}:{d + 1}, 8~13/    a = x - 1/",
        r"      # In file .*tensor\.py:\d+, \d+~\d+/    def __sub__\(self, other\): .*/",
        r"      # In file .*math_func\.py:\d+, 11~29/    return _sub\(input, other\)/",
        r"  %1\(b\) = PrimFunc_Add\(%0, %para2_y\)",
        r"      : \(<Tensor\[Float32\], \(1\)>, <Tensor\[Float32\], \(1\)>\) -> "
        r"\(<Tensor\[Float32\], \(1\)>\)",
        rf"      # In file {here}:{d + 2}, 8~13/    b = a \+ y/",
        r"      # In file .*tensor\.py:\d+, \d+~\d+/    def __add__\(self, other\): .*/",
        r"      # In file .*math_func\.py:\d+, 11~29/    return _add\(input, other\)/",
        r"  Return\(%1\)",
        r"      : \(<Tensor\[Float32\], \(1\)>\)",
        rf"      # In file {here}:{d + 3}, 4~12/    return b/",
        r"\}",
        r"# Order:",
        r"#   1: @(?P=g):a\{\[0\]: ValueNode<Primitive> PrimFunc_Sub, \[1\]: param_x, "
        r"\[2\]: ValueNode<Int64Imm> 1\}",
        r"#   2: @(?P=g):b\{\[0\]: ValueNode<Primitive> PrimFunc_Add, \[1\]: a, "
        r"\[2\]: param_y\}",
        r"#   3: @(?P=g):Return\{\[0\]: ValueNode<Primitive> Return, \[1\]: b\}",
    ]
    assert len(lines) == len(expected), text
    assert re.fullmatch("\n".join(expected), "\n".join(lines)), text


def test_dump_of_switch_graphs_lists_every_subgraph():
    @ms.jit
    def f(x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
        return y
    x = ms.Tensor(np.ones(3, np.float32))
    g = f.graph(x)
    text = dump_ir(g)
    assert "# Total subgraphs: 3" in text
    assert re.search(r"= Switch\(%\d+, @\d+_if_true_\w+, @\d+_if_false_\w+\)", text)
    assert re.search(r"= %\d+\(\)\n", text)
    assert len(re.findall(r"^subgraph @", text, re.M)) == 3
    assert re.search(r"# Parameters: 0, \(\)", text)
    assert {n.graph.name for gr in reachable_graphs(g) for n in gr.order} == \
        {gr.name for gr in reachable_graphs(g)}
    lint(g)
    assert isinstance(g.order[-1], CNode)


def test_dot_text_colours_clusters_and_callee_edges(monkeypatch):
    from mindlite.ir import dot

    @ms.jit
    def f(x):
        if x.sum() > 0:
            x = x * 2
        return x + 1
    g = f.graph(ms.Tensor(np.ones(2, np.float32)))
    text = dot.to_dot(g)
    assert text.startswith(f'digraph "{g.name}" {{') and text.rstrip().endswith("}")
    assert text.count("subgraph \"cluster_") == len(reachable_graphs(g)) == 3
    for colour in dot.COLORS.values():
        assert f'fillcolor="{colour}"' in text
    assert re.search(r'v\d+ \[shape=plaintext.*label="PrimFunc_Add"\];\n    v\d+ -> n\d+ '
                     r'\[style=dashed\];', text)              # input 0: the callee, dashed
    assert re.search(r"-> ret\d+ \[color=blue, lhead=\"cluster_\d+\"\]", text)
    assert text.count("{") == text.count("}")
    monkeypatch.setattr(dot.shutil, "which", lambda name: None)
    assert g._repr_svg_() is None                             # no Graphviz: no SVG


@given(st.data())
@settings(max_examples=25)
def test_random_graphs_run_dce_and_lint(data):
    """Random DAGs of elementwise primitives built by hand: the executor gives eager's
    values; DCE keeps exactly what the output needs; toposort and lint agree."""
    from mindlite.jit.executor import run_graph
    prims = [ops.Add(), ops.Sub(), ops.Mul(), ops.Maximum(), ops.Neg()]
    g = FuncGraph("random")
    values = []
    nodes = []
    for i in range(2):
        arr = data.draw(st.lists(st.floats(-4, 4, width=32), min_size=3, max_size=3))
        values.append(ms.Tensor(np.array(arr, np.float32)))
        nodes.append(g.add_parameter(f"p{i}", values[-1]._abs))
    for _ in range(data.draw(st.integers(1, 12))):
        prim = data.draw(st.sampled_from(prims))
        k = 1 if prim.name == "Neg" else 2
        picks = [data.draw(st.integers(0, len(nodes) - 1)) for _ in range(k)]
        values.append(prim(*[values[p] for p in picks]))
        nodes.append(g.new_cnode([prim] + [nodes[p] for p in picks], values[-1]._abs))
    out = data.draw(st.integers(2, len(nodes) - 1))
    g.set_output(nodes[out])
    lint(g)
    got = run_graph(g, values[:2])
    np.testing.assert_array_equal(got.asnumpy(), values[out].asnumpy())
    needed = {n.id for n in toposort(g)}
    kept = [n for n in g.order if n.id in needed]
    FuncGraphManager(g).dce()
    assert g.order == kept                        # DCE keeps exactly the needed nodes, in order
    lint(g)
    np.testing.assert_array_equal(run_graph(g, values[:2]).asnumpy(), values[out].asnumpy())
