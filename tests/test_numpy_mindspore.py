"""mindlite.numpy against MindSpore 2.10's observed results: every numpy-module call that
tools/api_coverage.py recorded on MindSpore (tools/mindspore_api_snapshot.json: the
arguments pattern and MindSpore's encoded result) is replayed on mindlite and must agree in
dtype, shape and values (random functions in dtype and shape). The snapshot is MindSpore's
own output, so CI checks against MindSpore without having it installed; with
/opt/msvenv, `python tools/api_coverage.py` refreshes it."""
import json
import os
import sys

import pytest

import mindlite
from mindlite import ops

TOOLS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "tools")
sys.path.insert(0, TOOLS)
import api_smoke  # noqa: E402

with open(os.path.join(TOOLS, "mindspore_api_snapshot.json")) as _f:
    _RECORDS = [r for r in json.load(_f) if r["group"] == "numpy"]

# The elementwise functions that need the transcendental primitives (Tan, Atan, Log1p, ...).
NEEDS = {"tan": "Tan", "arcsin": "Asin", "arccos": "ACos", "arctan": "Atan", "sinh": "Sinh",
         "cosh": "Cosh", "arcsinh": "Asinh", "arccosh": "Acosh", "arctanh": "Atanh",
         "exp2": "Exp2", "expm1": "Expm1", "log2": "Log2", "log10": "Log10", "log1p": "Log1p",
         "trunc": "Trunc", "fix": "Trunc", "arctan2": "Atan2", "hypot": "Hypot",
         "logaddexp": "Log1p", "logaddexp2": "Exp2"}


def test_every_numpy_name_exists():
    names = [r["name"] for r in _RECORDS]
    assert len(names) == 249
    missing = [n for n in names if not hasattr(mindlite.numpy, n)]
    assert not missing


@pytest.mark.parametrize("rec", [r for r in _RECORDS if r.get("pattern") is not None],
                         ids=lambda r: r["name"])
def test_agrees_with_mindspore(rec):
    name = rec["name"]
    if name in NEEDS and not hasattr(ops.operations, NEEDS[name]):
        pytest.skip(f"needs the {NEEDS[name]} primitive (branch api_mint, issue 30 item 4)")
    fn = getattr(mindlite.numpy, name)
    out = fn(*api_smoke.build_args(rec["pattern"], mindlite.Tensor))
    why = api_smoke.agree(rec["result"], api_smoke.encode(out), values=not rec.get("random"))
    assert not why, f"{name}{tuple(rec['pattern'])}: {why}"
