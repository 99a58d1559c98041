"""Side effects in graph mode run as eager runs them: once, in program order, under `if`,
`while` and `for` on tensors, in closures and called Cells, also when the branch or loop
changes no variable (a call of a graph that has an effect is itself an effect:
jit/parse/control.has_effects); no pass moves a read of a Parameter past a write; tensor
item assignment (jit/parse/setitem.py) writes Parameters in place and rebinds locals.
Each program runs eagerly and under jit on fresh Parameters: same results, same Parameter
values, same printed text."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops
from mindlite.jit import UnsupportedSyntaxError

F32 = ms.float32


def _p(value=0.0, name="p"):
    return Parameter(Tensor(np.asarray(value, np.float32)), name=name)


def _x(*values):
    return Tensor(np.array(values, np.float32))


def _run(make, inputs, capsys):
    """(results, parameter values, printed text) of make()'s program over `inputs`, eagerly
    and under jit (each on its own fresh Parameters); asserts they agree."""
    seen = []
    for compiled in (False, True):
        fn, params = make()
        run = ms.jit(fn) if compiled else fn
        outs = []
        for x in inputs:
            r = run(x)
            r = r if isinstance(r, tuple) else (r,)
            outs.append([t.asnumpy().copy() for t in r])
            outs.append([p.asnumpy().copy() for p in params])
        seen.append((outs, capsys.readouterr().out))
    (eager, eager_text), (graph, graph_text) = seen
    for a, b in zip(eager, graph):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)
    assert eager_text == graph_text
    return eager, eager_text


POS, NEG = _x(1.0, 2.0, 0.5), _x(-1.0, -2.0, 0.5)


def test_effects_in_an_if_that_changes_no_variable_run(capsys):
    def make():                                   # the reproducer
        p = _p(1.0)

        def f(x):
            if x.sum() > 0:
                ops.assign_add(p, Tensor(8.0, F32))
                print("positive", x)
            return p + x
        return f, [p]
    outs, text = _run(make, [POS, NEG, POS], capsys)
    assert outs[-1][0] == 17.0 and text.count("positive") == 2

    def make_assign():
        p = _p(1.0)

        def f(x):
            if x.sum() > 0:
                ops.assign(p, Tensor(8.0, F32))
            else:
                ops.assign(p, Tensor(3.0, F32))
            return p * x
        return f, [p]
    _run(make_assign, [POS, NEG], capsys)


def test_effects_in_loops_closures_cells_and_nested_ifs(capsys):
    def make_while():
        p = _p()

        def f(x):
            i = x.sum() * 0
            while i < 3:
                ops.assign_add(p, x.sum())
                i = i + 1
            return p * 1
        return f, [p]

    def make_while_on_parameter():                # no variable carried: only the state
        p = _p()

        def f(x):
            while p < 5:
                ops.assign_add(p, Tensor(1.0, F32))
            return p + x
        return f, [p]

    def make_for_if():
        p = _p()

        def f(x):
            for k in range(3):
                if x.sum() > k:
                    ops.assign_add(p, Tensor(1.0, F32))
                    print("k", k)
            return p + x
        return f, [p]

    def make_closure():
        p = _p()

        def f(x):
            def bump(v):
                ops.assign_add(p, v)
            if x.sum() > 0:
                bump(x.sum())
            return p + x
        return f, [p]

    def make_cell():
        class Acc(nn.Cell):
            def __init__(self):
                super().__init__()
                self.t = _p(name="t")

            def construct(self, v):
                ops.assign_add(self.t, v)
                return v
        acc = Acc()

        def f(x):
            if x.sum() > 0:
                acc(x.sum())
            return acc.t + x
        return f, [acc.t]

    def make_nested():
        p, q = _p(name="p"), _p(name="q")

        def f(x):
            if x.sum() > 0:
                if x.sum() > 2:
                    ops.assign_add(p, Tensor(5.0, F32))
                ops.assign(q, p * 2)
                print("outer")
            else:
                while q > 1:
                    ops.assign(q, q - 1)
            return p + x
        return f, [p, q]

    for make in (make_while, make_while_on_parameter, make_for_if, make_closure, make_cell,
                 make_nested):
        _run(make, [POS, NEG, POS], capsys)


def test_reads_of_a_parameter_stay_before_a_later_write(capsys):
    def make():
        p = _p([0.0, 0.0, 0.0])

        def f(x):
            a = p * 1                       # no pass may turn this into a later read of p
            b = p.reshape((3,))
            c = p + 0
            ops.assign_add(p, x)
            d = p * 2
            if x.sum() > 0:
                ops.assign_add(p, x)
            return a * 2, b * 2, c, d, p * 2
        return f, [p]
    _run(make, [POS, NEG, POS], capsys)


def test_item_assignment_writes_parameters_and_rebinds_locals(capsys):
    def make():
        p = _p([0.0, 0.0, 0.0])

        def f(x):
            y = x * 1
            if x.sum() > 0:
                p[0] = 7.0
                y[1:] = x[:2]
            y[0] += 1
            p[1:] = y[1:] * 2
            i = x.sum() * 0
            while i < 2:
                y[2] = y[2] + 1
                i = i + 1
            return y, p + 1
        return f, [p]
    _run(make, [POS, NEG, POS], capsys)


def test_item_assignment_that_eager_would_share_is_refused_naming_it():
    def alias(x):
        y = x * 1
        z = y
        y[0] = 7.0
        return z

    def argument(x):
        x[0] = 7.0
        return x

    def listed(x):
        y = x * 1
        keep = [y]
        y[1] = 5.0
        return keep[0]

    def branch_alias(x):                 # eager's `x if c else x` is x itself
        y = x if x.sum() > 0 else x * 2
        y[0] = 7.0
        return y

    def branch_alias_local(x):
        y = x * 1
        z = y if x.sum() > 0 else y * 3
        z[0] = 7.0
        return y, z

    for fn, what in ((alias, "the variable 'z'"), (argument, "the argument 'x'"),
                     (listed, "the container 'keep'"),
                     (branch_alias, "'y', which may be the argument 'x'"),
                     (branch_alias_local, "'z', which may be the Tensor the variable 'y'")):
        with pytest.raises(UnsupportedSyntaxError, match=what):
            ms.jit(fn)(_x(1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match="tensor_setitem"):
        ms.jit(lambda x: _setitem(x * 1, _x(1.0, 2.0)))(_x(1.0, 2.0, 3.0))


def _setitem(y, v):
    y[0] = v
    return y


_MS = "/opt/msvenv/bin/python"


@pytest.mark.skipif(not os.path.exists(_MS), reason="MindSpore side venv not installed")
def test_the_reproducer_matches_mindspore_graph_mode(tmp_path):
    program = textwrap.dedent("""
        import numpy as np
        import {mod} as ms
        from {mod} import ops, Tensor, Parameter
        {setup}
        p = Parameter(Tensor(1.0, ms.float32), name="p")
        @ms.jit
        def f(x):
            if x.sum() > 0:
                ops.assign_add(p, Tensor(8.0, ms.float32))
            while p < 20:
                ops.assign_add(p, Tensor(5.0, ms.float32))
            return p + x
        for v in (1.0, -1.0, 1.0):
            print(f(Tensor(np.array([v, 2.0], np.float32))).asnumpy().tolist(), float(p.asnumpy()))
        """)
    outs = []
    for python, mod, setup in ((_MS, "mindspore", "ms.set_context(mode=ms.GRAPH_MODE)"),
                               (sys.executable, "mindlite", "")):
        env = dict(os.environ, GLOG_v="3")
        if python == _MS:
            env.pop("PYTHONPATH", None)
        script = tmp_path / f"{mod}_program.py"       # MindSpore parses source files only
        script.write_text(program.format(mod=mod, setup=setup))
        r = subprocess.run([python, str(script)], env=env, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        outs.append(r.stdout)
    assert outs[0] == outs[1]
