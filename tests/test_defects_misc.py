"""Regression tests for issue 10's smaller defects (6, 7, 9): the sign of -0.0 in Pow's
broadcast-scalar path, not-loaded parameters and truncated checkpoints, Cast to None,
oversized conv/pool attributes, numpy subclasses and byte orders, MINDLITE_ISA values, output
size limits, and saving into a missing folder. Each fails on the code before its fix."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops
from mindlite.common.initializer import initializer
from mindlite.train import _ckpt_proto as proto
from mindlite.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint

BIG = 2**63


# ---- 6: Pow keeps the sign of a broadcast -0.0 base -------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [2, 3, 9, 40])
def test_pow_negative_zero_base_broadcast(policy, dtype, n):
    x = np.array([-0.0], dtype)
    y = np.resize(np.array([-1.0, 3.0, -3.0, 2.0, 0.5, -2.5], dtype), n)
    got = ops.Pow()(Tensor(x), Tensor(y)).asnumpy()
    with np.errstate(divide="ignore"):
        want = np.power(x, y)
    assert got.tobytes() == want.tobytes()          # [-inf, -0.0, -inf, 0.0, 0.0, inf, ...]


def test_pow_negative_zero_scalar_operand():
    y = Tensor(np.array([-1.0, 3.0], np.float32))
    got = ops.pow(Tensor(np.float32(-0.0)), y).asnumpy()
    assert got.tolist() == [-np.inf, 0.0] and np.signbit(got).tolist() == [True, True]


# ---- 7: checkpoints ------------------------------------------------------------------------------
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
        self.b = Parameter(np.ones(2, np.int64), name="b")


def test_checkpoint_cut_at_a_record_boundary_warns_when_loaded_into_a_net(tmp_path):
    path = str(tmp_path / "t.ckpt")
    save_checkpoint(Net(), path)
    with open(path, "rb") as f:
        data = f.read()
    boundary = len(proto.encode_value("w", [2, 3], "Float32", 24)) + 24
    with open(path, "wb") as f:
        f.write(data[:boundary])
    net = Net()
    net.w.set_data(np.zeros((2, 3), np.float32))
    with pytest.warns(UserWarning, match=r"1 parameters in the 'net' are not loaded.*\['b'\]"):
        loaded = load_checkpoint(path, net=net)
    assert list(loaded) == ["w"]
    assert np.array_equal(net.w.asnumpy(), Net().w.asnumpy())


def test_load_param_into_net_returns_and_warns_not_loaded():
    net = Net()
    d = {"w": Parameter(np.ones((2, 3), np.float32)), "extra": Parameter(np.ones(1))}
    with pytest.warns(UserWarning, match=r"\['b'\] are not loaded") as rec:
        assert load_param_into_net(net, d) == (["b"], ["extra"])
    assert rec[0].filename == __file__                 # points at the caller
    assert np.array_equal(net.w.asnumpy(), np.ones((2, 3), np.float32))


def test_save_into_missing_folder_names_the_target(tmp_path):
    target = str(tmp_path / "missing" / "m.ckpt")
    with pytest.raises(FileNotFoundError) as info:
        save_checkpoint({"w": Tensor(np.ones(2, np.float32))}, target)
    assert info.value.filename == target and ".tmp" not in str(info.value)
    assert "save_checkpoint" in str(info.value)


# ---- 9: argument checks --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [None, "no_such_type", 3])
def test_cast_to_none_or_junk_is_a_type_error(dtype):
    x = Tensor(np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"For 'Cast', 'type' must be a mindlite dtype.*got"):
        ops.Cast()(x, dtype)


def test_astype_none_is_a_type_error():
    with pytest.raises(TypeError, match="None"):
        Tensor(np.ones(3, np.float32)).astype(None)


@pytest.mark.parametrize("make,arg", [
    (lambda: ops.Conv2D(4, 3, stride=(BIG, 1)), "stride"),
    (lambda: ops.Conv2D(4, 3, stride=2**31), "stride"),
    (lambda: ops.Conv2D(4, 3, dilation=(1, BIG)), "dilation"),
    (lambda: ops.Conv2D(4, BIG), "kernel_size"),
    (lambda: ops.Conv2D(BIG, 3), "out_channel"),
    (lambda: ops.Conv2D(4, 3, group=BIG), "group"),
    (lambda: ops.Conv2D(4, 3, pad_mode="pad", pad=BIG), "pad"),
    (lambda: ops.Conv2DBackpropInput(4, 3, pad_mode="pad", pad_list=(0, 0, 0, BIG)), "pad"),
    (lambda: ops.MaxPool(2, BIG), "strides"),
    (lambda: ops.AvgPool((1, BIG)), "kernel_size"),
    (lambda: nn.Conv2d(1, 2, 3, stride=BIG), "stride"),
    (lambda: nn.MaxPool2d(BIG), "kernel_size"),
])
def test_huge_conv_pool_int_attributes_are_value_errors(make, arg):
    with pytest.raises(ValueError, match=rf"'{arg}' must be .*\[[01], 2147483647\]"):
        make()


def test_huge_pool_stride_and_divisor_at_call():
    x = Tensor(np.ones((1, 1, 8, 8), np.float32))
    with pytest.raises(ValueError, match=r"For 'AvgPool', 'strides'"):
        nn.AvgPool2d(2, BIG)(x)
    with pytest.raises(ValueError, match=r"'divisor_override' must be in range"):
        ops.avg_pool2d(x, 2, divisor_override=BIG)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_matrix_from_numpy_is_a_plain_tensor():
    m = np.matrix([[1.0, 2.0, 3.0]], dtype=np.float32)
    t = Tensor.from_numpy(m)
    assert type(t.asnumpy()) is np.ndarray and np.shares_memory(t.asnumpy(), m)
    assert ops.Squeeze()(t).asnumpy().tolist() == [1.0, 2.0, 3.0]
    assert ops.ReduceSum()(Tensor(m), 1).asnumpy().tolist() == [6.0]
    assert (Tensor.from_numpy(m) * 2).asnumpy().tolist() == [[2.0, 4.0, 6.0]]


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">i4", ">i8", ">u2"])
def test_big_endian_arrays_are_converted(dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    reset = Parameter(np.zeros((2, 3), a.dtype.newbyteorder("=")), name="r")
    reset.set_data(a)
    for t in (Tensor(a), Tensor.from_numpy(a), Parameter(a, name="p"), reset):
        assert t.dtype.np == a.dtype.newbyteorder("=")
        arr = t.asnumpy()
        assert arr.dtype.isnative and arr.dtype == a.dtype.newbyteorder("=")
        assert arr.tolist() == a.tolist()
    if a.dtype.kind == "f":
        assert (Tensor(a) + 1).asnumpy().tolist() == (a + 1).tolist()
        assert ops.matmul(Tensor(a), Tensor(a.T)).asnumpy().tolist() == (a @ a.T).tolist()


def _import_with_isa(value):
    env = dict(os.environ, MINDLITE_ISA=value)
    code = "import mindlite; print(mindlite._C.kernel_isa())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_unknown_isa_is_refused():
    res = _import_with_isa("foo")
    assert res.returncode != 0
    assert "MINDLITE_ISA='foo'" in res.stderr
    assert all(isa in res.stderr for isa in ("'avx512'", "'avx2'", "'base'"))
    ok = _import_with_isa("BASE")
    assert ok.returncode == 0 and ok.stdout.split()[-1] == "base", ok.stderr[-2000:]


# Output sizes from attributes / constant inputs: checked in inference, before any allocation.
# NOTE: every case is far beyond this machine's memory, so code without the check fails fast
# (MemoryError) instead of allocating gigabytes; the exact limit is tested with a small one.
LIMIT_MSG = r"elements, more than the limit of \d+ \(mindlite.common.limits.MAX_OUTPUT_ELEMENTS\)"


@pytest.mark.parametrize("call,op", [
    (lambda: ops.OneHot()(Tensor(np.arange(64, dtype=np.int32)), 2**31, Tensor(1.0),
                          Tensor(0.0)), "OneHot"),
    (lambda: ops.one_hot(Tensor(np.array([0, 1], np.int32)), 2**40, Tensor(1.0), Tensor(0.0)),
     "OneHot"),
    (lambda: ops.zeros((2**20, 2**20)), "Zeros"),
    (lambda: ops.ones((BIG,)), "Ones"),
    (lambda: ops.fill(ms.float32, (2**16, 2**16), 1.0), "Fill"),
    (lambda: ops.full((2**40,), 1.0), "Fill"),
    (lambda: ops.eye(2**20, 2**20), "Eye"),
    (lambda: ops.Tile()(Tensor(np.ones((2, 2), np.float32)), (2**20, 2**20)), "Tile"),
    (lambda: ops.broadcast_to(Tensor(np.ones(2, np.float32)), (2**40, 2)), "BroadcastTo"),
    (lambda: ops.Conv2D(1, 1, pad_mode="pad", pad=2**30)(
        Tensor(np.ones((1, 1, 2, 2), np.float32)), Tensor(np.ones((1, 1, 1, 1), np.float32))),
     "Conv2D"),
    (lambda: initializer("zeros", (2**20, 2**20), ms.float32), "Tensor"),
    (lambda: ops.Range(maxlen=2**62)(0, 2**40, 1), "Range"),
])
def test_outputs_beyond_the_size_limit_are_value_errors(call, op):
    with pytest.raises(ValueError, match=rf"For '{op}', .*{LIMIT_MSG}"):
        call()


def test_size_limit_is_the_documented_module_value(monkeypatch):
    from mindlite.common import limits
    monkeypatch.setattr(limits, "MAX_OUTPUT_ELEMENTS", 143)
    with pytest.raises(ValueError, match=r"For 'Zeros', 'size' \[13, 12\] has 156 elements"):
        ops.zeros((13, 12))
    assert ops.zeros((13, 11)).shape == (13, 11)
    with pytest.raises(ValueError, match=r"For 'OneHot', the output shape \[2, 73\]"):
        ops.one_hot(Tensor(np.array([0, 1], np.int32)), 73, Tensor(1.0), Tensor(0.0))
