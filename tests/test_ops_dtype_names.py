"""dtype names as MindSpore 2.10 prints them (issue 13 §3): str(ms.uint8) is UInt8 (not
Uint8), and a Tensor's repr and error messages carry the same names."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, ops

# str(mindspore.<name>) in MindSpore 2.10
MINDSPORE_NAMES = {"bool_": "Bool", "int8": "Int8", "int16": "Int16", "int32": "Int32",
                   "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32",
                   "uint64": "UInt64", "float16": "Float16", "float32": "Float32",
                   "float64": "Float64"}


@pytest.mark.parametrize("name", sorted(MINDSPORE_NAMES))
def test_dtype_str_matches_mindspore(name):
    t = getattr(ms, name)
    assert str(t) == MINDSPORE_NAMES[name]
    x = Tensor(np.zeros(1, t.np))
    assert f"dtype={MINDSPORE_NAMES[name]}," in repr(x)


def test_unsigned_names_in_errors():
    with pytest.raises(TypeError, match=r"but got UInt8$"):
        ops.exp(Tensor(np.zeros(2, np.uint8)))
