"""The Lite runtime's direct run (session.DirectRun): a main subgraph that is one CPU program
on the C graph runner runs as one call from the model's inputs. It must give what the
general path (env dict, units, callbacks) gives, map several and repeated outputs right,
hand out fresh output buffers (not views pinning the arena's slots), step aside for control
flow, delegates and callbacks, run with a context's thread_num (restoring the process's thread
settings after), and stay correct from several threads at once."""

import numpy as np
import pytest

import mindlite as ms
from mindlite import lite as mslite
from mindlite import nn, ops

from mindlite.lite.converter import convert

from helpers import run_threads
from lite_models import Branchy, LeNet, MLP, nhwc, rand, round_trip, run

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")


class TwoHeads(nn.Cell):
    """Several outputs, in another order than computed, one of them twice."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Dense(8, 4), nn.Dense(8, 3)

    def construct(self, x):
        a = ops.relu(self.a(x))
        b = self.b(x) * 2
        return b, a, b


class ViewOut(nn.Cell):
    """Its output is a view (Reshape) of a planned buffer, next to a plain output."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(8, 4)

    def construct(self, x):
        y = ops.relu(self.dense(x))
        return ops.reshape(y, (-1, 2, 2)), y + 1


def _general(model, *arrays):
    """The outputs of the general path (the direct run switched off for one call)."""
    session = model._session
    direct, session.direct = session.direct, None
    try:
        return run(model, *arrays)
    finally:
        session.direct = direct


@pytest.mark.parametrize("net, shape", [(MLP(), (3, 8)), (LeNet(), (2, 1, 32, 32))])
def test_direct_run_equals_the_general_path(net, shape):
    got, want, model = round_trip(net, rand(*shape))
    assert model._session.direct is not None
    np.testing.assert_array_equal(got[0], want[0])
    x = rand(*shape, seed=3)
    np.testing.assert_array_equal(run(model, x)[0], _general(model, x)[0])


def test_direct_run_maps_several_and_repeated_outputs():
    net, x = TwoHeads(), rand(5, 8)
    got, want, model = round_trip(net, x)
    assert model._session.direct is not None
    assert [g.shape for g in got] == [(5, 3), (5, 4), (5, 3)]
    for g, w, general in zip(got, want, _general(model, x)):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(g, general)


@pytest.mark.parametrize("net", [MLP(), ViewOut()])
def test_direct_run_outputs_are_fresh_buffers(net):
    """Outputs are copied out of the arena (views of its buffers included): a later run
    never writes into an earlier result."""
    _, _, model = round_trip(net, rand(3, 8))
    assert model._session.direct is not None
    first = run(model, rand(3, 8, seed=1))
    kept = [f.copy() for f in first]
    second = run(model, rand(3, 8, seed=2))
    for f, k, s in zip(first, kept, second):
        np.testing.assert_array_equal(f, k)          # the second run did not write into it
        assert not np.shares_memory(f, s)
    want = net(ms.Tensor(rand(3, 8, seed=2)))
    for s, w in zip(second, want if isinstance(want, tuple) else (want,)):
        np.testing.assert_array_equal(s, w.asnumpy())


def test_direct_run_steps_aside():
    """Control flow and delegated models have no direct run; callbacks take the general path
    (callbacks see every kernel)."""
    _, _, branchy = round_trip(Branchy(), np.abs(rand(2, 4)), rand(2, 4, seed=1))
    assert branchy._session.direct is None
    ctx = mslite.Context()
    ctx.delegate = mslite.OnnxRuntimeDelegate() if _has_ort() else None
    if ctx.delegate is not None:
        _, _, delegated = round_trip(MLP(), rand(3, 8), context=ctx)
        assert delegated._session.direct is None
    net, x = MLP(), rand(3, 8)
    _, want, model = round_trip(net, x)
    ins = model.get_inputs()
    ins[0].set_data_from_numpy(x)
    seen = []
    out = model.predict(ins, before_callback=lambda i, o, info: seen.append(info.node_type))
    np.testing.assert_array_equal(out[0].get_data_to_numpy(), want[0])
    assert seen == ["MatMulFusion"] * 2


def _base_bytes(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a.nbytes if a.base is None else None


@pytest.mark.parametrize("threads", [1, 2])
def test_direct_run_with_thread_num(threads):
    """A context's thread_num runs on the direct run too, with the general path's results; the
    outputs own just their bytes (the general path hands out views of the arena's slots, as
    large as the largest value planned into them); the process's thread settings come back."""
    net, x = LeNet(), rand(2, 1, 32, 32)
    ctx = mslite.Context()
    ctx.cpu.thread_num = threads
    _, want, model = round_trip(net, x, context=ctx)
    assert model._session.direct is not None
    before = ms._C.get_num_threads()
    got = run(model, x)[0]
    assert ms._C.get_num_threads() == before
    np.testing.assert_array_equal(got, want[0])
    np.testing.assert_array_equal(got, _general(model, x)[0])
    ins = model.get_inputs()
    ins[0].set_data_from_numpy(nhwc(x))
    out = model.predict(ins)[0].get_data_to_numpy()
    assert _base_bytes(out) in (None, out.nbytes)


def test_direct_run_with_thread_num_from_four_threads():
    """4 threads predicting at once with thread_num set: each its own result, and the counted
    thread override leaves the process's setting as it was."""
    net = LeNet()
    ctx = mslite.Context()
    ctx.cpu.thread_num = 2
    _, _, model = round_trip(net, rand(1, 1, 32, 32), context=ctx)
    assert model._session.direct is not None
    xs = [rand(1, 1, 32, 32, seed=k) for k in range(4)]
    wants = [net(ms.Tensor(x)).asnumpy() for x in xs]
    before = ms._C.get_num_threads()
    errors = []

    def work(k):
        for _ in range(20):
            got = model.predict([mslite.Tensor(nhwc(xs[k]))])[0].get_data_to_numpy()
            if not np.array_equal(got, wants[k]):
                errors.append((k, got))
                return

    errors += run_threads(work)
    assert not errors
    assert ms._C.get_num_threads() == before


def _has_ort():
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def test_direct_run_from_four_threads():
    """One model, 4 threads predicting different inputs at once: each gets its own result
    (a call takes its own arena; the argument list is copied per call)."""
    net = LeNet()
    _, _, model = round_trip(net, rand(1, 1, 32, 32))
    xs = [rand(1, 1, 32, 32, seed=k) for k in range(4)]
    wants = [net(ms.Tensor(x)).asnumpy() for x in xs]
    errors = []

    def work(k):
        for _ in range(30):
            ins = [mslite.Tensor(nhwc(xs[k]))]
            got = model.predict(ins)[0].get_data_to_numpy()
            if not np.array_equal(got, wants[k]):
                errors.append((k, got))
                return

    errors += run_threads(work)
    assert not errors


def test_model_constants_are_aligned_copies():
    """Weights start on a 64-byte boundary (graph_build.const_parameter), are frozen (read-only
    for good) and hold the file's values; the results stay bit-identical to eager's (the same
    kernels and sums)."""
    from mindlite.lite.graph_build import ALIGN, const_parameter
    from mindlite.lite.ms_file import read_ms
    net, x = LeNet(), rand(1, 1, 32, 32)
    data = convert(net, ms.Tensor(x))
    got, want, model = round_trip(net, x)
    np.testing.assert_array_equal(got[0], want[0])
    consts = [(lt.const, mt) for lt, mt in zip(model._session.model.tensors,
                                                read_ms(data).tensors) if lt.const is not None]
    assert len(consts) >= 8             # 2 conv weights, 3 dense weights and their biases
    for const, mt in consts:
        arr = const.asnumpy()
        assert arr.ctypes.data % ALIGN == 0 or arr.size == 0
        assert not arr.flags.writeable and ms._C.frozen_id(arr) > 0    # frozen: never changes
        np.testing.assert_array_equal(arr, mt.array())
    for a in (np.zeros((0, 3), np.float32), np.array(2.5), np.arange(7, dtype=np.int64)):
        p = const_parameter(a, "c")
        assert p.asnumpy().dtype == a.dtype and p.shape == a.shape
        np.testing.assert_array_equal(p.asnumpy(), a)
