"""The pass pipeline and the user pass API (MindSpore Lite's REG_PASS / REG_SCHEDULED_PASS):
stage order, positions and their Lite aliases, a registered pass changing the next compile
(and already compiled graphs recompiling), errors, a pass that breaks the IR named in the
error, and the AddN -> Custom_AddN example pass."""
import os
import runpy

import numpy as np
import pytest

import mindlite as ms
from mindlite import ops
from mindlite.ir import LintError, ValueNode
from mindlite.jit import passes
from mindlite.jit.passes import (PassBase, PassPosition, register_pass,
                                 register_scheduled_passes, registered_passes, unregister_pass)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def clean_registry():
    yield
    for pos in ("before_fusion", "after_fusion"):
        register_scheduled_passes(pos, [])
    for name in list(registered_passes()):
        unregister_pass(name)


def _names(graph):
    return [getattr(n.inputs[0].value, "name", "") for n in graph.order]


class ExpToSigmoid(PassBase):
    """Exp(x) -> Sigmoid(x) (same dtype and shape): a change the result shows."""
    changed = 0

    def run(self, graph, manager):
        for g in manager.graphs():
            for node in g.order:
                if _names_of(node) == "Exp":
                    node.inputs[0] = ValueNode(ops.Sigmoid())
                    ExpToSigmoid.changed += 1
        return bool(ExpToSigmoid.changed)


def _names_of(node):
    return getattr(node.inputs[0].value, "name", "")


def test_pipeline_order_and_positions():
    register_pass("mine", lambda g, m: False)
    register_scheduled_passes(PassPosition.POSITION_END, ["mine", "cse"])
    register_scheduled_passes("POSITION_BEGIN", ["mine"])
    names = passes.stage_names()
    first = ["inline", "constant_folding", "algebraic_simplify", "cse", "dead_node_elimination"]
    assert names[:5] == first and names[-1] == "dead_node_elimination_final"
    i, j = names.index("mine"), len(names) - 1 - names[::-1].index("mine")
    assert i == 5 and names[j + 1] == "cse" and j > i
    assert passes.scheduled_passes("after_fusion") == ["mine", "cse"]


def test_registered_pass_changes_the_next_compile_and_recompiles():
    x = ms.Tensor(np.array([0.5, -1.0], np.float32))

    @ms.jit
    def f(x):
        return ops.exp(x) + 1
    np.testing.assert_allclose(f(x).asnumpy(), np.exp(x.asnumpy()) + 1, rtol=1e-6)
    register_pass("exp_to_sigmoid", ExpToSigmoid())
    register_scheduled_passes("before_fusion", ["exp_to_sigmoid"])
    sig = 1 / (1 + np.exp(-x.asnumpy())) + 1
    np.testing.assert_allclose(f(x).asnumpy(), sig, rtol=1e-6)         # recompiled
    assert ExpToSigmoid.changed == 1
    register_scheduled_passes("before_fusion", [])
    np.testing.assert_allclose(f(x).asnumpy(), np.exp(x.asnumpy()) + 1, rtol=1e-6)


def test_a_plain_function_pass_and_override():
    calls = []
    register_pass("count", lambda g, m: calls.append(g) or False)
    register_scheduled_passes("after_fusion", ["count"])
    ms.jit(lambda x: x * 3)(ms.Tensor([1.0]))
    assert len(calls) == 1
    fn = registered_passes()["count"]
    register_pass("count", fn)                                  # the same object again: no-op
    with pytest.raises(ValueError, match="already registered"):
        register_pass("count", lambda g, m: False)
    register_pass("count", lambda g, m: False, override=True)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: register_pass("cse", lambda g, m: False), ValueError, "built-in"),
    (lambda: register_pass("bad name", lambda g, m: False), TypeError, "identifier"),
    (lambda: register_pass("p", 42), TypeError, "callable"),
    (lambda: register_pass("p", PassBase), TypeError, "callable"),
    (lambda: register_scheduled_passes("middle", []), ValueError, "before_fusion"),
    (lambda: register_scheduled_passes(7, []), ValueError, "POSITION_BEGIN"),
    (lambda: register_scheduled_passes(True, []), ValueError, "POSITION_BEGIN"),
    (lambda: register_scheduled_passes([0], []), ValueError, "POSITION_BEGIN"),
    (lambda: register_scheduled_passes("after_fusion", ["nope"]), ValueError, "unknown"),
    (lambda: register_scheduled_passes("after_fusion", "cse"), TypeError, "list"),
    (lambda: unregister_pass("nope"), ValueError, "no user pass"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_a_pass_that_breaks_the_ir_or_raises_is_named():
    def breaks(graph, manager):
        graph.order.reverse()                   # users before their inputs
        return True

    def raises(graph, manager):
        raise KeyError("boom")
    register_pass("breaks", breaks)
    register_scheduled_passes("before_fusion", ["breaks"])
    f = ms.jit(lambda x: ops.exp(x) * 2)
    with pytest.raises(LintError, match="after the pass 'breaks'"):
        f(ms.Tensor([1.0]))
    assert not f.cache                          # nothing half-built is cached
    register_pass("raises", raises)
    register_scheduled_passes("before_fusion", ["raises"])
    with pytest.raises(RuntimeError, match="user pass 'raises' failed: KeyError"):
        f(ms.Tensor([1.0]))
    register_scheduled_passes("before_fusion", [])
    assert f(ms.Tensor([1.0])).asnumpy()[0] == pytest.approx(2 * np.e)


def test_custom_with_dict_attrs_constructs_twice():
    """ops.Custom(attrs={...}) without a func: the prototype cache used to hash the dict."""
    a = ops.Custom(None, type="T1", attrs={"k": 1})
    b = ops.Custom(None, type="T1", attrs={"k": 1})
    assert a.custom_attrs == b.custom_attrs == {"k": b"1"}


def test_addn_to_custom_example_pass(capsys):
    example = runpy.run_path(os.path.join(ROOT, "examples", "custom_pass_addn.py"))
    seen = example["main"]()
    assert capsys.readouterr().out.count("[ok]") == 4
    graph = seen["graph"]
    customs = [n for n in graph.order if _names_of(n) == "Custom"]
    assert len(customs) == 1 and "AddN" not in _names(graph)
    prim = customs[0].inputs[0].value
    assert prim.custom_type == "Custom_AddN"
    assert prim.custom_attrs == {"input_num": b"3", "op_kind": b"custom op"}
    np.testing.assert_array_equal(seen["out"].asnumpy(), seen["want"].asnumpy())
    assert "PassTutorial" not in registered_passes()            # the example cleaned up


def test_lite_style_registry_module():
    from mindlite import registry
    assert registry.register_pass is register_pass
    assert registry.PassPosition.POSITION_BEGIN == 0 and registry.PassPosition.POSITION_END == 1
    assert registry.register_kernel is ms.register_kernel


def test_addn_example_runs_as_a_script():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "custom_pass_addn.py")],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("[ok]") == 4 and "# IR entry: @" in out.stdout
