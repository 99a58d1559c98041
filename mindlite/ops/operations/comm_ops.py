"""Collective communication primitives (MindSpore's ops.AllReduce, ...) with their bprops.
Kernels: kernels/cpu/comm_mpi.py (MPI through mpi4py, in place on the output buffer);
the communication service: mindlite/communication (init, groups).

Every primitive here carries the attrs "side_effect_mem" and "side_effect_hidden": graph
mode keeps them in statement order and never folds, merges or drops them, and the eager
executor never caches their result as a constant (each call communicates). Every rank of
the group must call the same collectives in the same order; inputs of differing shapes or
dtypes across ranks are detected (a 16-byte allreduce of a hash before each call) and raise
on every rank, naming the op and each rank's inputs. Gradients: AllReduce(SUM) <-> AllReduce(SUM),
AllGather <-> ReduceScatter(SUM), Broadcast -> the summed gradient on the root (zeros
elsewhere), AlltoAll -> AlltoAll with split and concat axes swapped, Send <-> Receive.
"""
from ...common.abstract import AbstractTensor
from ...common import dtype as mstype
from ...communication import _mpi
from ...communication.management import GlobalComm
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_tensor, tensor
from .array_ops import Cast
from .logic_ops import Equal
from .math_ops import Mul

__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AlltoAll",
           "Send", "Receive", "Barrier"]

_WORLD = GlobalComm.WORLD_COMM_GROUP
_COMM_TYPES = (mstype.bool_,) + mstype.NUMBER_BF16_COMPLEX_TYPES


class ReduceOp:
    """Reduction of AllReduce / ReduceScatter: SUM, MAX, MIN, PROD."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


_REDUCE_OPS = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD)


def _check_group(prim, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{prim.name}', the 'group' must be a str, but got "
                        f"{type(group).__name__}")


def _check_op(prim, op):
    if op not in _REDUCE_OPS:
        raise TypeError(f"For '{prim.name}', the 'op' must be one of ReduceOp.SUM, MAX, MIN, "
                        f"PROD ({list(_REDUCE_OPS)}), but got {op!r}")


def _check_int(prim, name, value, lo=None):
    if isinstance(value, bool) or not isinstance(value, int) or (lo is not None and value < lo):
        raise (ValueError if isinstance(value, int) and not isinstance(value, bool)
               else TypeError)(f"For '{prim.name}', '{name}' must be an int"
                               f"{'' if lo is None else f' >= {lo}'}, but got {value!r}")


class _Collective(Primitive):
    """Common base: group attr, side-effect marks, the rank size of the group."""

    def _setup(self, group, size=False):
        _check_group(self, group)
        self.add_prim_attr("no_eliminate", True)
        self.add_prim_attr("side_effect_mem", True)
        self.add_prim_attr("side_effect_hidden", True)
        if size:
            self.add_prim_attr("rank_size", _mpi.comm_of(self.name, group).Get_size())

    def _input(self, x):
        _mpi.comm_of(self.name, self.attrs["group"])
        check_tensor(self, "x", x)
        if x.dtype not in _COMM_TYPES:
            raise TypeError(f"For '{self.name}', the dtype of 'x' must be bool or a number type, "
                            f"but got {x.dtype}")
        if x.dtype in mstype.COMPLEX_TYPES and self.attrs.get("op") in (ReduceOp.MAX,
                                                                          ReduceOp.MIN):
            raise TypeError(f"For '{self.name}', ReduceOp '{self.attrs['op']}' is not defined "
                            f"for complex 'x' ({x.dtype}): complex numbers have no order")
        return x


class AllReduce(_Collective):
    """y = op(x of every rank of the group), elementwise, on every rank."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, op=ReduceOp.SUM, group=_WORLD):
        _check_op(self, op)
        self._setup(group)

    def infer(self, x):
        return self._input(x)

    def kernel_params(self, x):
        return {"op": self.attrs["op"], "group": self.attrs["group"]}


class AllGather(_Collective):
    """y = the x of ranks 0..n-1 of the group concatenated along axis 0 (same shape on every
    rank)."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, group=_WORLD):
        self._setup(group, size=True)

    def infer(self, x):
        x = self._input(x)
        if not x.shape:
            raise ValueError(f"For '{self.name}', 'x' must have at least one dimension, but got "
                             "a 0-d tensor")
        return tensor(x.dtype, (x.shape[0] * self.attrs["rank_size"],) + tuple(x.shape[1:]))

    def kernel_params(self, x):
        return {"group": self.attrs["group"], "rank_size": self.attrs["rank_size"]}


class ReduceScatter(_Collective):
    """y = block r (of n along axis 0) of op(x of every rank) on rank r; x.shape[0] must be a
    multiple of the group size n."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, op=ReduceOp.SUM, group=_WORLD):
        _check_op(self, op)
        self._setup(group, size=True)

    def infer(self, x):
        x = self._input(x)
        n = self.attrs["rank_size"]
        if not x.shape or x.shape[0] % n:
            raise ValueError(f"For '{self.name}', the first dimension of 'x' must be a multiple "
                             f"of the group size {n}, but got shape {list(x.shape)}")
        return tensor(x.dtype, (x.shape[0] // n,) + tuple(x.shape[1:]))

    def kernel_params(self, x):
        return {"op": self.attrs["op"], "group": self.attrs["group"],
                "rank_size": self.attrs["rank_size"]}


class Broadcast(_Collective):
    """(x_0, ...) -> the tensors of rank `root_rank` (of the group), on every rank; each x_i
    has the same shape and dtype on every rank."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, root_rank, group=_WORLD):
        _check_int(self, "root_rank", root_rank, 0)
        self._setup(group)

    def infer(self, xs):
        if not isinstance(xs, tuple) or not xs or not all(isinstance(x, AbstractTensor)
                                                         for x in xs):
            raise TypeError(f"For '{self.name}', 'input_x' must be a non-empty tuple of "
                            f"Tensors, but got {xs!r}")
        size = _mpi.comm_of(self.name, self.attrs["group"]).Get_size()
        if self.attrs["root_rank"] >= size:
            raise ValueError(f"For '{self.name}', 'root_rank' must be less than the group size "
                             f"{size}, but got {self.attrs['root_rank']}")
        return tuple(self._input(x) for x in xs)

    def kernel_params(self, xs):
        return {"root_rank": self.attrs["root_rank"], "group": self.attrs["group"]}


class AlltoAll(_Collective):
    """x is split into split_count (= group size) blocks along split_dim; block i goes to
    rank i; the blocks received are concatenated along concat_dim in rank order."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, split_count, split_dim, concat_dim, group=_WORLD):
        for name, v in (("split_count", split_count), ("split_dim", split_dim),
                        ("concat_dim", concat_dim)):
            _check_int(self, name, v)
        self._setup(group, size=True)
        if split_count != self.attrs["rank_size"]:
            raise ValueError(f"For '{self.name}', 'split_count' must equal the group size "
                             f"{self.attrs['rank_size']}, but got {split_count}")

    def infer(self, x):
        x = self._input(x)
        shape, n = list(x.shape), self.attrs["rank_size"]
        dims = []
        for name in ("split_dim", "concat_dim"):
            d = self.attrs[name]
            if not -len(shape) <= d < len(shape):
                raise ValueError(f"For '{self.name}', '{name}' must be in [{-len(shape)}, "
                                 f"{len(shape)}), but got {d}")
            dims.append(d % len(shape))
        if shape[dims[0]] % n:
            raise ValueError(f"For '{self.name}', x.shape[{dims[0]}] must be a multiple of "
                             f"split_count {n}, but got shape {shape}")
        shape[dims[0]] //= n
        shape[dims[1]] *= n
        return tensor(x.dtype, tuple(shape))

    def kernel_params(self, x):
        n = len(x.shape)
        return {"split_dim": self.attrs["split_dim"] % n,
                "concat_dim": self.attrs["concat_dim"] % n, "group": self.attrs["group"]}


class Send(_Collective):
    """Sends x to rank `dest_rank` of the group with tag `sr_tag`; returns x. For x's
    gradient (sent back by the receiver), the returned value must reach the loss."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, sr_tag, dest_rank, group=_WORLD, group_back=_WORLD):
        _check_int(self, "sr_tag", sr_tag, 0)
        _check_int(self, "dest_rank", dest_rank, 0)
        _check_group(self, group_back)
        self._setup(group)

    def infer(self, x):
        return self._input(x)

    def kernel_params(self, x):
        return {"sr_tag": self.attrs["sr_tag"], "dest_rank": self.attrs["dest_rank"],
                "group": self.attrs["group"]}


class Receive(_Collective):
    """Receives a tensor of `shape` and `dtype` sent with tag `sr_tag` by rank `src_rank`.
    Called with no input, or with one tensor input that only orders the call and carries the
    gradient path (its gradient is zero; the output's gradient is sent back to src_rank)."""
    input_names = None

    @prim_attr_register
    def __init__(self, sr_tag, src_rank, shape, dtype, group=_WORLD, group_back=_WORLD):
        _check_int(self, "sr_tag", sr_tag, 0)
        _check_int(self, "src_rank", src_rank, 0)
        _check_group(self, group_back)
        if not isinstance(shape, (tuple, list)) or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
            raise TypeError(f"For '{self.name}', 'shape' must be a tuple or list of "
                            f"non-negative ints, but got {shape!r}")
        try:
            self._dtype = mstype.to_type(dtype)
        except TypeError:
            self._dtype = None
        if self._dtype not in _COMM_TYPES:
            raise TypeError(f"For '{self.name}', 'dtype' must be bool or a number type, but got "
                            f"{dtype!r}")
        self._setup(group)

    def infer(self, *args):
        _mpi.comm_of(self.name, self.attrs["group"])
        if len(args) > 1 or (args and not isinstance(args[0], AbstractTensor)):
            raise TypeError(f"For '{self.name}', expected no input or one Tensor, but got "
                            f"{len(args)} inputs")
        return tensor(self._dtype, tuple(self.attrs["shape"]))

    def kernel_params(self, *args):
        return {"sr_tag": self.attrs["sr_tag"], "src_rank": self.attrs["src_rank"],
                "group": self.attrs["group"]}


class Barrier(_Collective):
    """Blocks until every rank of the group has called it; returns a float32 [1] zero."""
    input_names = ()

    @prim_attr_register
    def __init__(self, group=_WORLD):
        self._setup(group)

    def infer(self):
        _mpi.comm_of(self.name, self.attrs["group"])
        return tensor(mstype.float32, (1,))

    def kernel_params(self):
        return {"group": self.attrs["group"]}


non_differentiable(Barrier)
_cast, _mul, _equal = Cast(), Mul(), Equal()


@bprop_for(AllReduce)
def all_reduce_bprop(prim, x, out, dout):
    op, group = prim.attrs["op"], prim.attrs["group"]
    if op == ReduceOp.PROD:
        raise RuntimeError("For 'AllReduce', the bprop of ReduceOp.PROD is not supported (as "
                           "MindSpore)")
    dx = AllReduce(ReduceOp.SUM, group)(dout)
    if op == ReduceOp.SUM:
        return (dx,)
    return (_mul(dx, _cast(_equal(x, out), dx.dtype)),)      # MAX / MIN: where x won


@bprop_for(AllGather)
def all_gather_bprop(prim, x, out, dout):
    return (ReduceScatter(ReduceOp.SUM, prim.attrs["group"])(dout),)


@bprop_for(ReduceScatter)
def reduce_scatter_bprop(prim, x, out, dout):
    if prim.attrs["op"] != ReduceOp.SUM:
        raise RuntimeError(f"For 'ReduceScatter', the bprop of op '{prim.attrs['op']}' is not "
                           "supported, only ReduceOp.SUM (as MindSpore)")
    return (AllGather(prim.attrs["group"])(dout),)


@bprop_for(Broadcast)
def broadcast_bprop(prim, xs, out, dout):
    group = prim.attrs["group"]
    summed = tuple(AllReduce(ReduceOp.SUM, group)(d) for d in dout)
    if _mpi.comm_of("Broadcast", group).Get_rank() == prim.attrs["root_rank"]:
        return (summed,)
    return (tuple(_mul(s, 0) for s in summed),)


@bprop_for(AlltoAll)
def all_to_all_bprop(prim, x, out, dout):
    back = AlltoAll(prim.attrs["split_count"], prim.attrs["concat_dim"], prim.attrs["split_dim"],
                    prim.attrs["group"])
    return (back(dout),)


@bprop_for(Send)
def send_bprop(prim, x, out, dout):
    recv = Receive(prim.attrs["sr_tag"], prim.attrs["dest_rank"], tuple(x.shape), x.dtype,
                   prim.attrs["group_back"])
    return (dout + recv(),)                      # y = x locally, plus x's use on dest_rank


@bprop_for(Receive)
def receive_bprop(prim, *args):
    x, dout = args[:-2], args[-1]
    Send(prim.attrs["sr_tag"], prim.attrs["src_rank"], prim.attrs["group_back"])(dout)
    return tuple(_mul(a, 0) for a in x)
