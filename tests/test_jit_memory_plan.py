"""The buffer planner (mindlite/jit/memory_plan.py): over generated graphs, no buffer is ever
written while a value in it is still live (checked by replaying the plan step by step, apart
from the planner's own check), graph outputs and inputs are never reused, in-place reuse
happens where allowed, and the planned run equals the interpreter bit for bit."""
import importlib.util
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import abstract as ab
from mindlite.jit import kernel_graph as kgm
from mindlite.jit.memory_plan import check_plan, flat_refs, plan


def replay(kg, p):
    """Walk the steps: every value read (or any view of it) must still be the one its slot
    holds; every output root must still be there at the end."""
    holds = {}
    for s, step in enumerate(kg.steps):
        for v in flat_refs(step.ins):
            for r in kg.roots(v):
                assert holds.get(p.slot_of[r]) == r, f"step {s} reads %{r}, overwritten"
        for o in step.outs:
            if kg.values[o].kind == kgm.PLANNED:
                holds[p.slot_of[o]] = o
    for r in kg.roots(kg.output):
        assert holds.get(p.slot_of[r]) == r, f"output %{r} overwritten"
        assert p.slot_of[r] in p.escaping


# ---- the planner alone, on random KernelGraphs of mixed sizes --------------------------------
def _random_kernel_graph(rng, n):
    kg = kgm.KernelGraph("random")
    live = [kg.new_value(kgm.PARAM, ab.abstract_tensor(ms.float32, (4,)))]
    kg.args.append(live[0])
    for _ in range(n):
        ins = tuple(rng.sample(live, k=min(len(live), rng.randint(1, 2))))
        kind = rng.choice([kgm.KERNEL, kgm.KERNEL, kgm.KERNEL, kgm.ALLOC])
        a = ab.abstract_tensor(ms.float32, (rng.choice([1, 2, 4, 8, 16]),))
        if kind == kgm.ALLOC:
            out = kg.new_value(kgm.EXTERNAL, a, aliases=kg.roots(ins))
            kg.steps.append(kgm.KernelStep(kind, None, ins, (out,), None))
        else:
            out = kg.new_value(kgm.PLANNED, a)
            same = tuple(i for i in ins if kg.values[i].kind == kgm.PLANNED
                         and kg.values[i].abstract.shape == a.shape)
            kg.steps.append(kgm.KernelStep(kind, None, ins, (out,), None,
                                           inplace=same if rng.random() < 0.7 else ()))
        live.append(out)
    kg.output = tuple(rng.sample(live[1:], k=min(n, rng.randint(1, 3))))
    return kg


@settings(deadline=None, max_examples=200)
@given(st.integers(0, 2 ** 31), st.integers(1, 40))
def test_random_plans_never_overwrite_a_live_buffer(seed, n):
    kg = _random_kernel_graph(random.Random(seed), n)
    p = plan(kg)
    check_plan(kg, p)
    replay(kg, p)
    planned = [v.index for v in kg.values if v.kind == kgm.PLANNED]
    assert sorted(p.slot_of) == planned                     # inputs never get a slot
    for _, c, v in p.inplace:
        assert p.slot_of[c] == p.slot_of[v]


def test_check_plan_catches_an_overlap():
    kg = kgm.KernelGraph("chain")
    x = kg.new_value(kgm.PARAM, ab.abstract_tensor(ms.float32, (4,)))
    a = kg.new_value(kgm.PLANNED, ab.abstract_tensor(ms.float32, (4,)))
    b = kg.new_value(kgm.PLANNED, ab.abstract_tensor(ms.float32, (4,)))
    c = kg.new_value(kgm.PLANNED, ab.abstract_tensor(ms.float32, (4,)))
    kg.args = [x]
    kg.steps = [kgm.KernelStep(kgm.KERNEL, None, (x,), (a,), None),
                kgm.KernelStep(kgm.KERNEL, None, (a,), (b,), None),
                kgm.KernelStep(kgm.KERNEL, None, (a, b), (c,), None)]
    kg.output = c
    p = plan(kg)
    check_plan(kg, p)
    assert p.slot_of[a] != p.slot_of[b]
    p.slot_of[b] = p.slot_of[a]
    p.members[p.slot_of[a]].append(b)
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(kg, p)


def test_an_mlp_ping_pongs_between_two_buffers_and_works_in_place():
    net = ms.nn.SequentialCell([ms.nn.Dense(8, 8, activation="relu") for _ in range(6)])
    x = ms.Tensor(np.ones((4, 8), np.float32))

    @ms.jit
    def f(x):
        return net(x)
    f(x)
    prog = f.compiled((x,), {})._program
    assert prog.runner is not None, prog.reason
    p = prog.plan
    assert p.slot_bytes == [4 * 8 * 4] * 2              # whatever the depth
    names = [s.prim.name for s in prog.kg.steps]
    if "BiasAdd" in names:                               # not fused: BiasAdd, ReLU in place
        assert len(p.inplace) == names.count("BiasAdd") + names.count("ReLU")


# ---- end to end: generated straight-line functions, planned run vs interpreter --------------
_OPS = {
    "add": "{a} + {b}", "sub": "{a} - {b}", "mul": "{a} * {b}", "neg": "-{a}",
    "relu": "ops.relu({a})", "tanh": "ops.tanh({a})", "affine": "{a} * 0.5 + 1.0",
    "matmul": "ops.matmul({a}, w)", "view": "ops.reshape(ops.reshape({a}, (8, 4)), (4, 8))",
    "sum": "{a} + ops.sum({b}, 0)",
}


def _random_function(tmp_path, seed):
    rng = random.Random(seed)
    names, lines = ["x0", "x1"], []
    for i in range(rng.randint(2, 14)):
        a, b = rng.choice(names), rng.choice(names)
        lines.append(f"    v{i} = " + _OPS[rng.choice(sorted(_OPS))].format(a=a, b=b))
        names.append(f"v{i}")
    outs = rng.sample(names[2:], k=min(len(names) - 2, rng.randint(1, 3)))
    src = ("from mindlite import ops\n\n\ndef f(x0, x1, w):\n" + "\n".join(lines)
           + f"\n    return {', '.join(outs)},\n")
    path = tmp_path / f"gen_{seed}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"gen_{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f, src


def _inputs(rng):
    return [ms.Tensor(rng.normal(size=s).astype(np.float32)) for s in ((4, 8), (4, 8), (8, 8))]


@pytest.mark.parametrize("seed", range(24))
def test_generated_graphs_planned_equal_the_interpreter(tmp_path, monkeypatch, seed):
    fn, src = _random_function(tmp_path, seed)
    f = ms.jit(fn)
    rng = np.random.default_rng(seed)
    first, second = _inputs(rng), _inputs(rng)
    got1 = [t.asnumpy().copy() for t in f(*first)]
    prog = f.compiled(tuple(first), {})._program
    assert prog.runner is not None, prog.reason
    check_plan(prog.kg, prog.plan)
    replay(prog.kg, prog.plan)
    kept = f(*first)
    got2 = [t.asnumpy().copy() for t in f(*second)]
    monkeypatch.setattr(kgm, "ENABLED", False)
    want1 = [t.asnumpy() for t in f(*first)]
    want2 = [t.asnumpy() for t in f(*second)]
    for g, w in zip(got1 + got2, want1 + want2):
        np.testing.assert_array_equal(g, w, err_msg=src)
    for k, w in zip(kept, want1):                 # a later run never wrote into a result
        np.testing.assert_array_equal(k.asnumpy(), w, err_msg=src)


def test_pooled_arenas_hold_no_copy_of_the_outputs():
    net = ms.nn.SequentialCell([ms.nn.Dense(8, 8, activation="relu") for _ in range(3)])
    x = ms.Tensor(np.ones((4, 8), np.float32))

    @ms.jit
    def f(x):
        return net(x)
    outs = [f(x) for _ in range(3)]
    prog = f.compiled((x,), {})._program
    assert len(prog.pool) == 1
    assert prog.held_bytes() == 4 * 8 * 4               # one slot: the other was handed off
    assert len({id(o.asnumpy().base) for o in outs}) == 3
