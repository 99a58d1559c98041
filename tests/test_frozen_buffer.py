"""Frozen arrays (`_C.frozen_copy`, csrc/runtime/frozen_buffer.h): read-only copies that numpy
refuses to make writeable, what the Lite runtime holds its model constants in, and the
Winograd weight cache trusting them by id (no compare of the weights per call) without ever
serving a stale transform: a freed block's id is never reused, a non-frozen buffer is still
compared, and 4 threads freezing, freeing and convolving agree with the uncached result."""
import gc
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mindlite import _C


@pytest.fixture(autouse=True)
def restore_mode():
    was = _C.conv_winograd()
    yield
    _C.conv_winograd(was)


def _conv(x, w):
    out = np.empty(x.shape[:1] + w.shape[:1] + x.shape[2:], np.float32)
    _C.conv_forward(x, w, out, (1, 1), (1, 1), (1, 1, 1, 1), 1)
    return out


@settings(max_examples=30, deadline=None)
@given(a=hnp.arrays(st.sampled_from([np.float32, np.float64, np.int8, np.bool_, np.complex64]),
                    hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)),
       transpose=st.booleans())
def test_frozen_copy_is_a_read_only_aligned_copy(a, transpose):
    src = a.T if transpose else a                     # any layout in, C-contiguous out
    f = _C.frozen_copy(src)
    assert f.shape == src.shape and f.dtype == src.dtype and f.flags.c_contiguous
    np.testing.assert_array_equal(f, src)
    assert not f.flags.writeable and f.ctypes.data % 64 == 0
    assert _C.frozen_id(f) > 0 and _C.frozen_id(src) == 0
    with pytest.raises(ValueError):
        f.flags.writeable = True
    if f.ndim:
        with pytest.raises(ValueError):
            f[...] = 0
        view = f[:1]
        with pytest.raises(ValueError):
            view.flags.writeable = True


def test_ids_are_fresh_and_errors():
    a = np.ones((4, 4), np.float32)
    ids = {_C.frozen_id(_C.frozen_copy(a)) for _ in range(20)}   # freed at once, reused memory
    assert len(ids) == 20
    with pytest.raises(TypeError, match="frozen_copy"):
        _C.frozen_copy([1.0, 2.0])
    with pytest.raises(TypeError, match="frozen_copy"):
        _C.frozen_copy(np.array([object()]))
    with pytest.raises(TypeError, match="frozen_id"):
        _C.frozen_id(3)


def test_winograd_cache_trusts_frozen_weights_by_id():
    """A frozen weight gives the non-frozen weight's bits, hits without a copy in the cache
    (its bytes: U only), and a new frozen block of other contents (at whatever address) gets
    its own transform."""
    _C.conv_winograd(4)
    _C.conv_winograd_cache(None)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 32, 10, 10)).astype(np.float32)
    for it in range(12):
        w = rng.standard_normal((32, 32, 3, 3)).astype(np.float32)
        _C.conv_winograd_cache(0)
        want = _conv(x, w)                            # uncached
        _C.conv_winograd_cache(1 << 28)
        f = _C.frozen_copy(w)
        np.testing.assert_array_equal(_conv(x, f), want)
        hits = _C.conv_winograd_cache()[3]
        np.testing.assert_array_equal(_conv(x, f), want)
        assert _C.conv_winograd_cache()[3] == hits + 1
        del f
        gc.collect()
    _C.conv_winograd_cache(None)
    _conv(x, _C.frozen_copy(w))
    entries, size = _C.conv_winograd_cache()[:2]
    assert entries == 1 and size == 36 * 32 * 32 * 4      # U (6 x 6 x 32 x 32), no copy of w
    _C.conv_winograd_cache(None)


def test_frozen_weights_under_threads():
    _C.conv_winograd(4)
    _C.conv_winograd_cache(None)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 16, 9, 9)).astype(np.float32)
    ws = [rng.standard_normal((16, 16, 3, 3)).astype(np.float32) for _ in range(6)]
    _C.conv_winograd_cache(0)
    wants = [_conv(x, w) for w in ws]
    _C.conv_winograd_cache(1 << 28)
    shared = [_C.frozen_copy(w) for w in ws[:2]]
    errors = []

    def work(t):
        try:
            for it in range(25):
                i = (t + it) % len(ws)
                w = _C.frozen_copy(ws[i]) if i >= 2 else shared[i]
                if not np.array_equal(_conv(x, w), wants[i]):
                    errors.append((t, it, i))
                if t == 3 and it % 5 == 0:
                    _C.conv_winograd_cache(1 << 14 if it % 10 else 1 << 28)
        except Exception as e:                        # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _C.conv_winograd_cache(1 << 28)
    assert not errors
