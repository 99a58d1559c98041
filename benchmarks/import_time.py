"""Import time and memory: `import mindlite` vs `import numpy` / `import torch`, fresh processes.

    python benchmarks/import_time.py [-n 15] [--bytecode cached,env] [--stmt "import x" ...]
                                     [--baseline DIR] [--no-torch]

Each statement runs N times as `python -c STMT` in a fresh child (sys.executable: a
pyenv shim would add its own ~0.1 s of bash), the statements interleaved round-robin
so that load on the machine falls on all alike. Per statement: median and p90 wall
time of the child, the same net of the interpreter's own start (`pass`), its
CPU time (user + system) and peak RSS (both from os.wait4: the CPU time is
steadier than wall time on a shared machine). Ratios (of wall medians) are against
numpy and torch.
`--baseline DIR` adds `import mindlite` run from another checkout (e.g. `git archive
HEAD` unpacked), interleaved with the rest: before/after on a loaded machine.

"import mindlite + first op" adds a 4x4 ReLU: the first op imports the executor,
backend and every kernel module.

Bytecode modes (one table each):
  cached  the children read and write .pyc files under a private PYTHONPYCACHEPREFIX,
          warmed by one run first: an installed package (pip compiles on install).
  env     the children inherit this environment; with PYTHONDONTWRITEBYTECODE=1 (set
          on this VM) a source checkout without __pycache__ compiles every module it
          imports on every start, which costs more than all of mindlite's import.
Last, the heavy modules a bare `import mindlite` pulls in (none expected).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_S, TARGET_MB = 0.3, 80
FIRST_OP = ("import numpy as np, mindlite as ms; "
            "ms.ops.ReLU()(ms.Tensor(np.ones((4, 4), np.float32)))")
HEAVY = ("numba", "scipy", "torch", "sklearn", "matplotlib", "tqdm", "google.protobuf",
         "numpy.random", "llvmlite", "pandas")


def _installed(name):
    r = subprocess.run([sys.executable, "-c", f"import importlib.util as u; "
                        f"raise SystemExit(u.find_spec({name!r}) is None)"],
                       capture_output=True, cwd=ROOT)
    return r.returncode == 0


def run_once(code, cwd, env):
    """(wall s, CPU s, peak RSS MB) of one fresh `python -c code` run in `cwd`."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"`{code}` failed:\n{err}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024     # Linux: ru_maxrss in KiB


def measure(cases, n, env):
    """{label: ([wall s], [CPU s], [rss MB])} for cases (label, code, cwd), round-robin."""
    for _, code, cwd in cases:                   # warm the OS file cache (and bytecode)
        run_once(code, cwd, env)
    res = {label: ([], [], []) for label, _, _ in cases}
    for _ in range(n):
        for label, code, cwd in cases:
            for acc, v in zip(res[label], run_once(code, cwd, env)):
                acc.append(v)
    return res


def _p90(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]


def print_table(res, title):
    base = statistics.median(res["pass"][0])
    med = {s: statistics.median(w) for s, (w, _, _) in res.items()}
    print(f"\n### {title}\n")
    print("| statement | median s | p90 s | net of `pass` s | CPU s (median) | peak RSS MB | "
          "vs numpy | vs torch |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for stmt, (walls, cpus, rss) in res.items():
        r_np = f"{med[stmt] / med['import numpy']:.2f}" if "import numpy" in med else "-"
        r_t = f"{med[stmt] / med['import torch']:.2f}" if "import torch" in med else "-"
        print(f"| `{stmt}` | {med[stmt]:.3f} | {_p90(walls):.3f} | {med[stmt] - base:.3f} | "
              f"{statistics.median(cpus):.3f} | {max(rss):.1f} | {r_np} | {r_t} |")
    if "import mindlite" in res:
        rss = res["import mindlite"][2]
        ok = med["import mindlite"] <= TARGET_S and max(rss) <= TARGET_MB
        print(f"\ntarget `import mindlite` <= {TARGET_S} s and <= {TARGET_MB} MB: "
              f"{med['import mindlite']:.3f} s, {max(rss):.1f} MB -> {'met' if ok else 'NOT met'}"
              f" (`pass` alone: {base:.3f} s; on a loaded machine compare the ratios)")


def heavy_modules(env):
    code = ("import sys, mindlite; print(' '.join(m for m in %r if m in sys.modules))" % (HEAVY,))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", type=int, default=15, help="runs per statement (default 15)")
    p.add_argument("--bytecode", default="cached,env", help="modes: cached, env (default both)")
    p.add_argument("--stmt", action="append", default=[],
                   help="an extra statement to time, e.g. 'import mindlite; mindlite.nn'")
    p.add_argument("--baseline", metavar="DIR", help="also time `import mindlite` from DIR")
    p.add_argument("--no-torch", action="store_true", help="leave out `import torch`")
    args = p.parse_args()
    names = ["pass", "import numpy"]
    if not args.no_torch and _installed("torch"):
        names.append("import torch")
    cases = [(c, c, ROOT) for c in names + ["import mindlite"]]
    cases.append(("import mindlite + first op", FIRST_OP, ROOT))
    if args.baseline:
        base = os.path.abspath(args.baseline)
        cases += [("import mindlite [baseline]", "import mindlite", base),
                  ("import mindlite + first op [baseline]", FIRST_OP, base)]
    cases += [(c, c, ROOT) for c in args.stmt]
    print(f"python {sys.version.split()[0]} ({sys.executable}), {os.cpu_count()} CPUs, "
          f"{args.n} runs per statement, cwd {ROOT}")
    for mode in args.bytecode.split(","):
        env = dict(os.environ)
        tmp = None
        if mode == "cached":
            tmp = tempfile.mkdtemp(prefix="mindlite_pyc_")
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = tmp
            title = "bytecode cached (as installed)"
        elif mode == "env":
            title = ("this environment (PYTHONDONTWRITEBYTECODE="
                     f"{os.environ.get('PYTHONDONTWRITEBYTECODE', 'unset')})")
        else:
            raise SystemExit(f"--bytecode: unknown mode {mode!r}")
        try:
            print_table(measure(cases, args.n, env), title)
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
    heavy = heavy_modules(dict(os.environ))
    print(f"\nheavy modules after `import mindlite`: {' '.join(heavy) if heavy else 'none'}")


if __name__ == "__main__":
    main()
