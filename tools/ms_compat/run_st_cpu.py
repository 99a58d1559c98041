"""Run MindSpore's own CPU op tests (files of mindspore-ai/mindspore's tests/st/ops/cpu, fetched
into a folder outside this repository) on mindlite and on real MindSpore, and compare.

    python tools/ms_compat/run_st_cpu.py FOLDER_OR_FILES... [--ms-python /opt/msvenv/bin/python]
        [--pytest-path DIR] [--only mindlite|mindspore] [--out results.json] [--timeout 300]
        [--reuse earlier.json]

Each file runs in its own pytest process per engine (MindSpore's CI also runs one process
per file; a hang or a crash costs that file only), with this folder's conftest.py as a
plugin and its `tests` package (tests.mark_utils). On mindlite, the `mindspore` alias
package (tools/ms_compat/mindspore) is first on the path; on MindSpore, its own Python runs
the same files (`--pytest-path` adds a folder holding pytest for a MindSpore venv without
it). The summary: per file the tests passed on each engine, the totals, mindlite's share
of MindSpore's passes, and every test MindSpore passes and mindlite does not, with the
first line of its error. `--reuse` takes a file's results from an earlier `--out` file
instead of running it again (MindSpore's baseline does not change while mindlite is being
fixed), except the engine `--only` names, which always runs; `--out` adds to (or replaces)
the files' entries already in the file it names.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _outcomes(xml_path):
    """{test name: (outcome, first line of the message)} from a JUnit XML report."""
    out = {}
    try:
        tree = ET.parse(xml_path)
    except (OSError, ET.ParseError):
        return out
    for case in tree.iter("testcase"):
        name = case.get("name")
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                outcome = "skipped" if tag == "skipped" else "failed"
                message = (el.get("message") or el.text or "").strip().splitlines()
                message = message[0][:240] if message else ""
                break
        out[name] = (outcome, message)
    return out


def run_file(path, engine, python, pytest_path, timeout):
    """One file under one engine: {test: (outcome, message)}; a crash or hang: {"<file>": ...}."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, MS_COMPAT_ENGINE=engine)
        if engine == "mindlite":
            paths = [HERE, ROOT]
        else:                           # MindSpore's own package, our conftest and tests/
            os.symlink(os.path.join(HERE, "conftest.py"), os.path.join(tmp, "conftest.py"))
            os.symlink(os.path.join(HERE, "tests"), os.path.join(tmp, "tests"))
            paths = [tmp] + ([pytest_path] if pytest_path else [])
        env["PYTHONPATH"] = os.pathsep.join(paths)
        xml = os.path.join(tmp, "report.xml")
        cmd = [python, "-m", "pytest", path, "-q", "-p", "no:cacheprovider", "-p", "conftest",
               f"--junitxml={xml}", "-o", "junit_family=xunit1", "--rootdir", tmp]
        try:
            proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"<file>": ("failed", f"timed out after {timeout} s")}
        got = _outcomes(xml)
        if not got:
            tail = (proc.stdout + proc.stderr).strip().splitlines()
            return {"<file>": ("failed", f"no report (exit {proc.returncode}): "
                                         f"{tail[-1][:240] if tail else ''}")}
        return got


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="+", help="folders of test_*.py files, or files")
    p.add_argument("--ms-python", default="/opt/msvenv/bin/python")
    p.add_argument("--pytest-path", default="")
    p.add_argument("--only", choices=("mindlite", "mindspore"))
    p.add_argument("--out", default="")
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--reuse", default="", help="earlier --out file: its results are kept, "
                                               "except the engine --only names")
    args = p.parse_args(argv)
    files = []
    for path in args.paths:
        files += (sorted(glob.glob(os.path.join(path, "test_*.py"))) if os.path.isdir(path)
                  else [path])
    engines = [e for e in ("mindspore", "mindlite") if args.only in (None, e)]
    pythons = {"mindlite": sys.executable, "mindspore": args.ms_python}
    earlier = {}
    if args.reuse and os.path.exists(args.reuse):
        with open(args.reuse) as f:
            earlier = json.load(f)
    results = {}
    for path in files:
        name = os.path.basename(path)
        old = earlier.get(name, {})
        results[name] = {}
        for e in ("mindspore", "mindlite"):
            if e in old and args.only != e:     # an engine named by --only always runs
                results[name][e] = {k: tuple(v) for k, v in old[e].items()}
            elif e in engines:
                results[name][e] = run_file(path, e, pythons[e], args.pytest_path, args.timeout)
        counts = " ".join(f"{e} {sum(o == 'passed' for o, _ in results[name][e].values())}"
                          f"/{len(results[name][e])}" for e in results[name])
        print(f"{name}: {counts}", flush=True)
    if args.out:                        # merged into what the file already holds
        merged = {}
        if os.path.exists(args.out):
            with open(args.out) as f:
                merged = json.load(f)
        for name, r in results.items():
            merged.setdefault(name, {}).update(r)
        with open(args.out, "w") as f:
            json.dump(merged, f, indent=1)
    if all(len(r) == 2 for r in results.values()):
        summarize(results)
    return 0


def summarize(results):
    ms_pass = ml_pass = both = 0
    missing = []
    for name, r in results.items():
        for test, (outcome, _) in r["mindspore"].items():
            if outcome != "passed":
                continue
            ms_pass += 1
            mine = r["mindlite"].get(test) or r["mindlite"].get("<file>") or ("failed", "absent")
            if mine[0] == "passed":
                both += 1
            else:
                missing.append(f"{name}::{test}: {mine[1]}")
        ml_pass += sum(o == "passed" for o, _ in r["mindlite"].values())
    print(f"\n{len(results)} files; MindSpore passes {ms_pass}, mindlite {ml_pass}; of "
          f"MindSpore's passes mindlite passes {both} "
          f"({100.0 * both / max(ms_pass, 1):.1f}%)")
    for line in missing:
        print("  not on mindlite:", line)


if __name__ == "__main__":
    sys.exit(main())
