"""The fuzzer's paths (see paths.py): each `run_<path>(program, module, calls, oracle)`
returns its verdict ("ok", "refused: ...", "skipped: ...") or raises paths.Finding;
`check(program, paths)` runs the oracle and then each path."""
import os
import signal
import tempfile
import threading
import traceback

import numpy as np

from .paths import (ALL, DYNAMIC_SIZES, STATIC_B, TOL, DEFAULT_TOL, Finding, Report,
                    compare, inputs, is_crash, module_of, run_calls)


def judge(path, program, want, got, tol=DEFAULT_TOL, params=True, text=True):
    """The verdict of a path's outcomes against the oracle's."""
    diff = compare(path, want, got, tol, params, text)
    if diff is not None:
        raise Finding(path, diff, program)
    for g in got:
        if g.error is not None:
            err = g.error
            what = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            if is_crash(err):
                raise Finding(path, f"crash: {what}", program)
            return f"refused: {what[:160]}"
    if len(got) < len(want):
        raise Finding(path, f"{len(got)} calls ran, eager ran {len(want)}", program)
    return "ok"


def run_jit(program, mod, calls, oracle):
    import mindlite as ms
    net = mod.Net()
    return judge("jit", program, oracle, run_calls(ms.jit(net.construct), calls, net))


def run_dynamic(program, mod, calls, oracle):
    import mindlite as ms
    got = _sized(program, mod)
    if got is None:
        return "skipped: eager fails at some size"
    sized, want = got
    net = mod.Net()
    jf = ms.jit(net.construct, input_signature=_signature(program))
    return judge("dynamic", program, want, run_calls(jf, sized, net))


def _signature(program):
    """Placeholders for the inputs with a batch dimension (None), zeros for the others."""
    import mindlite as ms
    from ..common.tensor import Tensor
    return tuple(Tensor(shape=[None if d == "B" else d for d in shape],
                        dtype=getattr(ms, "bool_" if dtype == "bool" else dtype))
                 if "B" in shape else Tensor(np.zeros(shape, dtype))
                 for dtype, shape in program.inputs)


def _sized(program, mod):
    """(calls at every dynamic size, eager's outcomes for them) or None (eager fails)."""
    sized = [inputs(program, b, 10 + b) for b in DYNAMIC_SIZES]
    eager = mod.Net()
    want = run_calls(eager.construct, sized, eager)
    return None if any(w.error is not None for w in want) else (sized, want)


def run_mindir_dynamic(program, mod, calls, oracle):
    """A MINDIR exported with the batch dynamic (placeholders: one file for every size),
    run at every dynamic size."""
    import mindlite as ms
    from ..nn import GraphCell
    got = _sized(program, mod)
    if got is None:
        return "skipped: eager fails at some size"
    sized, want = got
    net = mod.Net()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m")
        try:
            ms.export(net, *_signature(program), file_name=path, file_format="MINDIR")
            cell = GraphCell(ms.load(path + ".mindir"))
        except Exception as err:                       # noqa: BLE001
            return _refusal("mindir_dynamic", program, err)
    fresh = []
    for args in sized:                     # each size on the file's initial Parameters
        fresh += run_calls(cell, [args]) if not fresh or fresh[-1].error is None else []
    return judge("mindir_dynamic", program, [w for w in want[:len(fresh)]], fresh,
                 params=False) if "pure" in program.features else "skipped: effects"


def run_onnx_dynamic(program, mod, calls, oracle):
    """An ONNX file exported with the batch dynamic, run by onnxruntime at every size."""
    import mindlite as ms
    try:
        import onnxruntime as ort
    except ImportError:
        return "skipped: onnxruntime not installed"
    got = _sized(program, mod)
    if got is None or "pure" not in program.features:
        return "skipped: eager fails at some size, or effects"
    sized, want = got
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m")
        try:
            ms.export(mod.Net(), *_signature(program), file_name=path, file_format="ONNX")
            options = ort.SessionOptions()
            options.log_severity_level = 3
            sess = ort.InferenceSession(path + ".onnx", options,
                                        providers=["CPUExecutionProvider"])
        except Exception as err:                       # noqa: BLE001
            return _refusal("onnx_dynamic", program, err)
    names = [i.name for i in sess.get_inputs()]

    def call(*xs):
        return sess.run(None, {n: x.asnumpy() for n, x in zip(names, xs)})
    return judge("onnx_dynamic", program, want, run_calls(call, sized), TOL["onnx"],
                 params=False)


def run_grad(program, mod, calls, oracle):
    import mindlite as ms
    if "grad_program" not in program.features:
        return "skipped: not a grad program"

    def grad_fn(net):
        return ms.value_and_grad(net, 0, net.trainable_params())
    eager = mod.Net()
    want = run_calls(grad_fn(eager), calls, eager)
    if any(w.error is not None for w in want):
        return f"skipped: eager grad fails ({type(want[-1].error).__name__})"
    net = mod.Net()
    return judge("grad", program, want, run_calls(ms.jit(grad_fn(net)), calls, net),
                 tol=(1e-4, 1e-5))


def run_mindir(program, mod, calls, oracle):
    import mindlite as ms
    from ..nn import GraphCell
    net = mod.Net()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m")
        try:
            ms.export(net, *calls[0], file_name=path, file_format="MINDIR")
            cell = GraphCell(ms.load(path + ".mindir"))
        except Exception as err:                       # noqa: BLE001
            return _refusal("mindir", program, err)
    return judge("mindir", program, oracle, run_calls(cell, calls), params=False)


def run_onnx(program, mod, calls, oracle):
    import mindlite as ms
    try:
        import onnxruntime as ort
    except ImportError:
        return "skipped: onnxruntime not installed"
    net = mod.Net()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m")
        try:
            ms.export(net, *calls[0], file_name=path, file_format="ONNX")
            options = ort.SessionOptions()
            options.log_severity_level = 3               # no warnings on stderr
            sess = ort.InferenceSession(path + ".onnx", options,
                                        providers=["CPUExecutionProvider"])
        except Exception as err:                       # noqa: BLE001
            return _refusal("onnx", program, err)
    names = [i.name for i in sess.get_inputs()]

    def call(*xs):
        feed = {n: x.asnumpy() for n, x in zip(names, xs)}
        return sess.run(None, feed)
    return judge("onnx", program, oracle, run_calls(call, calls), TOL["onnx"], params=False)


def run_lite(program, mod, calls, oracle):
    from ..lite.api import Model
    from ..lite.converter import convert
    net = mod.Net()
    try:
        data = convert(net, *calls[0])
        model = Model()
        model.build_from_buffer(data)
    except Exception as err:                           # noqa: BLE001
        return _refusal("lite", program, err)

    def call(*xs):
        ins = model.get_inputs()
        for t, x in zip(ins, xs):
            t.set_data_from_numpy(np.ascontiguousarray(x.asnumpy()))
        return [o.get_data_to_numpy() for o in model.predict(ins)]
    return judge("lite", program, oracle, run_calls(call, calls), TOL["lite"], params=False)


def _refusal(path, program, err):
    what = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    if is_crash(err):
        raise Finding(path, f"crash: {what}", program)
    return f"refused: {what[:160]}"


def check(program, paths=ALL):
    """Run `program` every way (see the module docstring); a Report."""
    report = Report(program)
    mod = module_of(program)
    calls = [inputs(program, STATIC_B, 1), inputs(program, STATIC_B, 2)]
    net = mod.Net()
    oracle = run_calls(net.construct, calls, net)
    if any(o.error is not None for o in oracle):
        report.valid = False
        return report
    for path in paths:
        runner = globals()[f"run_{path}"]
        _note_inflight(program, path)
        try:
            verdict = _within_limit(runner, program, mod, calls, oracle)
        except Finding as f:
            report.findings.append(f)
            verdict = "finding"
        except _Hang as h:
            what = f"did not finish in {PATH_LIMIT_S} s (eager did); it was at:\n{h.where}"
            report.findings.append(Finding(path, what, program))
            _keep_hang(program, path, what)
            verdict = "finding"
        report.ran[path] = verdict
    return report


PATH_LIMIT_S = 120


# Where the running program is written before each path (None: nowhere). A path that kills
# the process (a segfault in a reference engine) leaves its program there; a hang is copied
# beside it at once, before hypothesis re-runs it (a hang may depend on the process's past).
INFLIGHT = None


def _note_inflight(program, path):
    if INFLIGHT is None:
        return
    with open(INFLIGHT, "w") as f:
        f.write(program_file(program, f"running path [{path}]: the process died here if "
                                      f"this file outlived the run"))


def _keep_hang(program, path, what):
    if INFLIGHT is None:
        return
    out = os.path.dirname(INFLIGHT) or "."
    k = sum(name.startswith("hang_") for name in os.listdir(out)) + 1
    with open(os.path.join(out, f"hang_{k:03d}_{path}.py"), "w") as f:
        f.write(program_file(program, what))


def program_file(program, what):
    """The text of a program file load_program reads: a docstring (what happened, the
    features, the input specs) and the program's source."""
    what = what.replace('"""', "'''")
    return (f'"""fuzz {what}\nfeatures: {sorted(program.features)}\n'
            f'inputs: {program.inputs}\n"""\n{program.source}')


class _Hang(BaseException):          # not an Exception: no `except Exception` swallows it
    def __init__(self, where=""):
        super().__init__(where)
        self.where = where


def _within_limit(fn, *args):
    """fn(*args), interrupted by _Hang after PATH_LIMIT_S seconds (a path that never ends
    where eager did is a finding: a long run once hung in a MINDIR loop). Main thread only,
    where SIGALRM exists; elsewhere fn runs unlimited."""
    if threading.current_thread() is not threading.main_thread() or \
            not hasattr(signal, "SIGALRM"):
        return fn(*args)

    def alarm(signum, frame):
        raise _Hang("".join(traceback.format_stack(frame)[-12:]))
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(PATH_LIMIT_S)
    try:
        return fn(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
