"""Programs the fuzzer found disagreeing (shrunk by hypothesis, tests/fuzz_programs/*.py:
each file's docstring says what differed), checked again on every path: each now gives
eager's results or a clear refusal."""
import glob
import os

import pytest

from mindlite.testing import fuzz

pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")
FILES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "fuzz_programs", "*.py")))


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_found_program_agrees_now(path):
    program = fuzz.load_program(path)
    report = fuzz.check(program)
    assert report.valid
    real = [f for f in report.findings if fuzz.known(f) is None]
    assert not real, real[0]
