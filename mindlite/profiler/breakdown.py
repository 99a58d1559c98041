"""Per-stage latency breakdown of one primitive call, each stage timed by running its real code.

    profile_call(prim, *args, repeat=15, grad=False) -> {stage: µs}
    format_breakdown(d) -> printable table

Stages are named "<phase>/<stage>". Phase "first" is a signature's first call through the
pipeline (pynative/forward.py): signature key, cast inputs, CNode, input abstracts, inference
(uncached), kernel selection, kernel params, bind, launch (preallocated outputs), runner build,
plus "grad record" when `grad`. Phase "cached" is the runner of a repeated call: key + runner
lookup (C, as `Primitive.__call__`; the Python signature key when C cannot key the call),
input read (Python runners only; a `_C.FastRunner` reads the Tensors in C), output
allocation (runtime allocator; not for kernels that allocate), kernel launch, Tensor wrap
and grad record (when `grad`) -- a FastRunner's timed in C by FastRunner.stage_times.
"first/total" and "cached/total" are the measured whole calls (the first call with this
signature's runner, inference and graph cache entries dropped before each call), to compare
with the stage sums.
Each figure is the median over `repeat` batches of µs per call (time.perf_counter_ns).
"""
import statistics
import time

from .. import _C
from ..abstract import AbstractTensor
from ..context import CONTEXT
from ..ops.primitive import signature_key
from ..pynative import runner as runner_mod
from ..pynative.executor import PYNATIVE_EXECUTOR
from ..pynative.forward import (K, CNode, ForwardExecutor, OpRunInfo, _infer_key,
                                _kernel_inputs)
from ..pynative.grad import GRAD_EXECUTOR
from ..backend.session import session_factory
from ..kernels import registry

BATCH_NS = 1_000_000          # a batch lasts about 1 ms
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
        info = OpRunInfo(prim, args)
        fe._check_arity(info)
        fe.cast_inputs(info)
        info.cnode = CNode(prim, info.key)
        fe.make_input_abstracts(info)
        fe.infer_output_abstract(info)
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

        def first_call():
            _drop_first_call_caches(prim, info.key, infer_key, graph_key, session)
            prim(*args)
        d["first/total"] = median_us(first_call, repeat)
        d.update(_cached_stages(prim, args, info, session, policy, provider, repeat, grad))
        d["cached/total"] = median_us(lambda: prim(*args), repeat)
        return d
    finally:
        registry.LISTENERS.remove(fe.infer_cache.clear)
        if tape is not None:
            GRAD_EXECUTOR.close_tape(tape)
            tape.nodes.clear()


def _first_stages(prim, args, info, fe, session, policy, provider, repeat, grad):
    d = {"first/signature key": median_us(lambda: signature_key(prim, args), repeat)}
    d["first/cast inputs"] = median_us(
        fe.cast_inputs, repeat, prep=lambda n: [OpRunInfo(prim, args) for _ in range(n)])
    d["first/CNode"] = median_us(lambda: CNode(prim, info.key), repeat)
    d["first/input abstracts"] = median_us(lambda: fe.make_input_abstracts(info), repeat)

    def infer():
        fe.infer_cache.clear()
        fe.infer_output_abstract(info)
    d["first/inference"] = median_us(infer, repeat)
    d["first/kernel selection"] = median_us(
        lambda: session.select_kernel(info, policy, provider), repeat)
    kernel = session.select_kernel(info, policy, provider)
    d["first/kernel params"] = median_us(
        lambda: prim.kernel_params(*info.input_abstracts), repeat)
    params = prim.kernel_params(*info.input_abstracts)
    d["first/bind"] = median_us(lambda: kernel.bind(params, info), repeat)
    graph = session.compile_op(info, policy, provider)
    ins = _kernel_inputs(info)
    d["first/launch"] = _launch_us(graph, session, ins, repeat)
    d["first/runner build"] = median_us(
        lambda: runner_mod.make_runner(info, graph, session.runtime, GRAD_EXECUTOR), repeat)
    if grad:
        d["first/grad record"] = _record_us(prim, args, repeat)
    return d


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
    """Sum of a phase's stages ("first" or "cached"), its measured total left out."""
    return sum(v for k, v in d.items() if k.startswith(phase + "/") and k != phase + "/total")


def format_breakdown(d):
    lines = []
    for phase, title in (("first", "first call of the signature"),
                         ("cached", "cached call (runner)")):
        lines.append(f"{title}:")
        for k, v in d.items():
            if k.startswith(phase + "/") and k != phase + "/total":
                lines.append(f"  {k.split('/', 1)[1]:<24} {v:10.2f} µs")
        total = d.get(phase + "/total")
        lines.append(f"  {'sum of stages':<24} {stage_sum(d, phase):10.2f} µs")
        if total is not None:
            lines.append(f"  {'measured call':<24} {total:10.2f} µs")
    return "\n".join(lines)
