"""How much of MindSpore 2.10's public API mindlite has, counted name by name, and whether it works.

    python tools/api_coverage.py                 # uses /opt/msvenv/bin/python (MindSpore 2.10)
    python tools/api_coverage.py --snapshot      # reuses tools/mindspore_api_snapshot.json

1. MindSpore's side (run under the MindSpore venv's interpreter, in a child process): the
   public names of each module (`__all__` where defined, else `dir()` without underscores;
   names the module lacks and submodules left out), grouped as the issue 30 table does, and
   for every function, numpy-module name and Tensor method a smoke call: the first pattern of
   tools/api_smoke.py that MindSpore accepts, with its encoded result (called twice: a result
   that changes is random and compared by dtype and shape only, as are the uninitialized
   results of `empty`-like functions and the samplers of api_smoke.SAMPLERS). Written as
   JSON lines, so a MindSpore crash costs one name: the child is restarted and the name is
   marked crashed.
   The result is kept in tools/mindspore_api_snapshot.json (the truth without the venv).
2. mindlite's side (this process): each name looked up at the same path (`mindlite.nn.Dense`
   for `mindspore.nn.Dense`), and each smoke call MindSpore accepted replayed and compared.
3. The table goes into docs/mindspore_api.md between the `api-coverage` markers.

A name "works" when it exists and its smoke call (where there is one) agrees with MindSpore.
"""
import argparse
import importlib
import inspect
import json
import os
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import api_smoke  # noqa: E402

MS_PYTHON = "/opt/msvenv/bin/python"
SNAPSHOT = os.path.join(HERE, "mindspore_api_snapshot.json")
DOC = os.path.join(os.path.dirname(HERE), "docs", "mindspore_api.md")
BEGIN, END = "<!-- api-coverage:begin -->", "<!-- api-coverage:end -->"

# Groups whose names get smoke calls: "function" (module-level callables), "method" (Tensor).
SMOKED = {"ops functions": "function", "Tensor": "method", "numpy": "function",
          "mint": "function", "mint.nn.functional": "function", "mint.special": "function",
          "mint.linalg": "function", "scipy": "function"}


def public(module):
    """`__all__` (deduplicated) where defined, else dir() without underscores; names the
    module does not have and submodules are left out."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    out = []
    for n in dict.fromkeys(names):
        if hasattr(module, n) and not inspect.ismodule(getattr(module, n)):
            out.append(n)
    return out


# ---------------------------------------------------------------- MindSpore's side (child)

def ms_groups():
    """[(group, path, name)] of MindSpore 2.10's public API, in the issue 30 table's rows."""
    import mindspore as ms
    from mindspore.ops.primitive import Primitive

    def mod(path):
        return importlib.import_module("mindspore" + ("." + path if path else ""))

    rows = [("top level", "", n) for n in public(ms)]
    ops = mod("ops")
    for n in public(ops):
        obj = getattr(ops, n)
        prim = inspect.isclass(obj) and issubclass(obj, Primitive)
        rows.append(("ops primitives" if prim else "ops functions", "ops", n))
    rows += [("Tensor", "Tensor", n) for n in dir(ms.Tensor) if not n.startswith("_")]
    nn_names = public(mod("nn"))
    sub = {"nn losses": public(mod("nn.loss")), "nn optimizers": public(mod("nn.optim")),
           "nn lr schedules": public(mod("nn.learning_rate_schedule")) +
           public(mod("nn.dynamic_lr")), "nn metrics": public(mod("nn.metrics"))}
    grouped = {n: g for g, names in sub.items() for n in names}
    rows += [(grouped.get(n, "nn Cells"), "nn", n) for n in nn_names]
    for path in ("dataset", "dataset.transforms", "dataset.vision", "dataset.text"):
        rows += [(path, path, n) for n in public(mod(path))]
    train = public(mod("train"))
    cb, met = public(mod("train.callback")), public(mod("train.metrics"))
    for group, names in (("train callbacks", cb), ("train metrics", met)):
        home = "train.callback" if group == "train callbacks" else "train.metrics"
        rows += [(group, "train" if n in train else home, n) for n in names]
    rows += [("train other", "train", n) for n in train if n not in cb and n not in met]
    for path in ("mint", "mint.nn", "mint.nn.functional", "mint.optim", "mint.linalg",
                 "mint.special", "mint.distributed", "numpy"):
        rows += [(path, path, n) for n in public(mod(path))]
    for path in ("scipy.linalg", "scipy.optimize", "scipy.fft"):
        rows += [("scipy", path, n) for n in public(mod(path))]
    for path in ("hal", "experimental.optim"):
        rows += [(path, path, n) for n in public(mod(path))]
    return rows


def resolve(root, path, name):
    """root.<path>.<name>, or raise (AttributeError / ImportError)."""
    if path == "Tensor":
        return getattr(root.Tensor, name)
    module = importlib.import_module(root.__name__ + ("." + path if path else ""))
    return getattr(module, name)


def smoke(fn, kind, patterns, tensor, receiver=None):
    """(pattern, encoded result) of the first pattern fn accepts, or (None, error)."""
    last = ""
    for pattern in patterns:
        args = api_smoke.build_args(pattern, tensor)
        try:
            if kind == "method":
                target = getattr(args[0], fn)
                out = target if not callable(target) else \
                    api_smoke.call_with_timeout(target, args[1:])
            else:
                out = api_smoke.call_with_timeout(fn, args)
            return list(pattern), api_smoke.encode(out)
        except Exception as exc:      # noqa: BLE001 (any refusal: try the next pattern)
            last = f"{type(exc).__name__}"
    return None, last


def ms_side(out_path):
    """Append one JSON line per name to out_path, skipping names already there."""
    import mindspore as ms
    warnings.filterwarnings("ignore")
    done, started = set(), None
    if os.path.exists(out_path):
        with open(out_path) as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("start"):
                    started = (rec["path"], rec["name"])
                else:
                    done.add((rec["path"], rec["name"]))
    rows = ms_groups()
    with open(out_path, "a") as f:
        if started and started not in done:           # the last run died inside this call
            group = next(g for g, p, n in rows if (p, n) == started)
            f.write(json.dumps({"group": group, "path": started[0], "name": started[1],
                                "result": "crashed MindSpore", "pattern": None}) + "\n")
            done.add(started)
        for group, path, name in rows:
            if (path, name) in done:
                continue
            rec = {"group": group, "path": path, "name": name}
            kind = SMOKED.get(group if not group.startswith("scipy") else "scipy")
            obj = resolve(ms, path, name)
            if kind and (kind == "method" or (callable(obj) and not inspect.isclass(obj))):
                f.write(json.dumps({"path": path, "name": name, "start": True}) + "\n")
                f.flush()
                patterns = api_smoke.METHOD_PATTERNS if kind == "method" else \
                    api_smoke.FUNCTION_PATTERNS
                pattern, out = smoke(name if kind == "method" else obj, kind, patterns,
                                     ms.Tensor)
                rec["pattern"], rec["result"] = pattern, out
                if pattern is not None:
                    _, again = smoke(name if kind == "method" else obj, kind, [pattern],
                                     ms.Tensor)
                    rec["random"] = bool(api_smoke.agree(out, again)) or \
                        api_smoke.values_undefined(name)
            f.write(json.dumps(rec) + "\n")
            f.flush()
    return 0


def collect_mindspore(scratch):
    """Run ms_side in MindSpore's venv until it finishes; return its records."""
    env = dict(os.environ, GLOG_v="3", PYTHONWARNINGS="ignore")
    env.pop("PYTHONPATH", None)
    for _ in range(200):
        proc = subprocess.run([MS_PYTHON, os.path.abspath(__file__), "--mindspore-side",
                               scratch], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, cwd="/tmp")
        if proc.returncode == 0:
            break
    with open(scratch) as f:
        recs = [json.loads(line) for line in f]
    return [r for r in recs if not r.get("start")]


# ---------------------------------------------------------------- mindlite's side

def check_mindlite(records):
    """Add exists / compared / agrees (and why not) to every record."""
    import mindlite
    warnings.filterwarnings("ignore")
    for r in records:
        try:
            obj = resolve(mindlite, r["path"], r["name"])
            r["exists"] = True
        except Exception:             # noqa: BLE001 (absent module or name)
            r["exists"] = False
            continue
        pattern = r.get("pattern")
        if not pattern:
            continue
        kind = SMOKED.get(r["group"] if not r["group"].startswith("scipy") else "scipy")
        args = api_smoke.build_args(pattern, mindlite.Tensor)
        r["compared"] = True
        try:
            if kind == "method":
                target = getattr(args[0], r["name"])
                out = target if not callable(target) else \
                    api_smoke.call_with_timeout(target, args[1:])
            else:
                out = api_smoke.call_with_timeout(obj, args)
            why = api_smoke.agree(r["result"], api_smoke.encode(out),
                                  values=not (r.get("random")
                                              or api_smoke.values_undefined(r["name"])))
        except Exception as exc:      # noqa: BLE001
            why = f"{type(exc).__name__}: {str(exc)[:100]}"
        r["agrees"] = not why
        if why:
            r["why"] = why
    return records


ORDER = ["top level", "ops functions", "ops primitives", "Tensor", "nn Cells", "nn losses",
         "nn optimizers", "nn lr schedules", "nn metrics", "dataset", "dataset.transforms",
         "dataset.vision", "dataset.text", "train callbacks", "train metrics", "train other",
         "mint", "mint.nn", "mint.nn.functional", "mint.optim", "mint.linalg", "mint.special",
         "mint.distributed", "numpy", "scipy", "hal", "experimental.optim"]


def table(records):
    """The markdown table: per group names, exist, compared, agree, work (%)."""
    rows = ["| MindSpore 2.10 module | names | exist in mindlite | smoke calls compared | "
            "agree | work | % |", "|---|---:|---:|---:|---:|---:|---:|"]
    total = [0, 0, 0, 0, 0]
    for group in ORDER:
        rs = [r for r in records if r["group"] == group]
        n = len(rs)
        exist = sum(r.get("exists", False) for r in rs)
        comp = sum(r.get("compared", False) for r in rs)
        agr = sum(r.get("agrees", False) for r in rs)
        work = exist - (comp - agr)
        for i, v in enumerate((n, exist, comp, agr, work)):
            total[i] += v
        label = "top level `mindspore`" if group == "top level" else f"`{group}`"
        rows.append(f"| {label} | {n} | {exist} | {comp} | {agr} | {work} | "
                    f"{100 * work / max(n, 1):.0f}% |")
    n, exist, comp, agr, work = total
    rows.append(f"| **all** | **{n}** | **{exist}** | **{comp}** | **{agr}** | **{work}** | "
                f"**{100 * work / n:.0f}%** |")
    differ = [f"`{r['path']}.{r['name']}({', '.join(r['pattern'])})` ({r['why'][:60]})"
              for r in records if r.get("compared") and not r.get("agrees")]
    if differ:
        rows.append(f"\nSmoke calls agreeing: {agr} of {comp} ({100 * agr / comp:.2f}%). "
                    f"Differing: " + "; ".join(differ) + ".")
    return "\n".join(rows)


def write_doc(text):
    with open(DOC) as f:
        doc = f.read()
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in doc:
        head, rest = doc.split(BEGIN, 1)
        doc = head + block + rest.split(END, 1)[1]
    else:
        doc = doc.rstrip("\n") + "\n\n## Coverage of MindSpore 2.10's public API\n\n" + \
            block + "\n"
    with open(DOC, "w") as f:
        f.write(doc)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mindspore-side", help=argparse.SUPPRESS)
    ap.add_argument("--snapshot", action="store_true",
                    help="use tools/mindspore_api_snapshot.json instead of MindSpore's venv")
    ap.add_argument("--no-doc", action="store_true", help="print the table only")
    ap.add_argument("--json", help="write every record (with exists/agrees/why) here")
    args = ap.parse_args(argv)
    if args.mindspore_side:
        return ms_side(args.mindspore_side)
    if args.snapshot or not os.path.exists(MS_PYTHON):
        with open(SNAPSHOT) as f:
            records = json.load(f)
    else:
        scratch = os.path.join("/tmp", f"api_coverage_ms_{os.getpid()}.jsonl")
        records = collect_mindspore(scratch)
        os.remove(scratch)
        with open(SNAPSHOT, "w") as f:
            json.dump(records, f, separators=(",", ":"))
    records = check_mindlite([dict(r) for r in records])
    text = table(records)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=0)
    if not args.no_doc:
        intro = ("Generated by `python tools/api_coverage.py` (do not edit by hand): MindSpore "
                 "2.10's public names per module (`__all__`, else `dir()` without "
                 "underscores), looked up at the same path in mindlite; a smoke call "
                 "(tools/api_smoke.py) of each function and Tensor method that MindSpore's "
                 "CPU build accepts is replayed on mindlite and compared (dtype, shape, "
                 "values; random results and uninitialized `empty` values by dtype and "
                 "shape). *work* = exist minus "
                 "compared calls that disagree.\n\n")
        write_doc(intro + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
