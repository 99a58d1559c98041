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

MODULES = ("ops", "Tensor", "mint", "mint.nn.functional", "mint.linalg", "mint.special")
RANDOM_WORDS = ("rand", "normal", "uniform", "bernoulli", "multinomial", "dropout", "poisson",
                "gamma", "shuffle", "choice", "sample", "laplace", "cauchy", "exponential",
                "random", "gumbel", "rrelu", "log_normal", "empty", "fused_infer", "seed")
TOL = {"Float16": (2e-3, 2e-3), "BFloat16": (1e-2, 1e-2), "Float32": (2e-5, 1e-5),
       "Float64": (1e-10, 1e-12), "Complex64": (2e-5, 1e-5), "Complex128": (1e-10, 1e-12)}


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


# ---- comparison ----------------------------------------------------------------------------
# deterministic names that contain a random word ("gamma" in lgamma, "normal" in
# batch_norm ...): compared by value
NOT_RANDOM = {"lgamma", "digamma", "mvlgamma", "polygamma", "igamma", "igammac", "gammaln"}


def _is_random(qualname):
    name = qualname.rsplit(".", 1)[-1]
    if name in NOT_RANDOM or name.rstrip("_") in NOT_RANDOM:
        return False
    return any(w in name for w in RANDOM_WORDS) or qualname in templates.NONDETERMINISTIC


_CPU_GAPS = ("unregistered", "not support", "Unsupported op", "Create kernelmod",
             "Not implement", "should not come here", "only supports Ascend",
             "support Ascend only", "Currently not supported", "only support",
             "Not found op", "object has no attribute")


def _unsupported_on_cpu(res):
    """MindSpore could not run the call on CPU (no kernel there, an Ascend-only path, an
    internal failure), as opposed to refusing its arguments."""
    if res[0] != "E":
        return False
    cls, msg = res[1], res[2]
    if cls == "NotImplementedError" or (cls == "RuntimeError" and not msg.strip()):
        return True
    return cls in ("RuntimeError", "ValueError", "AttributeError") and (
        any(g.lower() in msg.lower() for g in _CPU_GAPS) or msg == "__module__")


def same(a, b, random=False):
    """Whether two encoded results agree; returns (bool, reason)."""
    if a[0] == "E" or b[0] == "E":
        if a[0] == b[0] == "E":
            return True, ""
        return False, f"ms {_short(a)} / ml {_short(b)}"
    if a[0] != b[0]:
        return False, f"kind {a[0]} vs {b[0]}"
    if a[0] == "M":
        ok, why = same(a[1], b[1], random)
        if not ok:
            return ok, why
        ok, why = same(a[2], b[2], random)
        return ok, ("receiver: " + why) if not ok else ""
    if a[0] == "L":
        if len(a[1]) != len(b[1]):
            return False, f"{len(a[1])} vs {len(b[1])} outputs"
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            ok, why = same(x, y, random)
            if not ok:
                return False, f"output {i}: {why}"
        return True, ""
    if a[0] == "T":
        if a[1] != b[1] or a[2] != b[2]:
            return False, f"{a[1]}{list(a[2])} vs {b[1]}{list(b[2])}"
        if random:
            return True, ""
        x, y = a[3], b[3]
        if x.dtype.kind in "fc" or a[1] in TOL:
            rtol, atol = TOL.get(a[1], (1e-5, 1e-6))
            with np.errstate(all="ignore"):
                ok = np.allclose(x.astype(np.complex128), y.astype(np.complex128), rtol, atol,
                                 equal_nan=True)
        else:
            ok = np.array_equal(x, y)
        return ok, "" if ok else f"values differ (max |d| {_maxdiff(x, y)})"
    if a[0] == "S" and random:
        return type(a[1]) is type(b[1]), f"{type(a[1]).__name__} vs {type(b[1]).__name__}"
    if a[0] == "S" and isinstance(a[1], float) and isinstance(b[1], (int, float)):
        ok = np.isclose(a[1], b[1], 1e-5, 1e-6, equal_nan=True)
        return bool(ok), "" if ok else f"{a[1]!r} vs {b[1]!r}"
    ok = a[1] == b[1] and type(a[1]) is type(b[1])
    return ok, "" if ok else f"{a[1]!r} vs {b[1]!r}"


def _maxdiff(x, y):
    try:
        with np.errstate(all="ignore"):
            return float(np.nanmax(np.abs(x.astype(np.float64) - y.astype(np.float64))))
    except (TypeError, ValueError):
        return "?"


def _short(r):
    return f"raised {r[1]}: {r[2][:90]}" if r[0] == "E" else "returned"


def compare(ms_payload, ml_payload):
    """Per module: names, names in mindlite, compared calls (of names mindlite has), agreeing
    calls (of which both raised), calls MindSpore's CPU build cannot run; the disagreements."""
    stats, bad, defects = {}, [], []
    for qual, calls in ms_payload["calls"].items():
        mod = qual.rsplit(".", 1)[0]
        st = stats.setdefault(mod, dict.fromkeys(
            ("names", "present", "generated", "calls", "agree", "both_raise",
             "ms_cpu_unsupported", "ml_runs_those", "ms_defect"), 0))
        st["names"] += 1
        present = bool(ml_payload["present"].get(qual))
        st["present"] += present
        st["generated"] += bool(calls) and present
        if not present:
            continue
        for call in calls:
            a, b = ms_payload["results"][call], ml_payload["results"][call]
            if _unsupported_on_cpu(a):
                st["ms_cpu_unsupported"] += 1
                st["ml_runs_those"] += b[0] != "E"
                continue
            defect = templates.ms_defect(call)
            if defect is not None:
                st["ms_defect"] += 1
                defects.append((call, defect))
                if defect != templates.RESULT_ONLY or a[0] != "M" or b[0] != "M":
                    continue
                a, b = a[1], b[1]            # the returned values still compare
            st["calls"] += 1
            ok, why = same(a, b, _is_random(qual))
            st["agree"] += ok
            st["both_raise"] += ok and a[0] == "E"
            if not ok:
                bad.append((qual, call, why))
    return stats, bad, defects


def report(stats, bad, defects, show):
    lines = ["| module | names | in mindlite | with calls | compared calls | agree (both "
             "raise) | rate | MindSpore CPU cannot run | mindlite runs those |",
             "|---" * 9 + "|"]
    tot = [0, 0]
    for mod, st in stats.items():
        rate = st["agree"] / st["calls"] if st["calls"] else 1.0
        tot[0] += st["calls"]
        tot[1] += st["agree"]
        lines.append(f"| {mod} | {st['names']} | {st['present']} | {st['generated']} | "
                     f"{st['calls']} | {st['agree']} ({st['both_raise']}) | {rate:.1%} | "
                     f"{st['ms_cpu_unsupported']} | {st['ml_runs_those']} |")
    rate = tot[1] / tot[0] if tot[0] else 1.0
    lines.append(f"\nAll compared calls: {tot[1]} of {tot[0]} agree ({rate:.2%}).\n")
    if defects:
        lines.append(f"Not compared: {len(defects)} calls where MindSpore 2.10's CPU result is a "
                     f"known defect or a deliberate difference, not reproduced (tools/"
                     f"agreement_templates.py MS_DEFECTS):\n")
        seen = {}
        for call, why in defects:
            seen.setdefault(why, []).append(call)
        lines += [f"- {why}: {', '.join(f'`{c}`' for c in calls[:6])}"
                  f"{' ...' if len(calls) > 6 else ''}" for why, calls in seen.items()]
        lines.append("")
    if bad:
        lines.append(f"Disagreements ({len(bad)}; first {show}):\n")
        lines += [f"- `{call}`: {why}" for _, call, why in bad[:show]]
    return "\n".join(lines)


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
