"""The jit caches under threads and their bounds: four threads calling a @jit function for
the first time at once (and with a full, evicting signature cache) get eager's results; the
parser's source caches (jit/parse.py _SOURCES, _FILE_TREES) stay within their caps in
mindlite/cache_limits.py."""
import ast

import numpy as np

import mindlite as ms
from mindlite import cache_limits
from mindlite.jit import api as jit_api
from mindlite.jit.parse import parser as parse

from thread_helpers import _frequent_switches, run_threads  # noqa: F401  (fixture)


def _expected(x, y):
    return np.maximum(x * 2 + y, 0)


def test_first_calls_in_four_threads_match_eager():
    def f(x, y):
        return ms.ops.relu(x * 2 + y)
    jf = ms.jit(f)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    outs = run_threads(lambda i: jf(ms.Tensor(x), ms.Tensor(x)).asnumpy())
    for out in outs:
        np.testing.assert_array_equal(out, _expected(x, x))
    assert 1 <= len(jf.cache) <= jit_api.CACHE_SIZE


def test_evicting_signature_cache_in_four_threads(monkeypatch):
    monkeypatch.setattr(jit_api, "CACHE_SIZE", 2)

    def f(x, y):
        return ms.ops.relu(x * 2 + y)
    jf = ms.jit(f)

    def work(i):
        got = []
        for n in range(1, 7):                  # six shapes through a two-entry cache
            x = np.full((n, i + 1), n - 3, np.float32)
            got.append((x, jf(ms.Tensor(x), ms.Tensor(x)).asnumpy()))
        return got
    for got in run_threads(work):
        for x, out in got:
            np.testing.assert_array_equal(out, _expected(x, x))
    assert len(jf.cache) <= 2


def test_source_caches_stay_within_their_caps(monkeypatch, tmp_path):
    monkeypatch.setattr(cache_limits, "JIT_SOURCE_CAP", 8)
    monkeypatch.setattr(cache_limits, "JIT_FILE_TREE_CAP", 4)
    file = tmp_path / "cell.py"
    file.write_text("def h(x):\n    return x * 2\n")
    for _ in range(40):                        # as a notebook re-running a cell makes them
        ns = {}
        exec(compile(file.read_text(), str(file), "exec"), ns)
        node, _ = parse.function_ast(ns["h"])
        assert node.name == "h"
        assert len(parse._SOURCES) <= 8
    for i in range(10):                        # lambdas are found in their file's ast
        lam = tmp_path / f"lam{i}.py"
        lam.write_text(f"f = (lambda x: x + {i})\n")
        lam_ns = {}
        exec(compile(lam.read_text(), str(lam), "exec"), lam_ns)
        assert isinstance(parse._find_in_file(lam_ns["f"], str(lam)), ast.Lambda)
        assert len(parse._FILE_TREES) <= 4
    out = ms.jit(ns["h"])(ms.Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.full(3, 2, np.float32))

