"""One generated program run every way, each compared with eager (the oracle).

    path_runs.check(program, paths=ALL) -> Report     (report.findings: the disagreements)

Each path gets a fresh Net (the same initial Parameters) and the same sequence of calls as
the oracle, and must give, call by call, the oracle's outputs (values within a float
tolerance, dtypes and shapes exactly), Parameter values and printed text; or raise an error
that refuses the program (graph mode's UnsupportedSyntaxError, an exporter naming what it
cannot write...). A Python error that is not a refusal (AttributeError, KeyError, an IR
lint error...) is a crash: a finding too. The paths:

    jit            jit(net.construct), inputs of batch 3, two calls (the second cached)
    dynamic        jit(net.construct, input_signature=<None batch>) at batch 1, 2, 4, 7, 5
    grad           value_and_grad(net, 0, weights) eagerly vs under jit (grad programs)
    mindir         export(net, MINDIR) -> load -> nn.GraphCell, two calls
    mindir_dynamic the same exported with the batch None, run at every dynamic size
    onnx           export(net, ONNX) -> onnxruntime, two calls
    onnx_dynamic   the same exported with the batch None, run at every dynamic size
    lite           lite.converter.convert(net) -> the Lite runtime (build_from_buffer), two
                   calls
"""
import contextlib
import hashlib
import importlib.util
import io
import os
import re
import sys
import tempfile
import threading
import warnings

import numpy as np

STATIC_B = 3
DYNAMIC_SIZES = (1, 2, 4, 7, 5)
ALL = ("jit", "dynamic", "grad", "mindir", "mindir_dynamic", "onnx", "onnx_dynamic", "lite")
# errors that mean "a bug", not "this program is not supported"
CRASHES = (AttributeError, KeyError, IndexError, NameError, UnboundLocalError, AssertionError,
           ZeroDivisionError, RecursionError, SystemError, MemoryError, OverflowError)
TOL = {"onnx": (1e-4, 1e-4), "lite": (1e-4, 1e-4), "onnx_dynamic": (1e-4, 1e-4)}
DEFAULT_TOL = (1e-5, 1e-5)

_DIR = []
_LOCK = threading.Lock()


class Finding(Exception):
    """A path disagreed with eager (or crashed) on a program."""

    def __init__(self, path, what, program):
        super().__init__(f"[{path}] {what}\n--- program ---\n{program.source}")
        self.path, self.what, self.program = path, what, program


class Report:
    def __init__(self, program):
        self.program = program
        self.valid = True             # eager ran it
        self.ran = {}                 # path -> "ok" / "refused: ..." / "skipped"
        self.findings = []


class Outcome:
    """What one call gave: outputs [(dtype name, shape, array)], Parameter values, text."""

    def __init__(self, outputs=None, params=None, text="", error=None):
        self.outputs, self.params, self.text, self.error = outputs, params, text, error


def module_of(program):
    """The program's source as an imported module (a file, so the graph parser can read it)."""
    key = hashlib.sha1(program.source.encode()).hexdigest()[:16]
    name = f"mindlite_fuzz_{key}"
    if name in sys.modules:
        return sys.modules[name]
    with _LOCK:
        if not _DIR:
            _DIR.append(tempfile.mkdtemp(prefix="mindlite_fuzz_"))
    path = os.path.join(_DIR[0], name + ".py")
    with open(path, "w") as f:
        f.write(program.source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules[name] = mod
    return mod


def inputs(program, b, seed):
    """The Tensors of one call at batch `b` (a fixed function of the seed)."""
    from ..common.tensor import Tensor
    rng = np.random.default_rng(seed)
    out = []
    for dtype, shape in program.inputs:
        shape = tuple(b if d == "B" else d for d in shape)
        if dtype.startswith("float"):
            arr = rng.standard_normal(shape).astype(dtype)
        elif dtype == "bool":
            arr = rng.random(shape) < 0.5
        else:
            arr = rng.integers(-3, 4, shape).astype(dtype)
        out.append(Tensor(arr))
    return out


def _flat(value, out):
    from ..common.tensor import Tensor
    if isinstance(value, (tuple, list)):
        for v in value:
            _flat(v, out)
    elif isinstance(value, Tensor):
        a = value.asnumpy()
        out.append((str(value.dtype), a.shape, a.copy()))
    elif isinstance(value, np.ndarray):
        out.append((str(value.dtype), value.shape, value.copy()))
    else:
        out.append((type(value).__name__, (), np.asarray(value)))
    return out


def _params(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def run_calls(call, calls, net=None):
    """[Outcome] of call(*args) for each argument list (stops at the first error)."""
    from ..common.tensor import Tensor
    results = []
    for args in calls:
        # each path gets its own copies: eager writes an argument in place where the program
        # aliases it (`v = x if c else x; v[0] = 1`), which must not reach the next path
        args = [Tensor(a.asnumpy().copy()) if isinstance(a, Tensor) else a for a in args]
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = call(*args)
            results.append(Outcome(_flat(out, []), _params(net) if net is not None else None,
                                   buf.getvalue()))
        except Exception as err:             # noqa: BLE001 (classified by the caller)
            results.append(Outcome(text=buf.getvalue(), error=err))
            break
    return results


def compare(path, want, got, tol=DEFAULT_TOL, params=True, text=True):
    """A description of the first difference between two outcome lists, or None."""
    for k, (w, g) in enumerate(zip(want, got)):
        if g.error is not None:
            return None                      # classified by the caller
        if len(w.outputs) != len(g.outputs):
            return f"call {k}: {len(g.outputs)} outputs, eager gives {len(w.outputs)}"
        for i, ((wd, ws, wa), (gd, gs, ga)) in enumerate(zip(w.outputs, g.outputs)):
            if path.startswith(("onnx", "lite")):   # arrays: compare numpy dtypes
                wd, gd = str(np.dtype(wa.dtype)), str(np.dtype(ga.dtype))
            if wd != gd or tuple(ws) != tuple(gs):
                return f"call {k} output {i}: {gd}{list(gs)}, eager gives {wd}{list(ws)}"
            if not _close(wa, ga, tol):
                return f"call {k} output {i}: {ga.tolist()}, eager gives {wa.tolist()}"
        if params and w.params is not None and g.params is not None:
            for name, wv in w.params.items():
                if not _close(wv, g.params.get(name), tol):
                    return (f"call {k}: Parameter {name} = {g.params.get(name).tolist()}, "
                            f"eager gives {wv.tolist()}")
        if text and w.text != g.text:
            return f"call {k}: printed {g.text!r}, eager printed {w.text!r}"
    return None


def _close(a, b, tol):
    if b is None or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=tol[0],
                           atol=tol[1], equal_nan=True)
    return np.array_equal(a, b)


# Python's own messages: an error a primitive's check would word differently
_INTERNAL = re.compile(r"indices must be integers|object is not (subscriptable|callable|"
                       r"iterable)|unsupported operand type|takes \d+ positional argument|"
                       r"got an unexpected keyword|'NoneType' object|unhashable type|"
                       r"not enough values to unpack|too many values to unpack|"
                       r"missing \d+ required")


def is_crash(err):
    """An error that is a bug of the path, not a refusal (see the module docstring)."""
    from ..ir.manager import LintError
    if isinstance(err, NotImplementedError):
        return False
    return isinstance(err, CRASHES + (LintError,)) or bool(_INTERNAL.search(str(err)))
