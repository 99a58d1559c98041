"""The differential program fuzzer's bounded CI run (mindlite/testing/): a fixed-seed set of
generated programs (tensor and constant if/elif, while, for, closures, a Cell with
Parameters and a sub-Cell, assign / assign_add / print / item assignment, a dynamic batch,
value_and_grad) runs eagerly, under jit (static and with the batch dynamic at sizes 1, 2, 4,
7, 5), through MINDIR, ONNX + onnxruntime and the Lite runtime; every path gives eager's
outputs, dtypes, Parameter updates and printed text, or refuses clearly. Longer runs:
`python -m mindlite.testing.fuzz --minutes N`."""
import pytest
from hypothesis import HealthCheck, given, settings

from mindlite.testing import fuzz

pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")
STATS = fuzz.Stats()


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(fuzz.programs())
def test_every_path_gives_eager_results_or_refuses(program):
    fuzz.run_checks(program, fuzz.ALL, STATS)


def test_the_run_covered_the_constructs():
    if STATS.programs == 0:
        pytest.skip("runs after the fuzz test")
    used = {f.split(":")[0] for f in STATS.features}
    assert {"if_tensor", "while_tensor", "for_range", "closure", "assign", "print",
            "setitem_param", "sub_cell", "if_dyn_dim", "grad_program"} <= used, used
    assert STATS.programs - STATS.invalid >= 150


def test_a_path_that_does_not_finish_is_interrupted(monkeypatch):
    import time

    from mindlite.testing import path_runs
    monkeypatch.setattr(path_runs, "PATH_LIMIT_S", 1)
    with pytest.raises(path_runs._Hang):
        path_runs._within_limit(time.sleep, 5)
    assert path_runs._within_limit(lambda x: x + 1, 1) == 2


def test_a_hanging_path_is_kept_with_where_it_was(monkeypatch, tmp_path):
    import time

    from mindlite.testing import path_runs
    from mindlite.testing.program import Program
    program = Program("class Net:\n    pass\n", [("float32", ("B", 2))], {"pure"})
    monkeypatch.setattr(path_runs, "PATH_LIMIT_S", 1)
    monkeypatch.setattr(path_runs, "INFLIGHT", str(tmp_path / "inflight.py"))
    monkeypatch.setattr(path_runs, "module_of", lambda p: None)
    monkeypatch.setattr(path_runs, "run_calls", lambda call, calls, net=None: [])
    monkeypatch.setattr(path_runs, "inputs", lambda p, b, s: ())

    class Mod:
        class Net:
            construct = None
    monkeypatch.setattr(path_runs, "module_of", lambda p: Mod)

    def run_slow(program, mod, calls, oracle):
        time.sleep(5)
    monkeypatch.setattr(path_runs, "run_slow", run_slow, raising=False)
    report = path_runs.check(program, ("slow",))
    assert report.ran["slow"] == "finding" and "run_slow" in report.findings[0].what
    kept = fuzz.load_program(str(tmp_path / "hang_001_slow.py"))
    assert kept.source == program.source and kept.inputs == program.inputs
    assert "[slow]" in (tmp_path / "inflight.py").read_text()
