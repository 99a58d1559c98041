"""Gather takes indices in [-n, n), negative ones counting from the end (MindSpore 2.10's CPU
kernel: Gather(arange(5), [-1]) is [4.], [-6] raises "For 'Gather', the 'input_indices'
should be in the range [0, 5), but got -1" as a RuntimeError); here the error is an
IndexValueError, both a ValueError and a RuntimeError. The gradient of a negative index goes
to the element it read."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor, ops
from mindlite.kernels.kernel_def import IndexValueError

from gradcheck import check_grad


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([(5,), (3, 4), (2, 3, 4), (0, 3)]), st.integers(-3, 2),
       st.sampled_from([(), (4,), (2, 3), (0,)]), st.sampled_from([np.int32, np.int64]),
       st.integers(0, 2 ** 31 - 1))
def test_gather_equals_numpy_take_with_negative_indices(shape, axis, ishape, itype, seed):
    if not -len(shape) <= axis < len(shape):
        return
    n = shape[axis]
    rs = np.random.RandomState(seed)
    x = rs.rand(*shape).astype(np.float32)
    if n == 0 and int(np.prod(ishape)):
        return
    idx = np.asarray(rs.randint(-n, n, ishape) if n else np.zeros(ishape)).astype(itype)
    got = ops.Gather()(Tensor(x), Tensor(idx), axis)
    np.testing.assert_array_equal(got.asnumpy(), np.take(x, idx, axis))


@pytest.mark.parametrize("bad", [-6, 5])
def test_out_of_range_is_mindspores_error_and_a_value_error(bad):
    x = Tensor(np.arange(5, dtype=np.float32))
    with pytest.raises(IndexValueError) as e:
        ops.Gather()(x, Tensor(np.array([0, bad], np.int32)), 0)
    assert isinstance(e.value, ValueError) and isinstance(e.value, RuntimeError)
    assert str(e.value) == (f"For 'Gather', the 'input_indices' should be in the range [0, 5), "
                            f"but got {bad + 5 if bad < 0 else bad}")
    np.testing.assert_array_equal(x.asnumpy(), np.arange(5))


def test_gradient_of_negative_indices():
    idx = np.array([[-1, 0], [2, -3]], np.int64)
    check_grad(lambda x: ops.Gather()(x, Tensor(idx), 1), np.random.rand(2, 3))
    check_grad(lambda x: ops.gather(x, Tensor(np.array([-1, -1, 1], np.int32)), 0),
               np.random.rand(3, 2))
