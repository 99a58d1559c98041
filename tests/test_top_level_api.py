"""MindSpore 2.10's top-level helpers (issue 30 item 4): tensor / from_numpy / is_tensor /
frombuffer / swap_tensors, the dtype aliases and Python-type conversions, the generator API
(manual_seed, seed, initial_seed, get_rng_state / set_rng_state, Generator), the graph
markers (mutable, lazy_inline, no_inline, jit_class, recompute) and run_check. Expected
values are MindSpore 2.10's, observed on its CPU build."""
import threading

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn, ops


def test_tensor_helpers():
    assert ms.tensor([1, 2]).dtype == ms.int64 and ms.tensor([1.0]).dtype == ms.float32
    assert ms.tensor(np.zeros(2, np.float64), ms.float16).dtype == ms.float16
    a = np.arange(3.0)
    t = ms.from_numpy(a)
    a[0] = 7.0
    assert t.asnumpy()[0] == 7.0                                  # shares memory
    assert ms.is_tensor(t) and not ms.is_tensor(a) and not ms.is_tensor(1)
    f = ms.frombuffer(np.arange(4, dtype=np.int32).tobytes(), ms.int32, 2, 4)
    assert f.dtype == ms.int32 and f.asnumpy().tolist() == [1, 2]
    x, y = Tensor(np.ones((2,), np.float32)), Tensor(np.zeros((3, 1), np.int32))
    ms.swap_tensors(x, y)
    assert x.shape == (3, 1) and x.dtype == ms.int32 and y.asnumpy().tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="swap_tensors"):
        ms.swap_tensors(x, 1)
    with pytest.raises(ValueError, match="'device'"):
        ms.tensor([1], device="Ascend")


def test_dtype_aliases_and_conversions_as_mindspore():
    assert (ms.byte, ms.short, ms.intc, ms.long, ms.intp) == \
        (ms.int8, ms.int16, ms.int32, ms.int64, ms.int64)
    assert (ms.ubyte, ms.ushort, ms.uintc, ms.uintp) == (ms.uint8, ms.uint16, ms.uint32,
                                                         ms.uint64)
    assert (ms.cfloat, ms.cdouble) == (ms.complex64, ms.complex128)
    assert ms.dtype_to_pytype(ms.float32) is float and ms.dtype_to_pytype(ms.int8) is int
    assert ms.pytype_to_dtype(int) == ms.int64 and ms.pytype_to_dtype(bool) == ms.bool_
    assert ms.get_py_obj_dtype(1.0) == ms.float64 and ms.get_py_obj_dtype(True) == ms.bool_


def test_rng_state_replays_draws():
    ms.manual_seed(3)
    assert ms.initial_seed() == 3 and ms.get_seed() == 3
    state = ms.get_rng_state()
    assert state.dtype == ms.uint8 and state.ndim == 1
    first = ops.rand(4).asnumpy()
    ms.set_rng_state(state)
    np.testing.assert_array_equal(ops.rand(4).asnumpy(), first)
    s = ms.seed()
    assert isinstance(s, int) and ms.initial_seed() == s
    with pytest.raises(ValueError, match="UInt8 Tensor"):
        ms.set_rng_state(Tensor(np.zeros(3, np.uint8)))
    with pytest.raises(ValueError, match="manual_seed"):
        ms.manual_seed(-1)


def test_own_generator_state_and_threads():
    g = ms.Generator()
    g.manual_seed(11)
    st = g.get_state()
    draws = []

    def work():
        draws.append(g._numpy().random(8))       # numpy serialises concurrent draws
    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    g.set_state(st)
    replay = sorted(tuple(g._numpy().random(8)) for _ in range(4))
    assert sorted(tuple(d) for d in draws) == replay
    assert g.initial_seed() == 11


def test_markers_run_code_unchanged():
    t = Tensor(np.ones(2, np.float32))
    assert ms.mutable(t) is t and ms.mutable((1, 2.0)) == (1, 2.0)
    with pytest.raises(TypeError, match="mutable"):
        ms.mutable("text")
    with pytest.raises(TypeError, match="dynamic_len"):
        ms.mutable(t, dynamic_len=True)

    @ms.jit_class
    class Holder:
        def __init__(self):
            self.k = 2
    assert Holder.__ms_class__ and Holder().k == 2
    with pytest.raises(TypeError, match="jit_class"):
        ms.jit_class(nn.Dense)

    class Block(nn.Cell):
        @ms.lazy_inline
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(2, 2)

        def construct(self, x):
            return self.dense(x)
    net = Block()
    x = Tensor(np.array([[1.0, -2.0]], np.float32))
    np.testing.assert_array_equal(ms.recompute(net, x).asnumpy(), net(x).asnumpy())
    g1 = ms.grad(lambda v: ms.recompute(net, v).sum())(x)
    g2 = ms.grad(lambda v: net(v).sum())(x)
    np.testing.assert_array_equal(g1.asnumpy(), g2.asnumpy())
    assert ms.no_inline(lambda v: v + 1)(1) == 2


def test_run_check_prints_the_verdict(capsys):
    ms.run_check()
    out = capsys.readouterr().out
    assert "installed on platform [CPU] successfully" in out
    assert ms.synchronize() is None


def test_train_exports_export_and_load():
    from mindlite import train
    assert train.export is ms.export and train.load is ms.load
