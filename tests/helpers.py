"""Shared hypothesis strategies and comparison helpers for op tests.

shapes: 0-d, empty and ordinary shapes; arrays: values incl. NaN/inf for floats;
noncontig(): the same values as a non-contiguous view (what kernels must handle);
broadcast_pairs: two mutually broadcastable shapes.
"""
import contextlib

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms

FLOAT_DTYPES = [np.float16, np.float32, np.float64]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
ALL_DTYPES = [np.bool_] + INT_DTYPES + FLOAT_DTYPES


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=5):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcast_pairs(min_dims=0, max_dims=4, max_side=5):
    return hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=min_dims, max_dims=max_dims,
                                             min_side=0, max_side=max_side).map(
        lambda bs: bs.input_shapes)


def elements(dtype, allow_special=True, min_value=None, max_value=None):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        width = dtype.itemsize * 8
        lo = -1e3 if min_value is None else min_value
        hi = 1e3 if max_value is None else max_value
        finite = st.floats(lo, hi, width=width, allow_nan=False, allow_infinity=False)
        if allow_special:
            return st.one_of(finite, finite, finite, st.sampled_from([np.nan, np.inf, -np.inf]))
        return finite
    if dtype.kind == "b":
        return st.booleans()
    info = np.iinfo(dtype)
    lo = max(info.min, -100 if min_value is None else min_value)
    hi = min(info.max, 100 if max_value is None else max_value)
    return st.integers(lo, hi)


def arrays(dtype, shape, **kw):
    return hnp.arrays(np.dtype(dtype), shape, elements=elements(dtype, **kw))


def noncontig(arr):
    """A non-contiguous view holding the same values as `arr` (unchanged for 0-d)."""
    if arr.ndim == 0:
        return arr
    big = np.empty(arr.shape[:-1] + (arr.shape[-1] * 2,), dtype=arr.dtype)
    big[..., ::2] = arr
    view = big[..., ::2]
    assert np.array_equal(view, arr, equal_nan=arr.dtype.kind == "f") or arr.size == 0
    return view


def tensor(arr):
    """A mindlite Tensor sharing the array (keeps non-contiguous layouts)."""
    return ms.Tensor.from_numpy(arr)


def assert_close(got, want, dtype=None, rtol=None, atol=None):
    got = got.asnumpy() if isinstance(got, ms.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    kind = got.dtype.kind
    if kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    tol = {2: 2e-3, 4: 2e-6, 8: 1e-12}[got.dtype.itemsize]
    np.testing.assert_allclose(got, want, rtol=rtol if rtol is not None else tol,
                               atol=atol if atol is not None else tol, equal_nan=True)


# ---- C++ thread splits ---------------------------------------------------------------------
def _c_module():
    from mindlite import _C
    return _C


DEFAULT_THRESHOLD = _c_module().parallel_threshold()


@contextlib.contextmanager
def split(threads, threshold=64):
    """Force `threads` C++ threads (0 = the measured split) and parallelise launches from
    `threshold` elements; the defaults come back afterwards."""
    _C = _c_module()
    _C.set_num_threads(threads)
    _C.set_parallel_threshold(threshold)
    try:
        yield
    finally:
        _C.set_num_threads(0)
        _C.set_parallel_threshold(DEFAULT_THRESHOLD)


def notebook_text(path):
    """Execute the notebook at `path` (relative to the repository) in a real Jupyter kernel;
    assert no cell raised and return the text of every output, joined by newlines."""
    import os

    import pytest
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    nb = nbformat.read(os.path.join(root, path), as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": root}}).execute()
    texts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", out
            texts.append(out.get("text", "") + out.get("data", {}).get("text/plain", ""))
    return "\n".join(texts)


def run_threads(work, n=4, timeout=60):
    """work(k) for k in range(n), each on its own thread at once; the exceptions raised and a
    TimeoutError for each thread still running after `timeout` s (a list, empty when every
    call returned)."""
    import threading
    errors = []

    def guarded(k):
        try:
            work(k)
        except Exception as err:          # reported to the caller
            errors.append(err)
    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    return errors + [TimeoutError(f"thread {k} still running after {timeout} s")
                     for k, t in enumerate(threads) if t.is_alive()]
