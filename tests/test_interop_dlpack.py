"""DLPack both ways and Tensor(x) for foreign arrays (common/interop.py)."""
import numpy as np
import pytest

import mindlite as ml
from mindlite import ops

torch = pytest.importorskip("torch")


def test_from_torch_shares_memory_and_copies_on_write():
    src = torch.arange(6.0).reshape(2, 3)
    x = ml.from_dlpack(src)
    assert x.shape == (2, 3) and x.dtype == ml.float32
    src[0, 0] = 100.0                                  # the producer's write is seen
    assert x.asnumpy()[0, 0] == 100.0
    x[0, 1] = 7.0                                      # mindlite's write goes to a private copy
    assert src[0, 1].item() == 1.0 and x.asnumpy()[0, 1] == 7.0


def test_assign_into_imported_tensor_leaves_producer_alone():
    src = torch.zeros(3)
    x = ml.Parameter(ml.from_dlpack(src), name="p")
    ops.assign(x, ml.Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(x.asnumpy(), np.ones(3))
    assert float(src.sum()) == 0.0


def test_export_to_torch_and_numpy_zero_copy():
    y = ml.Tensor(np.ones((2, 2), np.float32))
    b = torch.from_dlpack(y)
    a = np.from_dlpack(y)
    b[0, 0] = 5.0
    assert y.asnumpy()[0, 0] == 5.0 and a[0, 0] == 5.0
    assert y.__dlpack_device__() == (1, 0)


def test_capsule_round_trip_and_tensor_method():
    y = ml.Tensor(np.arange(4, dtype=np.int32))
    np.testing.assert_array_equal(ml.from_dlpack(ml.to_dlpack(y)).asnumpy(), np.arange(4))
    np.testing.assert_array_equal(ml.Tensor.from_dlpack(y.to_dlpack()).asnumpy(), np.arange(4))


def test_tensor_from_foreign_objects():
    t = ml.Tensor(torch.tensor([1.0, 2.0], dtype=torch.float64))
    assert t.dtype == ml.float64
    np.testing.assert_array_equal(t.asnumpy(), [1.0, 2.0])

    class HasArray:
        def __array__(self, dtype=None, copy=None):
            return np.arange(3, dtype=np.int16)
    assert ml.Tensor(HasArray()).dtype == ml.int16


def test_errors():
    with pytest.raises(TypeError, match="__dlpack__ or __array__, but got object"):
        ml.Tensor(object())
    with pytest.raises(TypeError, match="from_dlpack.*got int"):
        ml.from_dlpack(3)
    with pytest.raises(TypeError, match="to_dlpack"):
        ml.to_dlpack(np.ones(2))


def test_numpy_protocol_as_mindspore():
    """MindSpore 2.10 (checked): numpy converts a Tensor through __array__ on the left of a
    ufunc; a Tensor on the left refuses an ndarray operand."""
    t = ml.Tensor(np.array([1.0, 2.0], np.float32))
    a = np.array([1.0, 2.0], np.float32)
    r = np.exp(t)
    assert type(r) is np.ndarray and r.dtype == np.float32
    np.testing.assert_allclose(r, np.exp(a), rtol=1e-6)
    r = a + t
    assert type(r) is np.ndarray
    np.testing.assert_array_equal(r, [2.0, 4.0])
    assert type(np.add(t, t)) is np.ndarray
    assert type(np.asarray(t)) is np.ndarray
    with pytest.raises(TypeError, match="Add"):
        t + a
