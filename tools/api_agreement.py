"""Generated calls of MindSpore 2.10's functional API and Tensor methods, run in MindSpore (a side
venv) and in mindlite, compared result by result; writes a report.

    python tools/api_agreement.py [--ms /opt/msvenv/bin/python] [--only ops,Tensor,mint]
                                  [--report benchmarks/results/api_agreement.md] [--show N]

Three processes: the MindSpore child enumerates the public names of mindspore.ops (functions),
Tensor, mint, mint.nn.functional, mint.linalg and mint.special, turns each signature into calls
(tools/agreement_cases.py; hand-written templates where a parameter name cannot tell the
argument) and runs them with pynative_synchronize (errors at the call); the mindlite child runs
the same call strings; this process compares. A call counts as compared when MindSpore's CPU
build runs it or refuses it with a TypeError / ValueError; a call MindSpore cannot run on CPU
(its kernel is unregistered there) is listed apart, with whether mindlite runs it. Agreement:
both raise, or both return the same structure with equal shapes, dtypes and values (float
tolerance by dtype, NaN equal to NaN; random ops: shapes and dtypes only).
Not part of the test run (CI has no MindSpore).
"""
import argparse
import os
import pickle
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import agreement_cases as cases  # noqa: E402
import agreement_templates as templates  # noqa: E402
from agreement_compare import (  # noqa: E402,F401  (the test calls same / _unsupported_on_cpu)
    _unsupported_on_cpu, compare, report, same)

MODULES = ("ops", "Tensor", "mint", "mint.nn.functional", "mint.linalg", "mint.special")


# ---- children ------------------------------------------------------------------------------
def _framework(side):
    if side == "ms":
        import mindspore as ms
        ms.set_context(device_target="CPU", pynative_synchronize=True)
    else:
        sys.path.insert(0, ROOT)
        import mindlite as ms
    import importlib
    ns = {"ms": ms, "np": np, "Tensor": ms.Tensor, "ops": ms.ops, "nn": ms.nn}
    try:
        ns["mint"] = importlib.import_module(ms.__name__ + ".mint")
        for sub in ("nn", "nn.functional", "linalg", "special", "optim"):
            importlib.import_module(f"{ms.__name__}.mint.{sub}")
        ns["F"] = ns["mint"].nn.functional
    except ImportError:
        pass
    return ms, ns


def _target(ns, ms, qualname):
    """The object `qualname` names in this framework ("ops.abs", "Tensor.sum", "mint.max")."""
    parts = qualname.split(".")
    obj = ms.Tensor if parts[0] == "Tensor" else ns.get(parts[0])
    for p in parts[1:]:
        obj = getattr(obj, p, None)
        if obj is None:
            return None
    return obj


def _public(obj):
    names = getattr(obj, "__all__", None)
    if names is None or isinstance(obj, type):
        names = [n for n in dir(obj) if not n.startswith("_")]
    return sorted(set(names))


def enumerate_calls(ms, ns, only):
    """{qualname: [call, ...]} for every public function / method of MODULES (MindSpore side)."""
    import inspect
    calls = {}
    comm = set(_public(getattr(ns["mint"], "distributed", None))) if "mint" in ns else set()
    for mod in MODULES:
        if only and mod.split(".")[0] not in only and mod not in only:
            continue
        owner = _target(ns, ms, mod)
        for name in _public(owner):
            fn = getattr(owner, name, None)
            if fn is None or inspect.isclass(fn) or inspect.ismodule(fn):
                continue
            if name in comm or "comm_func" in str(getattr(fn, "__module__", "")) or \
                    name in templates.SKIP:
                calls[f"{mod}.{name}"] = []     # collectives need a launched job; see SKIP
                continue
            if mod == "Tensor" and isinstance(inspect.getattr_static(ms.Tensor, name, None),
                                              property):
                calls[f"{mod}.{name}"] = [f"x.{name}"]
                continue
            if not callable(fn):
                continue
            qual = f"{mod}.{name}"
            made = templates.TEMPLATES.get(qual)
            if made is None:
                made = cases.generate(qual, cases.signature_text(name, fn), mod == "Tensor")
                if made and qual in templates.DTYPE_SWEEP:
                    made = made + cases.dtype_variants(made[0], cases.input_for(name))
            calls[qual] = list(made)
    return calls


def _encode(r, ms, depth=0):
    if isinstance(r, ms.Tensor):
        a = np.array(r.asnumpy())
        if a.dtype.type.__module__ != "numpy":          # bfloat16 (ml_dtypes or MindSpore's)
            a = a.astype(np.float32)
        return ("T", str(r.dtype), tuple(a.shape), a)
    if isinstance(r, (tuple, list)) and depth < 3:
        return ("L", [_encode(t, ms, depth + 1) for t in r])
    if isinstance(r, np.generic):
        r = r.item()
    if type(r) in (bool, int, float, complex, str, type(None)):
        return ("S", r)
    if type(r).__name__ in ("Type", "TensorType", "Float", "Int", "Bool", "UInt", "Complex"):
        return ("D", str(r))
    if isinstance(r, np.ndarray):
        return ("A", str(r.dtype), r.shape, np.array(r))
    return ("O", type(r).__name__)


def _fresh_namespace(ns, ms):
    env = dict(ns)
    for key, arr in cases.ENV.items():
        env[key] = ms.Tensor(np.array(arr))
    return env


def run_calls(side, calls, ms, ns):
    """{call: encoded result or ("E", class name, message)}."""
    import warnings
    warnings.filterwarnings("ignore")
    out = {}
    for call in calls:
        env = _fresh_namespace(ns, ms)
        try:
            r = eval(call, env)  # noqa: S307 (the calls are this tool's own strings)
            res = _encode(r, ms)
            receiver = call.split(".", 1)[0]
            if call.split("(")[0].endswith("_") and receiver in env:
                res = ("M", res, _encode(env[receiver], ms))
        except Exception as exc:  # noqa: BLE001 (every failure is a result here)
            res = ("E", type(exc).__name__, str(exc).split("\n")[0][:200])
        out[call] = res
    return out


def child(side, in_path, out_path, only, start):
    """`enumerate` (MindSpore): write {qualname: calls} and the module names to out_path;
    `ms` / `ml`: run the calls of in_path from index `start` on, appending each result to
    out_path as it comes (a call that kills the process is found by the parent there)."""
    if side == "enumerate":
        ms, ns = _framework("ms")
        payload = {"calls": enumerate_calls(ms, ns, only),
                   "names": {mod: _public(_target(ns, ms, mod)) for mod in MODULES}}
        with open(out_path, "wb") as f:
            pickle.dump(payload, f)
        return
    with open(in_path, "rb") as f:
        calls = pickle.load(f)["calls"]
    flat = [c for cs in calls.values() for c in cs]
    fw, ns = _framework(side)
    with open(out_path, "ab") as f:
        if start == 0:
            present = {q: _target(ns, fw, q) is not None for q in calls}
            pickle.dump(("present", present), f)
        for index in range(start, len(flat)):
            pickle.dump(("start", index), f)
            f.flush()
            res = run_calls(side, [flat[index]], fw, ns)[flat[index]]
            pickle.dump(("done", index, res), f)
            f.flush()


def run_side(python, side, calls_path, out_path, env):
    """Run every call of one side, restarting the child after a call that kills it (recorded as
    an error "Crash"); returns ({call: result}, {qualname: present})."""
    with open(calls_path, "rb") as f:
        flat = [c for cs in pickle.load(f)["calls"].values() for c in cs]
    results, present, start = {}, {}, 0
    while True:
        subprocess.run([python, os.path.abspath(__file__), "--child", side, "--inp", calls_path,
                        "--out", out_path, "--start", str(start)], env=env,
                       stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        last = None
        with open(out_path, "rb") as f:
            while True:
                try:
                    rec = pickle.load(f)
                except EOFError:
                    break
                if rec[0] == "present":
                    present = rec[1]
                elif rec[0] == "start":
                    last = rec[1]
                else:
                    results[flat[rec[1]]] = rec[2]
                    last = None
        if last is None or len(results) >= len(flat):
            return results, present
        results[flat[last]] = ("E", "Crash", "the process died in this call")
        start = last + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", choices=("enumerate", "ms", "ml"))
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--from-dump", help="compare a saved --dump again, running nothing")
    ap.add_argument("--keep", help="a folder for the intermediate files (debugging)")
    ap.add_argument("--dump", help="also save both sides' results (a pickle) here")
    ap.add_argument("--inp")
    ap.add_argument("--out")
    ap.add_argument("--ms", default="/opt/msvenv/bin/python")
    ap.add_argument("--only", default="")
    ap.add_argument("--report")
    ap.add_argument("--show", type=int, default=60)
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    if args.child:
        child(args.child, args.inp, args.out, only, args.start)
        return
    if args.from_dump:
        with open(args.from_dump, "rb") as f:
            both = pickle.load(f)
        stats, bad, defects = compare(both["ms"], both["ml"])
        print(report(stats, bad, defects, args.show))
        return
    if not os.path.exists(args.ms):
        sys.exit(f"MindSpore's Python {args.ms} is absent: nothing to compare against")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = args.keep or tmp
        calls_path = os.path.join(tmp, "calls.pkl")
        env = dict(os.environ, GLOG_v="3")
        env.pop("PYTHONPATH", None)
        subprocess.run([args.ms, os.path.abspath(__file__), "--child", "enumerate", "--out",
                        calls_path, "--only", args.only], check=True, env=env,
                       stderr=subprocess.DEVNULL)
        with open(calls_path, "rb") as f:
            ms_payload = pickle.load(f)
        ms_payload["results"], _ = run_side(args.ms, "ms", calls_path,
                                            os.path.join(tmp, "ms.pkl"), env)
        ml_results, present = run_side(sys.executable, "ml", calls_path,
                                       os.path.join(tmp, "ml.pkl"),
                                       dict(os.environ, PYTHONPATH=ROOT))
        ml_payload = {"results": ml_results, "present": present}
        if args.dump:
            with open(args.dump, "wb") as f:
                pickle.dump({"ms": ms_payload, "ml": ml_payload}, f)
    stats, bad, defects = compare(ms_payload, ml_payload)
    text = report(stats, bad, defects, args.show)
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
