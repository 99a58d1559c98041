"""The differential program fuzzer: hypothesis strategies over program.py's generator, the
bounded run CI makes (tests/test_fuzz_programs.py) and long runs:

    python -m mindlite.testing.fuzz --minutes 30 [--seed 0] [--out DIR] [--paths jit,onnx]
                                    [--mindspore /opt/msvenv/bin/python]

Every program is checked on every path (paths.py); a disagreement is shrunk by hypothesis to
a small program, which is written to DIR (default ./fuzz_findings) as a module whose
docstring says what differed: copy it to tests/fuzz_programs/ and it becomes a regression
test (tests/test_fuzz_regressions.py runs each). The program running is in DIR/inflight.py
(a crash that kills the process leaves it), a hang goes to DIR/hang_NNN_<path>.py at once.
The summary counts programs, the constructs they used, each path's verdicts and the
refusals by message. With --mindspore,
the valid programs also run in MindSpore's GRAPH_MODE (mindspore.py) and differences from
mindlite's eager results are listed (MindSpore's own refusals are counted, not reported).
"""
import argparse
import collections
import faulthandler
import os
import re
import sys
import time

from . import path_runs
from .path_runs import check
from .paths import ALL, Finding
from .program import generate


def programs(grad=None):
    """A hypothesis strategy of Programs (grad: None = either kind)."""
    from hypothesis import strategies as st

    @st.composite
    def strategy(draw):
        class Choices:
            def pick(self, options):
                return draw(st.sampled_from(options))

            def integer(self, lo, hi):
                return draw(st.integers(lo, hi))

            def boolean(self, p=0.5):            # shrinks toward False: fewer constructs
                return draw(st.integers(0, 99)) >= 100 - round(100 * p)
        g = draw(st.integers(0, 3)) == 3 if grad is None else grad
        return generate(Choices(), grad=g)
    return strategy()


class Stats:
    def __init__(self):
        self.programs = 0
        self.invalid = 0
        self.features = collections.Counter()
        self.verdicts = collections.Counter()
        self.refusals = collections.Counter()
        self.findings = []
        self.known = collections.Counter()

    def add(self, report):
        self.programs += 1
        if not report.valid:
            self.invalid += 1
            return
        self.features.update(report.program.features)
        for path, v in report.ran.items():
            self.verdicts[(path, v.split(":")[0])] += 1
            if v.startswith("refused"):
                self.refusals[(path, _normal(v))] += 1

    def summary(self):
        lines = [f"programs: {self.programs} ({self.invalid} invalid: eager raised)",
                 f"findings: {len(self.findings)}"]
        lines += [f"known (filed) findings: {n} x {r}" for r, n in self.known.items()]
        lines.append("verdicts:")
        lines += [f"  {p:8} {v:8} {n}" for (p, v), n in sorted(self.verdicts.items())]
        lines.append("constructs (programs using each):")
        groups = collections.Counter()
        for f, n in self.features.items():
            groups[f.split(":")[0]] += n
        lines += [f"  {f:16} {n}" for f, n in sorted(groups.items())]
        lines.append(f"  elementwise primitives drawn: "
                     f"{len([f for f in self.features if f.startswith(('unary:', 'binary:'))])}")
        lines.append("refusals (most common):")
        lines += [f"  {n:5} {p}: {m}" for (p, m), n in self.refusals.most_common(12)]
        return "\n".join(lines)


def _normal(verdict):
    v = re.sub(r"@?\w*mindlite_fuzz_\w+", "<graph>", verdict)
    v = re.sub(r"'/tmp/[^']*'", "<file>", v)
    return re.sub(r"-op\d+", "", v)[:110]


# Findings already filed against another part: (path, message pattern, issue), counted and
# listed instead of raised. Empty: the Lite control-flow ones (issue 28 5(b)/(c), "list
# indices must be integers or slices, not _Switch" / "... not tuple") are fixed on main.
KNOWN = []


def known(finding):
    """The filed issue a finding is an instance of, or None."""
    for path, pattern, reason in KNOWN:
        if finding.path == path and pattern.search(finding.what):
            return reason
    return None


def run_checks(program, paths, stats):
    report = check(program, paths)
    stats.add(report)
    for f in report.findings:
        reason = known(f)
        if reason is None:
            raise f
        stats.known[reason] += 1
    return report


def load_program(path):
    """A Program from a file write_finding wrote (tests/fuzz_programs/*.py)."""
    import ast
    from .program import Program
    source = open(path).read()
    doc = ast.get_docstring(ast.parse(source)) or ""
    meta = dict(line.split(": ", 1) for line in doc.splitlines()[1:] if ": " in line)
    body = source[source.index('"""', 3) + 4:]
    return Program(body, ast.literal_eval(meta["inputs"]),
                   set(ast.literal_eval(meta["features"])))


def search(seed, examples, paths, stats):
    """One hypothesis search of `examples` programs; the shrunk Finding or None."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    @hseed(seed)
    @settings(max_examples=examples, deadline=None, database=None, print_blob=False,
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(programs())
    def one(program):
        run_checks(program, paths, stats)
    try:
        one()
    except Finding as f:
        return f
    return None


def write_finding(finding, out, k):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"finding_{k:03d}_{finding.path}.py")
    with open(path, "w") as f:
        f.write(path_runs.program_file(finding.program,
                                       f"finding [{finding.path}]: {finding.what}"))
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m mindlite.testing.fuzz",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=100, help="programs per hypothesis search")
    ap.add_argument("--paths", default=",".join(ALL))
    ap.add_argument("--out", default="fuzz_findings")
    ap.add_argument("--mindspore", default=None,
                    help="a MindSpore venv's python: also compare its GRAPH_MODE")
    args = ap.parse_args(argv)
    paths = tuple(p for p in args.paths.split(",") if p)
    stats = Stats()
    os.makedirs(args.out, exist_ok=True)
    inflight = os.path.join(args.out, "inflight.py")
    if os.path.exists(inflight):          # a program that killed an earlier run
        os.replace(inflight, os.path.join(args.out, f"crashed_{int(time.time())}.py"))
    path_runs.INFLIGHT = inflight
    crash_log = open(os.path.join(args.out, "crash_traceback.txt"), "w")
    faulthandler.enable(crash_log)       # a segfault's Python stack goes beside the program
    end = time.time() + 60 * args.minutes
    seed = args.seed
    while time.time() < end:
        finding = search(seed, args.batch, paths, stats)
        if finding is not None:
            stats.findings.append(finding)
            where = write_finding(finding, args.out, len(stats.findings))
            print(f"finding {len(stats.findings)} (seed {seed}) [{finding.path}] "
                  f"{finding.what[:300]}\n  -> {where}", flush=True)
        seed += 1
        print(f"[{time.strftime('%H:%M:%S')}] seed {seed}: {stats.programs} programs, "
              f"{len(stats.findings)} findings", flush=True)
    if args.mindspore:
        from .mindspore import compare_with_mindspore
        print(compare_with_mindspore(args.mindspore, args.seed, min(stats.programs, 200)))
    print(stats.summary())
    path_runs.INFLIGHT = None
    os.remove(inflight)                    # the run ended: no program died
    return 1 if stats.findings else 0


if __name__ == "__main__":
    sys.exit(main())
