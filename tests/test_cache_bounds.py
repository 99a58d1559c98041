"""Bounded caches (mindlite/cache_limits.py) and index values as runtime inputs (BasicIndex).

Memory: distinct shapes beyond the caps and a long row iteration keep RSS flat once the caps
are reached; cache sizes never exceed their caps; iterating over a tensor uses one runner
whatever its length; results stay equal to numpy's. Caps are lowered in some tests (they
are read at use time) so the bounded counts stay small; benchmarks/cache_memory.py runs the
full counts with the default caps.
"""
import gc
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, _C, abstract, cache_limits, ops
from mindlite.common import dtype as mstype
from mindlite.ops.function import index_func
from mindlite.ops.operations.index_ops import BasicIndex, BasicIndexGrad
from mindlite.ops.primitive import RUNNER_CACHES, clear_runner_caches, runner_count
from mindlite.pynative.executor import PYNATIVE_EXECUTOR


def _held_runners():
    """Runners in every cache, both generations (counted independently of runner_count)."""
    seen = {}
    for cache in RUNNER_CACHES.values():
        seen[id(cache)] = len(cache) + len(getattr(cache, "old", None) or ())
    return sum(seen.values())


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def _graphs():
    from mindlite.backend.session import session_factory
    return session_factory("CPU").graphs


@pytest.fixture
def small_caps(monkeypatch):
    for name, cap in (("RUNNER_CAP", 64), ("INFER_CAP", 64), ("GRAPH_CAP", 64),
                      ("ABSTRACT_CAP", 64), ("GETITEM_PLAN_CAP", 16)):
        monkeypatch.setattr(cache_limits, name, cap)
    clear_runner_caches()                 # runners made under the default caps
    index_func._BASIC_PLANS.clear()
    abstract.abstract_tensor(mstype.float32, (7, 654321))      # a miss: the tables get trimmed
    abstract.abstract_of_array(np.empty((0, 654321), np.int8))  # to the lowered cap
    yield
    clear_runner_caches()


def _shape_step(i, relu, add):
    a = np.arange((i % 97 + 1) * 3, dtype=np.float32).reshape(-1, 3) - 7
    s = (i // 97) + 1
    a = np.broadcast_to(a[:, :1] * s, (a.shape[0], s)).copy()
    x = Tensor(a)
    y = add(relu(x), x)
    np.testing.assert_array_equal(y.asnumpy(), np.maximum(a, 0) + a)
    idx = (slice(None, i % 50 + 1), -1)          # a new plan (slice bounds) for 50 steps
    np.testing.assert_array_equal(x[idx].asnumpy(), a[idx])


def test_row_iteration_runs_one_runner_and_matches_numpy():
    a = np.random.default_rng(0).standard_normal((3000, 3)).astype(np.float32)
    x = Tensor(a)
    rows = list(x[:2])
    before = _held_runners()
    rows = [r.asnumpy() for r in x]
    assert _held_runners() - before <= 1          # the old code kept one runner per row
    np.testing.assert_array_equal(np.stack(rows), a)
    assert [r.shape for r in Tensor(a[:5])] == [(3,)] * 5


@pytest.mark.parametrize("view", ["contiguous", "transposed", "strided", "int64", "empty"])
def test_row_kernel_any_layout_matches_numpy(view):
    a = np.arange(48, dtype=np.float64).reshape(6, 8)
    a = {"contiguous": a, "transposed": a.T, "strided": a[::2, ::3],
         "int64": a.astype(np.int64)[1:], "empty": a[:, :0]}[view]
    rows = [r.asnumpy() for r in Tensor(a)]
    assert len(rows) == a.shape[0]
    for i, r in enumerate(rows):
        assert r.dtype == a.dtype
        np.testing.assert_array_equal(r, a[i])


def test_row_kernel_rejects_bad_arguments_before_writing():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.full(4, -1, np.float32)
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    for args, exc in (((a, 3, out), ValueError), ((a, -4, out), ValueError),
                      ((a, 2**70, out), ValueError), ((a, 1.5, out), TypeError),
                      ((a, 0, np.empty(4, np.float64)), TypeError),
                      ((a, 0, np.empty(3, np.float32)), ValueError), ((a, 0, ro), ValueError),
                      ((a[0, 0], 0, out), TypeError), ((a, 0), TypeError)):
        with pytest.raises(exc, match="BasicIndex|integer"):
            _C.basic_index(*args)
    np.testing.assert_array_equal(out, -1)
    _C.basic_index(a, -1, out)
    np.testing.assert_array_equal(out, a[-1])


def test_general_kernel_checks_layout_starts_and_out():
    a = np.arange(40, dtype=np.float64).reshape(2, 4, 5)
    items = ((-1, 0, 2), (2, 1, 4), (2, 1, 5))
    out = np.full((2, 2), -1.0)
    _C.basic_index(a, 0, 0, 0, out, items)         # a contiguous-stride but gapped view
    np.testing.assert_array_equal(out, a[0, 0:2, 0:2])
    _C.basic_index(a, 1, 3, 4, out, ((-1, 0, 2), (2, -2, 4), (2, -3, 5)))
    np.testing.assert_array_equal(out, a[1, 3::-2, 4::-3])
    keep = out.copy()
    for args, exc in (((a, 0, 0, out, items), ValueError),            # a start missing
                      ((a, 0, 0, 0, 0, out, items), ValueError),      # one too many
                      ((a, 0, 3, 0, out, items), ValueError),         # 3 + 1 outside 4
                      ((a, 2, 0, 0, out, items), ValueError),         # int 2 on an axis of 2
                      ((a, 0, 0, 0, out, ((-1, 0, 2), (2, 1, 9), (2, 1, 5))), ValueError),
                      ((a, 0, 0, 0, out, ((-1, 0, 2), (2, 0, 4), (2, 1, 5))), ValueError),
                      ((a, 0, 0, 0, out, ((-7, 0, 2), (2, 1, 4), (2, 1, 5))), ValueError),
                      ((a, 0, 0, 0, out, ((-1, 0), (2, 1, 4), (2, 1, 5))), TypeError),
                      ((a, 0, 0, 0, np.empty((2, 3)), items), ValueError),
                      ((a, 0, 0, 0, np.empty((2, 2), np.float32), items), TypeError),
                      ((a, 0, 0, 2**70, out, items), ValueError),
                      ((a, 0, 0, "0", out, items), TypeError),
                      ((a, 0, 0, 0, out, ((-1, 0, 2), (1, 2**62, 4), (2, 1, 5))), ValueError)):
        with pytest.raises(exc, match="BasicIndex|integer"):
            _C.basic_index(*args)
    np.testing.assert_array_equal(out, keep)
    one = np.empty((1, 2))
    _C.basic_index(a, 0, 3, 0, one, ((-1, 0, 2), (1, 2**62, 4), (2, 1, 5)))
    np.testing.assert_array_equal(one, a[0, 3:4, 0:2])


def test_a_new_index_value_hits_the_cached_runner_in_c():
    x = Tensor(np.arange(20, dtype=np.float32).reshape(10, 2))
    x[3]
    prim = index_func._basic_index
    for i in range(10):                       # never used before: the same runner, from C
        assert _C.lookup_runner(prim, (x, index_func._ROW, i)) is not None
        np.testing.assert_array_equal(x[i].asnumpy(), [2 * i, 2 * i + 1])


def test_tuple_and_slice_indices_share_runners_across_values():
    a = np.arange(6 * 7 * 5, dtype=np.float64).reshape(6, 7, 5)
    x = Tensor(a)
    x[0, 1], x[:, 2], x[1:3], x[..., 1, None]
    before = _held_runners()
    for i in range(5):
        for idx in ((i, i + 1), (slice(None), i), (slice(i, i + 2),), (Ellipsis, i, None),
                    (-i - 1, slice(None, None, -2))):
            np.testing.assert_array_equal(x[idx].asnumpy(), a[idx])
    assert _held_runners() - before <= 1          # only (-i-1, ::-2)'s layout is new


def test_index_errors_are_index_errors_and_leave_no_runner():
    x = Tensor(np.zeros((3, 4), np.float32))
    for bad in (3, -4, (0, 4), (1, -5)):
        with pytest.raises(IndexError, match="out of bounds"):
            x[bad]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]


def test_basic_index_primitive_checks_its_inputs():
    prim = BasicIndex()
    x = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    np.testing.assert_array_equal(prim(x, (-1, 0), -1).asnumpy(), [8, 9, 10, 11])
    np.testing.assert_array_equal(prim(x, (-3, 0, 2, 2), 1).asnumpy(), [[1, 3], [5, 7], [9, 11]])
    with pytest.raises(ValueError, match="BasicIndex.*out of bounds"):
        prim(x, (-1, 0), 3)
    with pytest.raises(ValueError, match="BasicIndex.*out of bounds"):
        prim(x, (-3, 0, 3, 1), 2)                 # 3 elements from 2 in an axis of 4
    with pytest.raises(ValueError, match="BasicIndex.*start values"):
        prim(x, (-1, 0))
    with pytest.raises(TypeError, match="BasicIndex.*ints"):
        prim(x, (-1, 0), 1.0)
    with pytest.raises(ValueError, match="BasicIndex.*pair"):
        prim(x, (-1, 1), 0)
    with pytest.raises(ValueError, match="BasicIndex.*does not fit"):
        prim(x, (4, 1), 0)
    with pytest.raises(ValueError, match="BasicIndex.*more axes"):
        prim(x, (-1, 0, -1, 0, -1, 0), 0, 0, 0)
    np.testing.assert_array_equal(x.asnumpy(), np.arange(12).reshape(3, 4))


def test_gradients_through_runtime_indices():
    a = np.arange(24, dtype=np.float64).reshape(4, 6) / 7

    def f(t):
        return (t[1] * 3).sum() + (t[2:4, -1] ** 2).sum() + t[:, ::-2][0].sum()
    g = ms.grad(f)(Tensor(a)).asnumpy()
    want = np.zeros_like(a)
    want[1] += 3
    want[2:4, -1] += 2 * a[2:4, -1]
    want[0, ::-2] += 1
    np.testing.assert_allclose(g, want)
    dy = Tensor(np.ones((2,)))
    dx = BasicIndexGrad()(dy, (4, 6), (-1, 0, 2, 3), 3, 1)
    want = np.zeros((4, 6))
    want[3, 1:6:3] = 1
    np.testing.assert_array_equal(dx.asnumpy(), want)


@given(st.data())
def test_basic_indexing_matches_numpy(data):
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    items = []
    axis, used = 0, data.draw(st.integers(1, len(shape)))
    while axis < used:
        kind = data.draw(st.sampled_from(["int", "slice", "none"]))
        d = shape[axis]
        axis += kind != "none"
        if kind == "int":
            items.append(data.draw(st.integers(-d, d - 1)))
        elif kind == "none":
            items.append(None)
        else:
            bound = st.none() | st.integers(-d - 2, d + 2)
            step = data.draw(st.none() | st.sampled_from([1, 2, -1, -3]))
            items.append(slice(data.draw(bound), data.draw(bound), step))
    if data.draw(st.booleans()):
        items.insert(data.draw(st.integers(0, len(items))), Ellipsis)
    idx = tuple(items)
    x = Tensor(a)
    try:
        want = a[idx]
    except IndexError:                             # an Ellipsis moved the ints to other axes
        with pytest.raises(IndexError):
            x[idx]
        return
    for _ in range(2):                             # planned, then from the plan
        got = x[idx].asnumpy()
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_cache_sizes_never_exceed_their_caps(small_caps):
    relu, add = ops.ReLU(), ops.Add()
    infer_cache = PYNATIVE_EXECUTOR.forward_executor.infer_cache
    for i in range(400):
        _shape_step(i, relu, add)
        assert runner_count() <= 2 * cache_limits.RUNNER_CAP
        assert _held_runners() <= 2 * cache_limits.RUNNER_CAP
        assert len(infer_cache) <= cache_limits.INFER_CAP
        assert len(_graphs()) <= cache_limits.GRAPH_CAP
        assert max(abstract.interned_count()) <= 2 * cache_limits.ABSTRACT_CAP
        assert len(index_func._BASIC_PLANS) <= cache_limits.GETITEM_PLAN_CAP


def test_primitive_tables_keyed_by_attributes_are_bounded(monkeypatch):
    from mindlite.ops.operations import _base
    monkeypatch.setattr(cache_limits, "PRIM_TABLE_CAP", 32)
    _base._PRIMS.clear()                      # earlier tests filled it under the default cap
    x = Tensor(np.arange(3, dtype=np.float32))
    for n in range(1, 200):                   # the target shape is BroadcastTo's attribute
        y = ops.broadcast_to(x, (n, 3))
        assert len(_base._PRIMS) <= 32
    np.testing.assert_array_equal(y.asnumpy(), np.broadcast_to(np.arange(3), (199, 3)))


def test_a_hot_runner_survives_generations(small_caps):
    relu, add = ops.ReLU(), ops.Add()
    y = Tensor(np.ones((4, 4), np.float32))
    relu(y)
    first = _C.lookup_runner(relu, (y,))
    assert first is not None
    for i in range(300):                      # several generations; y is used in each one
        _shape_step(i, relu, add)
        if i % 20 == 0:
            relu(y)
    relu(y)
    assert _C.lookup_runner(relu, (y,)) is first  # moved back, never rebuilt


def test_context_change_clears_both_generations(small_caps):
    relu, add = ops.ReLU(), ops.Add()
    for i in range(100):                     # past one generation: entries in both
        _shape_step(i, relu, add)
    assert any(getattr(c, "old", None) for c in RUNNER_CACHES.values())
    clear_runner_caches()
    assert runner_count() == 0 and _held_runners() == 0


def test_evicted_abstracts_keep_identity_and_never_match_another(small_caps):
    relu = ops.ReLU()
    t = Tensor(np.ones((2, 3), np.float32))
    relu(t)
    kept = t._abs
    for i in range(300):                     # the strong tables are cleared several times
        abstract.abstract_tensor(mstype.float32, (i + 5, 7))
        abstract.abstract_of_array(np.empty((3, i + 5), np.float64))
    assert abstract.abstract_tensor(mstype.float32, (2, 3)) is kept
    assert abstract.abstract_of_array(np.zeros((2, 3), np.float32)) is kept
    del t, kept
    clear_runner_caches()
    gc.collect()
    for i in range(200):                     # freed addresses are reused by new abstracts
        shape = (i % 5 + 1, i % 3 + 1)
        dtype = (np.float32, np.float64)[i % 2]
        a = np.full(shape, i - 100, dtype)
        y = relu(Tensor(a))
        assert y.shape == shape and y.dtype == mstype.from_numpy_dtype(np.dtype(dtype))
        np.testing.assert_array_equal(y.asnumpy(), np.maximum(a, 0))


def test_rss_stays_flat_past_the_caps(monkeypatch):
    for name, cap in (("RUNNER_CAP", 256), ("INFER_CAP", 512), ("GRAPH_CAP", 256),
                      ("ABSTRACT_CAP", 512), ("GETITEM_PLAN_CAP", 64)):
        monkeypatch.setattr(cache_limits, name, cap)
    relu, add = ops.ReLU(), ops.Add()
    rows = Tensor(np.random.default_rng(1).standard_normal((20000, 4)).astype(np.float32))
    try:
        for i in range(1200):                # fills every cap (shapes differ from below)
            _shape_step(i + 5000, relu, add)
        for r in rows[:2000]:
            pass
        gc.collect()
        before = _rss_mb()
        for i in range(2000):
            _shape_step(i, relu, add)
        total = 0.0
        for r in rows:
            total += float(r.asnumpy()[0])
        gc.collect()
        grown = _rss_mb() - before
    finally:
        clear_runner_caches()
    assert np.isclose(total, rows.asnumpy()[:, 0].astype(np.float64).sum(), rtol=1e-4)
    assert grown < 10, f"RSS grew {grown:.1f} MB past the caps"
    assert runner_count() == 0


def test_bounded_caches_under_threads(small_caps):
    """Four threads churn shapes past every cap: results stay right, one abstract per shape."""
    errors = []

    def work(k):
        try:
            relu, add = ops.ReLU(), ops.Add()
            for i in range(150):
                a = np.full(((i * 7 + k) % 40 + 1, 3), i - 75, np.float32)
                y = add(relu(Tensor(a)), Tensor(a))
                np.testing.assert_array_equal(y.asnumpy(), np.maximum(a, 0) + a)
                np.testing.assert_array_equal(Tensor(a)[i % a.shape[0]].asnumpy(),
                                              a[i % a.shape[0]])
                t = Tensor(np.zeros((i % 50, 2), np.float32))
                assert abstract.abstract_tensor(mstype.float32, (i % 50, 2)) is t._abs
        except Exception as e:            # reported by the main thread
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
