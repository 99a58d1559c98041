"""Dynamic dimensions in graph mode: placeholders, input_signature / set_inputs, inference.

    Tensor(shape=[None, 3], dtype=ms.float32)   a placeholder: no data, shape (-1, 3)
    @jit(input_signature=(placeholder, ...))    one graph for every size of the None dims
    cell.set_inputs(placeholder, ...)           the same for a GRAPH_MODE Cell

A call is checked against the signature (TypeError / ValueError naming the argument and
the mismatch); each Tensor argument whose signature entry has a dynamic dimension is
replaced by the placeholder for the cache key and the parse, so the graph is compiled
once and its abstracts carry -1 for the unknown dimensions (MindSpore's convention).

Inference keeps one copy of the shape rules, the primitives' own `infer`: a call with a
dynamic input is inferred twice, with every unknown dimension replaced by a probe size
(PROBES[0], then PROBES[1]); an output dimension equal in both runs is static, one that
differs is -1. A node remembers the shapes its two probe runs gave (`dyn_probes`), so a
concatenation of a dynamic axis probes as 2*P and a later reshape to (n * 2, 3) agrees.
At run time the graph's primitives run on the real tensors (their own infer with the
concrete shapes), so results equal eager's. The cost of the trick: a rule that checks a
dynamic dimension against a static one (e.g. adding a (None,) and a (5,) tensor) fails at
compile time instead of at run time, and a result that happens to be equal for both probe
sizes (n // 5000) is taken as static.

Shape-dependent Python code: `x.shape` of a tensor with a dynamic dimension is a Shape
node; its dynamic items are TupleGetItem nodes whose abstract is AbstractDynInt (an Int64
known at run time), static items stay ints. `+ - * // %` on those emit ScalarOp nodes, and
they can be passed to primitives (Reshape's shape, a scalar operand, a slice bound). `==`
between two of them (or shapes holding them) is True when both probe runs agree, the
assumption inference makes (dyn_equal). Where Python needs the number itself (a
condition, `<`, a comparison with an int, range()) the parser raises an error naming the
line: graph mode needs a constant there.
"""
import inspect
import operator

from ..common.abstract import AbstractScalar, AbstractTensor, abstract_tensor
from ..common.tensor import Tensor
from ..ir.anf import AnfNode
from ..ir.infer import Folded, infer_call

PROBES = (1031, 1039)      # distinct primes: a probe dim rarely equals a static dim


class AbstractDynInt(AbstractScalar):
    """An Int64 known only at run time (a dynamic dimension); `probes` = its value in the
    two probe inferences."""
    __slots__ = ("probes",)

    def __init__(self, probes):
        super().__init__(0)
        self.probes = tuple(probes)

    def __repr__(self):
        return "an Int64 known only at run time (it depends on a dynamic dimension)"


class ScalarOp:
    """Integer arithmetic on dynamic dimensions, run by the graph at execution time."""
    __slots__ = ("name", "fn")

    def __init__(self, name, fn):
        self.name = name
        self.fn = fn

    def __call__(self, a, b):
        return self.fn(a, b)

    def __repr__(self):
        return self.name


_SCALAR_OPS = {operator.add: "ScalarAdd", operator.sub: "ScalarSub",
               operator.mul: "ScalarMul", operator.floordiv: "ScalarFloorDiv",
               operator.mod: "ScalarMod", operator.iadd: "ScalarAdd",
               operator.isub: "ScalarSub", operator.imul: "ScalarMul",
               operator.ifloordiv: "ScalarFloorDiv", operator.imod: "ScalarMod"}
_OPS = {}


def is_placeholder(t):
    """True for Tensor(shape=[None, ...], dtype=...): a signature entry without data."""
    return isinstance(t, Tensor) and t._arr is None and t._abs.is_dynamic


def is_dyn_int(v):
    return isinstance(v, AnfNode) and isinstance(v.abstract, AbstractDynInt)


def has_dyn_int(v):
    """True for a dynamic dimension's value, or a tuple/list holding one (x.shape)."""
    if isinstance(v, (tuple, list)):
        return any(has_dyn_int(x) for x in v)
    return is_dyn_int(v)


def _has_dynamic(v):
    if isinstance(v, AnfNode):
        return _dynamic_abstract(v.abstract)
    if isinstance(v, (tuple, list)):
        return any(_has_dynamic(x) for x in v)
    return False


def _dynamic_abstract(a):
    if isinstance(a, tuple):
        return any(_dynamic_abstract(x) for x in a)
    return isinstance(a, AbstractDynInt) or (isinstance(a, AbstractTensor) and a.is_dynamic)


def apply_signature(fn, signature, args):
    """Check `args` against `signature` (a Tensor, or a tuple/list of Tensors and other
    values); return the arguments to key and parse the graph with: each Tensor whose
    signature entry has a dynamic dimension becomes that placeholder."""
    sig = tuple(signature) if isinstance(signature, (tuple, list)) else (signature,)
    name = getattr(fn, "__qualname__", "jit")
    offset = len(args) - len(sig)          # a method's `self` comes before its signature
    if offset < 0 or offset > 1:
        raise TypeError(f"For '{name}', input_signature has {len(sig)} inputs, but the call "
                        f"gives {len(args) - (1 if offset > 0 else 0)}")
    try:
        params = list(inspect.signature(fn).parameters)[offset:]
    except (TypeError, ValueError):
        params = []
    out = list(args[:offset])
    for i, (s, a) in enumerate(zip(sig, args[offset:])):
        arg = f"'{params[i]}'" if i < len(params) else f"{i}"
        if not isinstance(s, Tensor):
            out.append(a)
            continue
        if not isinstance(a, Tensor):
            raise TypeError(f"For '{name}', the input {arg} must be a Tensor as in "
                            f"input_signature, but got {type(a).__name__}")
        want, got = s._abs, a._abs
        if want.dtype != got.dtype:
            raise TypeError(f"For '{name}', the input {arg} must have dtype {want.dtype} as in "
                            f"input_signature, but got {got.dtype}")
        if len(want.shape) != len(got.shape) or any(
                d >= 0 and d != e for d, e in zip(want.shape, got.shape)):
            raise ValueError(f"For '{name}', the input {arg} must have shape "
                             f"{list(want.shape)} as in input_signature (-1: any size), but "
                             f"got {list(got.shape)}")
        out.append(s if want.is_dynamic else a)
    return tuple(out)


def _probe_abstract(a, k):
    if isinstance(a, AbstractTensor) and a.is_dynamic:
        return abstract_tensor(a.dtype, tuple(PROBES[k] if d < 0 else d for d in a.shape))
    if isinstance(a, AbstractDynInt):
        return a.probes[k]
    if isinstance(a, tuple):
        return tuple(_probe_abstract(x, k) for x in a)
    return a


class DynamicMixin:
    """The parser's part for dynamic dimensions (see the module docstring)."""

    def probe_of(self, v, k, const=False):
        """`v` (an argument of a primitive call) as probe run `k` sees it."""
        if isinstance(v, AnfNode):
            a = v.abstract
            if isinstance(a, AbstractDynInt):
                return a.probes[k]
            if const:
                return a
            hit = self.__dict__.setdefault("dyn_probes", {}).get(v)
            return hit[k] if hit is not None else _probe_abstract(a, k)
        if isinstance(v, (tuple, list)):
            return tuple(self.probe_of(x, k, const) for x in v)
        return v if const else self.abstract_of(v)

    def infer_prim(self, prim, args, abstracts):
        """The abstract of prim(*args): infer_call, or the two probe runs when an input has
        a dynamic dimension (merged: dims that differ become -1)."""
        self._dyn_last = None
        if not _has_dynamic(args):
            return infer_call(prim, abstracts)
        outs = [infer_call(prim, tuple(self.probe_of(a, k, i in prim.const_inputs)
                                       for i, a in enumerate(args))) for k in (0, 1)]
        merged = _merge(prim, outs[0], outs[1])
        self._dyn_last = outs
        return merged

    def prim_result(self, node, out):
        """The parser's value of an emitted primitive node (tuples unpacked); the probe
        shapes of dynamic results are remembered."""
        outs, self._dyn_last = getattr(self, "_dyn_last", None), None
        if outs is None:
            return self.unpack(node) if isinstance(out, tuple) else node
        probes = self.__dict__.setdefault("dyn_probes", {})
        if not isinstance(out, tuple):
            probes[node] = tuple(_unfold(o) for o in outs)
            return node
        from ..ir.anf import TUPLE_GETITEM
        items = []
        for i, a in enumerate(out):
            if not isinstance(a, (AbstractTensor, AbstractDynInt, tuple)):
                items.append(a)                     # a static item of a dynamic tuple
                continue
            item = self.emit([TUPLE_GETITEM, node, i], a)
            probes[item] = tuple(_unfold(o)[i] for o in outs)
            items.append(item)
        return tuple(items)

    def dyn_shape(self, node):
        """x.shape of a tensor with dynamic dimensions: ints and run-time Int64 nodes."""
        from ..ops.operations.array_ops import Shape
        return self.emit_prim(_shape_prim(Shape), (node,))

    def dyn_equal(self, fn, left, right):
        """`==` / `!=` on dynamic dimensions or shapes holding them (`y.shape != (n,)` in an
        op's argument check). Two dynamic values are equal when both probe runs agree: the
        same assumption inference makes (x + y with x, y of shape (-1, 4) infers), and the
        kernels check the real sizes at run time. A dynamic value against an int, or two
        that differ in the probes, needs the number itself: an error naming the line."""
        def equal(a, b):
            if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
                return (type(a) is type(b) and len(a) == len(b)
                        and all(equal(x, y) for x, y in zip(a, b)))
            if a is b:
                return True
            if is_dyn_int(a) and is_dyn_int(b) and a.abstract.probes == b.abstract.probes:
                return True
            if not is_dyn_int(a) and not is_dyn_int(b):
                return _same(a, b)
            raise self.error(ValueError(
                "comparing a dynamic dimension (a value known only at run time) with a value "
                "it may or may not equal: graph mode needs a constant here"))
        same = equal(left, right)
        return same if fn is operator.eq else not same

    def scalar_binop(self, fn, left, right, what):
        """`n * 2` and friends on dynamic dimensions: a ScalarOp node (or a constant when
        the probe runs agree, e.g. n - n)."""
        name = _SCALAR_OPS.get(fn)
        ok = all(is_dyn_int(v) or (isinstance(v, int) and not isinstance(v, bool))
                 for v in (left, right))
        if name is None or not ok:
            raise self.error(ValueError(
                f"'{what}' on a dynamic dimension (a value known only at run time): graph "
                f"mode needs a constant here; only + - * // % of ints are computed in the "
                f"graph"))
        probes = []
        for k in (0, 1):
            a, b = (v.abstract.probes[k] if is_dyn_int(v) else v for v in (left, right))
            try:
                probes.append(fn(a, b))
            except ZeroDivisionError as err:
                raise self.error(err) from None
        if probes[0] == probes[1]:
            return probes[0]
        op = _OPS.get(name)
        if op is None:
            op = _OPS[name] = ScalarOp(name, fn)
        return self.emit([op, left, right], AbstractDynInt(probes))


_SHAPE = []


def _shape_prim(cls):
    if not _SHAPE:
        _SHAPE.append(cls())
    return _SHAPE[0]


def _unfold(o):
    return o.value if isinstance(o, Folded) else o


def _merge(prim, a, b):
    if isinstance(a, Folded) and isinstance(b, Folded):
        return a if _same(a.value, b.value) else _dyn_value(prim, a.value, b.value)
    if isinstance(a, AbstractTensor) and isinstance(b, AbstractTensor):
        if a.dtype is not b.dtype or len(a.shape) != len(b.shape):
            raise ValueError(f"For '{prim.name}', the output's dtype or rank depends on a "
                             f"dynamic dimension: graph mode needs them fixed")
        return abstract_tensor(a.dtype, tuple(d if d == e else -1
                                              for d, e in zip(a.shape, b.shape)))
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(_merge(prim, x, y) if isinstance(x, (AbstractTensor, tuple))
                     else _dyn_value(prim, x, y) if not _same(x, y) else x
                     for x, y in zip(a, b))
    raise ValueError(f"For '{prim.name}', whether the output is a constant depends on a "
                     f"dynamic dimension: graph mode needs a fixed answer")


def _same(x, y):
    try:
        return type(x) is type(y) and bool(x == y)
    except Exception:
        return False


def _dyn_value(prim, x, y):
    if isinstance(x, int) and isinstance(y, int) and not isinstance(x, bool):
        return AbstractDynInt((x, y))
    if isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y):
        return tuple(x1 if _same(x1, y1) else _dyn_value(prim, x1, y1) for x1, y1 in zip(x, y))
    raise ValueError(f"For '{prim.name}', the value depends on a dynamic dimension and is "
                     f"not an int: graph mode needs a constant here")
