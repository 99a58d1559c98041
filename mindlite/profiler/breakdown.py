"""Per-stage latency breakdown of one primitive call, each stage timed by running its real code.

    profile_call(prim, *args, repeat=15, grad=False) -> {stage: µs}
    format_breakdown(d) -> printable table

Stages are named "<phase>/<stage>", in the order a call runs them; a sub-stage of a stage
is "<phase>/<stage>/<part>" and is not counted again in the phase's sum. Phase "first" is a
signature's first call through the pipeline: C key + runner miss (Primitive.__call__), the
Python dispatch's key + miss, check_elim + parameter init (ir/primitive.py), executor
entry (_run_op -> real_run_op -> run_op's call), run info
(OpRunInfo: signature key, arity), cast inputs, CNode, input abstracts, inference
(uncached), compile op (the KernelGraph: kernel selection, kernel params, bind, the graph and
its cache entry), kernel inputs, run kernel graph (output allocation, launch), runner build,
runner install, Tensor wrap, plus
"grad record" when `grad` (pynative/forward.py, backend/cpu_session.py, pynative/runner.py).
Phase "cached" is the runner of a repeated call: key + runner lookup (C, as
`Primitive.__call__`; the Python signature key when C cannot key the call), input read
(Python runners only; a `_C.FastRunner` reads the Tensors in C), output allocation (runtime
allocator; not for kernels that allocate), kernel launch, Tensor wrap and grad record (when
`grad`) -- a FastRunner's timed in C by FastRunner.stage_times.
"first/total" and "cached/total" are the measured whole calls (the first call with this
signature's runner, inference and graph cache entries dropped before each call, outside the
timed region: the first call and the stages that need a cache entry absent are timed one call
at a time, single_us; with `grad` the tape is emptied between batches, as for the stages).
"frame/run_op" and "frame/get_output" time the first call's inner frames whole, the same way.
format_breakdown prints what the stages leave of the measured call as "Python glue
(unattributed)" -- the frames' own code and the calls between stages, which no stage times --
split by frame (glue_by_frame: a frame's time less its stages and the frame inside it).
Each figure is the median over `repeat` batches of µs per call (time.perf_counter_ns).
"""
import statistics
import time

from .. import _C
from ..common.abstract import AbstractTensor
from ..context import CONTEXT
from ..ir.primitive import _init_parameters, _run_op, find_runner, signature_key
from ..pynative import runner as runner_mod
from ..pynative.executor import PYNATIVE_EXECUTOR
from ..pynative.forward import (K, CNode, ForwardExecutor, OpRunInfo, _infer_key,
                                _kernel_inputs)
from ..pynative.grad import GRAD_EXECUTOR
from ..backend.session import session_factory
from ..kernels import registry

BATCH_NS = 1_000_000          # a batch lasts about 1 ms
SINGLE = 20                   # single-call samples per batch of `repeat` (single_us)
MAX_NUMBER = 20_000


def time_samples(fn, repeat=15, prep=None):
    """µs per call of `fn`, one sample per batch (`repeat` batches, sorted).

    `prep(n)`, if given, builds n fresh arguments outside the timed region; `fn(item)` is then
    called once per item (for stages that consume their input, such as casting an OpRunInfo)."""
    def batch(n):
        items = prep(n) if prep else None
        t0 = time.perf_counter_ns()
        if items is None:
            for _ in range(n):
                fn()
        else:
            for it in items:
                fn(it)
        return time.perf_counter_ns() - t0

    batch(1)
    number = 1
    while number < MAX_NUMBER:
        if batch(number) >= BATCH_NS // 4:
            break
        number *= 4
    return sorted(batch(number) / number / 1e3 for _ in range(max(1, int(repeat))))


def median_us(fn, repeat=15, prep=None):
    return statistics.median(time_samples(fn, repeat, prep))


def single_us(fn, prep, samples):
    """Median µs of `fn()` timed one call at a time, `prep()` run before each call outside the
    timed region (for stages that need a cache entry dropped first), less the timer's own
    cost (the median of empty samples taken alongside)."""
    return interleaved_us([(fn, prep)], samples)[0]


def interleaved_us(cases, samples):
    """single_us of several (fn, prep) cases taking turns, one call each per round, so a
    change of machine load shifts them all alike (figures meant to be compared)."""
    clock = time.perf_counter_ns
    times = [[] for _ in cases]
    empty = []
    for _ in range(max(1, int(samples))):
        for (fn, prep), out in zip(cases, times):
            prep()
            t0 = clock()
            fn()
            t1 = clock()
            out.append(t1 - t0)
        t0 = clock()
        t1 = clock()
        empty.append(t1 - t0)
    base = statistics.median(empty)
    return [max(0.0, statistics.median(t) - base) / 1e3 for t in times]


def _drop_first_call_caches(prim, key, infer_key, graph_key, session):
    """Forget this signature's runner, inference and graph (the rest of the caches stay)."""
    prim._runners.pop(key, None)
    PYNATIVE_EXECUTOR.forward_executor.infer_cache.pop(infer_key, None)
    session.graphs.pop(graph_key, None)


def profile_call(prim, *args, repeat=15, grad=False):
    """Stage -> median µs for calling `prim(*args)` (see the module docstring)."""
    policy = CONTEXT.values["backend_policy"]
    provider = CONTEXT.values["kernel_provider"]
    session = session_factory(CONTEXT.values["device_target"])
    fe = ForwardExecutor(GRAD_EXECUTOR)       # private: its infer cache is cleared per call
    tape = None
    if grad:
        tape = GRAD_EXECUTOR.open_tape()
        for a in args:
            tape.watch(a)
    try:
        prim(*args)                            # warm: the cached runner exists
        info = fe.prepare(prim, args)
        out_abs = info.output_abstract
        if not isinstance(out_abs, (AbstractTensor, tuple)) or \
                (isinstance(out_abs, AbstractTensor) and out_abs.value is not None):
            raise ValueError(f"For '{prim.name}', the call is constant-folded: no kernel runs, "
                             f"there is nothing to profile")
        if all(k == K for k in info.kinds):
            raise ValueError(f"For '{prim.name}', every input is a constant: the result is "
                             f"computed once, there is nothing to profile")
        d = _first_stages(prim, args, info, fe, session, policy, provider, repeat, grad)
        infer_key = (type(prim), prim.name, prim.attrs_key, _infer_key(info.input_abstracts))
        graph_key = (type(prim), prim.name, prim.attrs_key, info.key, policy, provider)
        reset = _tape_reset(tape)

        def drop():
            reset(0)
            _drop_first_call_caches(prim, info.key, infer_key, graph_key, session)
        d.update(_first_totals(prim, args, drop, repeat))
        d.update(_cached_stages(prim, args, info, session, policy, provider, repeat, grad))
        d["cached/total"] = median_us(lambda _: prim(*args), repeat, prep=reset)
        return d
    finally:
        registry.LISTENERS.remove(fe.infer_cache.clear)
        if tape is not None:
            GRAD_EXECUTOR.close_tape(tape)
            tape.nodes.clear()


def _tape_reset(tape):
    """prep for time_samples: the tape emptied (its watched inputs tracked) before a batch."""
    def reset(n):
        if tape is not None:
            tape.nodes.clear()
            tape.tracked.clear()
            tape.tracked.update(id(t) for t in tape.keep)
        return range(n)
    return reset


def _first_stages(prim, args, info, fe, session, policy, provider, repeat, grad):
    runners = prim._runners
    key = info.key
    run = runners.pop(key)                 # absent while the dispatch stages are timed
    try:
        d = {"first/C key + runner miss": median_us(
            lambda: _C.lookup_runner(prim, args), repeat)}
        d["first/dispatch key + runner miss"] = median_us(
            lambda: find_runner(runners, signature_key(prim, args)), repeat)
    finally:
        runners[key] = run

    def elim_init():
        prim.check_elim(*args)
        _init_parameters(args)
    d["first/check_elim + parameter init"] = median_us(elim_init, repeat)
    d["first/executor entry"] = _executor_entry_us(prim, args, repeat)

    def run_info():
        fe._check_arity(OpRunInfo(prim, args))
    d["first/run info (signature key)"] = median_us(run_info, repeat)
    d["first/cast inputs"] = median_us(
        fe.cast_inputs, repeat, prep=lambda n: [OpRunInfo(prim, args) for _ in range(n)])
    d["first/CNode"] = median_us(lambda: CNode(prim, info.key), repeat)
    d["first/input abstracts"] = median_us(lambda: fe.make_input_abstracts(info), repeat)

    d["first/inference"] = single_us(lambda: fe.infer_output_abstract(info),
                                     fe.infer_cache.clear, SINGLE * repeat)
    graph_key = (type(prim), prim.name, prim.attrs_key, key, policy, provider)
    d["first/compile op"] = single_us(lambda: session.compile_op(info, policy, provider),
                                      lambda: session.graphs.pop(graph_key, None),
                                      SINGLE * repeat)
    d["first/compile op/kernel selection"] = median_us(
        lambda: session.select_kernel(info, policy, provider), repeat)
    kernel = session.select_kernel(info, policy, provider)
    d["first/compile op/kernel params"] = median_us(
        lambda: prim.kernel_params(*info.input_abstracts), repeat)
    params = prim.kernel_params(*info.input_abstracts)
    d["first/compile op/bind"] = median_us(lambda: kernel.bind(params, info), repeat)
    graph = session.compile_op(info, policy, provider)
    d["first/kernel inputs"] = median_us(lambda: _kernel_inputs(info), repeat)
    ins = _kernel_inputs(info)
    d["first/run kernel graph"] = median_us(lambda: session.run_op(graph, ins), repeat)
    d["first/run kernel graph/output allocation"] = median_us(
        lambda: session.runtime.assign_addresses(graph), repeat)
    d["first/run kernel graph/launch"] = _launch_us(graph, session, ins, repeat)
    d["first/runner build"] = median_us(
        lambda: runner_mod.make_runner(info, graph, session.runtime, GRAD_EXECUTOR), repeat)

    def install():
        runners[key] = run
    d["first/runner install"] = single_us(install, lambda: runners.pop(key, None),
                                          SINGLE * repeat)
    outs = session.run_op(graph, _kernel_inputs(info))
    out_abs, dynamic = info.output_abstract, prim.dynamic_shape
    d["first/Tensor wrap"] = median_us(
        lambda: runner_mod.wrap_outputs(outs, out_abs, dynamic), repeat)
    if grad:
        d["first/grad record"] = _record_us(prim, args, repeat)
    return d


def _first_totals(prim, args, drop, repeat):
    """The whole first call ("first/total") and its enclosing Python frames, each timed
    whole as the call runs it ("frame/<name>"), taking turns: what the frames take beyond
    their stages is the glue format_breakdown names."""
    fe = PYNATIVE_EXECUTOR.forward_executor
    info = fe.prepare(prim, args)

    def drop_output():                # get_output needs the runner and graph absent only
        drop()
        fe.infer_output_abstract(info)
    total, run_op, get_output = interleaved_us(
        [(lambda: prim(*args), drop), (lambda: fe.run_op(prim, args), drop),
         (lambda: fe.get_output(info), drop_output)], SINGLE * repeat)
    return {"first/total": total, "frame/run_op": run_op, "frame/get_output": get_output}


def _executor_entry_us(prim, args, repeat):
    """_run_op -> PynativeExecutor.real_run_op -> ForwardExecutor.run_op's call: the real
    code, with the executor's run_op replaced by a no-op (an instance attribute) meanwhile."""
    fe = PYNATIVE_EXECUTOR.forward_executor
    fe.run_op = lambda p, a: None
    try:
        return median_us(lambda: _run_op(prim, prim.name, args), repeat)
    finally:
        del fe.run_op


def _launch_us(graph, session, ins, repeat):
    launch = graph.launch
    if graph.kernel.alloc == "kernel" or graph.dynamic:
        return median_us(lambda: launch(*ins), repeat)
    outs = session.runtime.assign_addresses(graph)
    return median_us(lambda: launch(*ins, *outs), repeat)


def _record_us(prim, args, repeat):
    result = prim(*args)
    tapes = GRAD_EXECUTOR.tapes

    def clear(n):
        for t in tapes:
            t.nodes.clear()
        return range(n)
    return median_us(lambda _: GRAD_EXECUTOR.record(prim, args, result), repeat, prep=clear)


def _cached_stages(prim, args, info, session, policy, provider, repeat, grad):
    runners = prim._runners

    lookup_runner = _C.lookup_runner

    def lookup():                          # as Primitive.__call__ / _dispatch
        runner = lookup_runner(prim, args)
        return runner if runner is not None else runners.get(signature_key(prim, args))
    d = {"cached/key + runner lookup": median_us(lookup, repeat)}
    graph = session.compile_op(info, policy, provider)
    runner = runners.get(info.key)
    if isinstance(runner, _C.FastRunner):
        d.update(_fast_runner_stages(runner, args, info.output_abstract, repeat))
    else:
        d.update(_python_runner_stages(info, graph, session, args, repeat))
    if grad and "cached/grad record" not in d:          # a Python runner's recorder call
        d["cached/grad record"] = _record_us(prim, args, repeat)
    return d


def _fast_runner_stages(runner, args, out_abs, repeat):
    """The C runner's stages, each timed in C over a batch (FastRunner.stage_times)."""
    n = max(1, min(2000, (64 << 20) // max(1, out_abs.size * out_abs.np.itemsize)))
    tapes = GRAD_EXECUTOR.tapes
    samples = []
    for _ in range(max(1, int(repeat))):
        samples.append(runner.stage_times(args, n))
        for t in tapes:
            t.nodes.clear()
    names = ("cached/output allocation", "cached/kernel launch", "cached/Tensor wrap",
             "cached/grad record")
    return {name: statistics.median(s[i] for s in samples) for i, name in enumerate(names)
            if samples[0][i] is not None}


def _python_runner_stages(info, graph, session, args, repeat):
    """A Python runner's stages, each timed by calling its code from Python."""
    d = {}
    prim = info.prim
    read = runner_mod.input_reader(info)
    d["cached/input read"] = median_us(lambda: read(args), repeat)
    out_abs = info.output_abstract
    outs_abs = (out_abs,) if isinstance(out_abs, AbstractTensor) else out_abs
    dynamic = prim.dynamic_shape
    if graph.kernel.alloc != "kernel" and not dynamic and not graph.dynamic:
        allocs = [session.runtime.allocator(a) for a in outs_abs]
        d["cached/output allocation"] = median_us(lambda: [f() for f in allocs], repeat)
    d["cached/kernel launch"] = _launch_us(graph, session, _kernel_inputs(info), repeat)
    outs = session.run_op(graph, _kernel_inputs(info))
    d["cached/Tensor wrap"] = median_us(
        lambda: runner_mod.wrap_outputs(outs, out_abs, dynamic), repeat)
    return d


def stage_sum(d, phase):
    """Sum of a phase's stages ("first" or "cached"): its measured total and the sub-stages
    ("<phase>/<stage>/<part>", already inside their stage) left out."""
    return sum(v for k, v in d.items()
               if k.startswith(phase + "/") and k != phase + "/total" and k.count("/") == 1)


GLUE = "Python glue (unattributed)"
# the first call's frames, innermost first: (frame, its figure, its stages, the frame inside
# it): ForwardExecutor.get_output, ForwardExecutor.run_op, and the whole call (first/total:
# Primitive.__call__ in C, then Primitive._dispatch)
FRAMES = (
    ("get_output", "frame/get_output",
     ("compile op", "kernel inputs", "run kernel graph", "runner build", "runner install",
      "Tensor wrap", "grad record"), None),
    ("run_op", "frame/run_op",
     ("run info (signature key)", "cast inputs", "CNode", "input abstracts", "inference"),
     "frame/get_output"),
    ("__call__ / _dispatch", "first/total",
     ("C key + runner miss", "dispatch key + runner miss", "check_elim + parameter init",
      "executor entry"), "frame/run_op"),
)


def glue_by_frame(d):
    """[(frame, µs)]: each frame's measured time less its stages and the frame inside it
    (the first call's glue, named by where it runs); empty without the frame figures."""
    if not all(key in d for _, key, _, _ in FRAMES):
        return []
    return [(name, d[key] - sum(d.get(f"first/{s}", 0.0) for s in stages)
             - (d[inner] if inner else 0.0)) for name, key, stages, inner in FRAMES]


def format_breakdown(d):
    """The stages of each phase, then their sum, what the measured call has beyond it
    (GLUE: frames and calls between the stages; for the first call, by frame) and the
    measured call."""
    lines = []
    for phase, title in (("first", "first call of the signature"),
                         ("cached", "cached call (runner)")):
        lines.append(f"{title}:")
        for k, v in d.items():
            if k.startswith(phase + "/") and k != phase + "/total":
                name = k.split("/", 1)[1]
                if "/" in name:
                    lines.append(f"    - {name.split('/', 1)[1]:<28} {v:10.2f} µs")
                else:
                    lines.append(f"  {name:<32} {v:10.2f} µs")
        total = d.get(phase + "/total")
        parts = stage_sum(d, phase)
        lines.append(f"  {'sum of stages':<32} {parts:10.2f} µs")
        if total is not None:
            lines.append(f"  {GLUE:<32} {total - parts:10.2f} µs")
            if phase == "first":
                for name, us in glue_by_frame(d):
                    lines.append(f"    - {'in ' + name:<28} {us:10.2f} µs")
            lines.append(f"  {'measured call':<32} {total:10.2f} µs")
    return "\n".join(lines)
