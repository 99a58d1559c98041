"""The comparison of tools/api_agreement.py: whether MindSpore's and mindlite's encoded
results of one call agree (same structure, shapes, dtypes, values within a tolerance by
dtype, NaN equal to NaN; random ops by shapes and dtypes), whether MindSpore's CPU build
could not run a call at all, the per-module tally and its markdown report.
"""
import numpy as np

import agreement_templates as templates


RANDOM_WORDS = ("rand", "normal", "uniform", "bernoulli", "multinomial", "dropout", "poisson",
                "gamma", "shuffle", "choice", "sample", "laplace", "cauchy", "exponential",
                "random", "gumbel", "rrelu", "log_normal", "empty", "fused_infer", "seed")
TOL = {"Float16": (2e-3, 2e-3), "BFloat16": (1e-2, 1e-2), "Float32": (2e-5, 1e-5),
       "Float64": (1e-10, 1e-12), "Complex64": (2e-5, 1e-5), "Complex128": (1e-10, 1e-12)}


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
