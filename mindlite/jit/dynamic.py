"""Dynamic dimensions in graph mode: placeholders, input_signature / set_inputs, inference.

    Tensor(shape=[None, 3], dtype=ms.float32)   a placeholder: no data, shape (-1, 3)
    @jit(input_signature=(placeholder, ...))    one graph for every size of the None dims
    cell.set_inputs(placeholder, ...)           the same for a GRAPH_MODE Cell

A call is checked against the signature (TypeError / ValueError naming the argument and
the mismatch); each Tensor argument whose signature entry has a dynamic dimension is
replaced by the placeholder for the cache key and the parse, so the graph is compiled
once and its abstracts carry -1 for the unknown dimensions (MindSpore's convention).

Inference keeps one copy of the shape rules, the primitives' own `infer`: a call with a
dynamic input is inferred three times, with every unknown dimension replaced by a probe
size: two large probes and the call's own size (the hint: the sizes of the call that
compiles the graph). The probes are the hint plus 720720 and 2 * 720720 (720720 = the
least common multiple of 1..16), so a rule that needs divisibility (a reshape to (-1, 2))
sees the hint's residues, and they differ, so a dimension that grows with the input is
seen to. An output dimension equal in all three runs is static, one that differs is -1; a
node remembers its three probe shapes (`dyn_probes`). A rule that fails only on a probe
gives the hint's own (static) result. At run time the graph's primitives run on the real
tensors, so results equal eager's.

Shape-dependent Python code: `x.shape` of a tensor with a dynamic dimension is a Shape
node; its dynamic items are TupleGetItem nodes whose abstract is AbstractDynInt (an Int64
known at run time), static items stay ints. `+ - * // %` on those emit ScalarOp nodes
(never folded: `n % 2` is known only at run time), and they can be passed to primitives
(Reshape's shape, a scalar operand, a slice bound). Where Python needs the number itself
(`if n % 2 == 0`, `n > 2`, `x.shape == (3, 4)`, `range(n)`), the hint decides, and the
decision is recorded as a guard.

Nothing here is assumed for other sizes: a graph compiled with a hint is used for a call
of other sizes only after jit/dyn_check.py has checked it for those sizes (every guard
holds, every static dimension of every node is what inference gives for the real sizes);
otherwise the call gets a graph of its own (a guard failure re-specializes). Without a hint
(export with placeholders: a model file is one graph for every size) the probes are 1031,
1040 and 17 and a decision that needs a dynamic value is an error naming the line.
"""
import inspect
import operator

from ..common.abstract import AbstractScalar, AbstractTensor, abstract_tensor
from ..common.tensor import Tensor
from ..ir.anf import AnfNode
from ..ir.infer import Folded, infer_call

STEP = 720720                    # lcm(1..16): probes keep the hint's residues mod m <= 16
GENERIC = (1031, 1040, 17, 1, 2, 3)   # without a hint: odd prime, even, small; then the
                                      # checking sizes (a rule that fails there is skipped)
UNKNOWN = object()               # a probe value inference could not give (see switch joins)


def probe_dims(hint):
    """The three sizes a dynamic dimension is inferred with, for a call of size `hint`."""
    return GENERIC if hint is None else (hint + STEP, hint + 2 * STEP, hint)


def _count(hinted):
    return 3 if hinted else len(GENERIC)


class AbstractDynInt(AbstractScalar):
    """An Int64 known only at run time (a dynamic dimension); `probes` = its value in the
    three probe inferences (the last one: the hint's)."""
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
        return abstract_tensor(a.dtype, tuple(GENERIC[k] if d < 0 else d for d in a.shape))
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
            if hit is not None:
                return hit[k]
            if getattr(self, "hinted", False) and _dynamic_abstract(a):
                return UNKNOWN              # (a value no probe run reached: see same_probes)
            return _probe_abstract(a, k)
        if isinstance(v, (tuple, list)):
            return tuple(self.probe_of(x, k, const) for x in v)
        return v if const else self.abstract_of(v)

    def hint_param(self, node, hint):
        """Register a graph input of dynamic shape: `hint` = the abstract of the compiling
        call's tensor (or None: no hint)."""
        a = node.abstract
        if hint is None:
            self.__dict__.setdefault("dyn_probes", {})[node] = tuple(
                _probe_abstract(a, k) for k in range(len(GENERIC)))
            return
        self.hinted = True
        dims = [probe_dims(h) if d < 0 else (d, d, d) for d, h in zip(a.shape, hint.shape)]
        self.__dict__.setdefault("dyn_probes", {})[node] = tuple(
            abstract_tensor(a.dtype, tuple(d[k] for d in dims)) for k in range(3))

    def infer_prim(self, prim, args, abstracts):
        """The abstract of prim(*args): infer_call, or the three probe runs when an input has
        a dynamic dimension (merged: dims that differ become -1)."""
        self._dyn_last = None
        if not _has_dynamic(args):
            return infer_call(prim, abstracts)
        outs = []
        hinted = getattr(self, "hinted", False)
        for k in range(_count(hinted)):
            probe = tuple(self.probe_of(a, k, i in prim.const_inputs) for i, a in enumerate(args))
            if _has_unknown(probe):
                if k >= 3:                  # a checking size an earlier rule failed at
                    outs.append(ValueError())
                    continue
                raise self.unsupported(f"'{prim.name}' on a value whose size for this call is "
                                       f"not known when the graph is compiled")
            try:
                outs.append(infer_call(prim, probe))
            except (TypeError, ValueError) as err:
                outs.append(err)
        bad = [o for o in outs[:3] if isinstance(o, Exception)]
        if bad and (not hinted or isinstance(outs[2], Exception)):
            raise outs[2] if isinstance(outs[2], Exception) else bad[0]
        if bad:                             # only a probe fails: the hint's own result
            outs = [outs[2]] * 3
        # without a hint, the small checking sizes where the rule holds must agree too (a
        # clamp such as x[:2] gives 2 for every large size); where it fails they are left
        # out (a graph is not asked to run at a size eager fails at)
        outs = [UNKNOWN if isinstance(o, Exception) else o for o in outs]
        merged = _merge(prim, outs)
        if hinted and isinstance(merged, Folded):   # equal for the three sizes: checked later
            self.dyn_guard(("fold", prim, args, merged.value))
        self._dyn_last = outs
        return merged

    def prim_result(self, node, out):
        """The parser's value of an emitted primitive node (tuples unpacked); the probe
        shapes of dynamic results are remembered."""
        outs, self._dyn_last = getattr(self, "_dyn_last", None), None
        if outs is None:
            return self.unpack(node) if isinstance(out, tuple) else node
        if getattr(self, "hinted", False):     # its abstract is checked for other sizes,
            self.dyn_guard(("node", node))     # even when a pass removes the node
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
            probes[item] = tuple(_item(o, i) for o in outs)
            items.append(item)
        return tuple(items)

    def dyn_shape(self, node):
        """x.shape of a tensor with dynamic dimensions: ints and run-time Int64 nodes."""
        from ..ops.operations.array_ops import Shape
        return self.emit_prim(_shape_prim(Shape), (node,))

    def scalar_binop(self, fn, left, right, what):
        """`n * 2` and friends on dynamic dimensions: a ScalarOp node computed at run time;
        a comparison (`n > 2`) is decided by the hint and guarded."""
        if fn in _DECIDED:
            return self.dyn_decide(fn, left, right, f"'{what}' on a dynamic dimension")
        name = _SCALAR_OPS.get(fn)
        ok = all(is_dyn_int(v) or (isinstance(v, int) and not isinstance(v, bool))
                 for v in (left, right))
        if name is None or not ok:
            raise self.error(ValueError(
                f"'{what}' on a dynamic dimension (a value known only at run time): graph "
                f"mode needs a constant here; only + - * // % of ints are computed in the "
                f"graph"))
        probes = []
        for k in range(_count(getattr(self, "hinted", False))):
            a, b = (v.abstract.probes[k] if is_dyn_int(v) else v for v in (left, right))
            try:
                probes.append(UNKNOWN if UNKNOWN in (a, b) else fn(a, b))
            except ZeroDivisionError as err:
                if k == 2 or (k < 2 and not getattr(self, "hinted", False)):
                    raise self.error(err) from None
                probes.append(UNKNOWN)
        op = _OPS.get(name)
        if op is None:
            op = _OPS[name] = ScalarOp(name, fn)
        return self.emit([op, left, right], AbstractDynInt(probes))

def _has_unknown(v):
    if v is UNKNOWN:
        return True
    return isinstance(v, tuple) and any(_has_unknown(x) for x in v)


_DECIDED = frozenset((operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
                      operator.ne))


_SHAPE = []


def _shape_prim(cls):
    if not _SHAPE:
        _SHAPE.append(cls())
    return _SHAPE[0]


def _unfold(o):
    return o.value if isinstance(o, Folded) else o


def _item(o, i):
    return UNKNOWN if o is UNKNOWN else _unfold(o)[i]


def _merge(prim, outs):
    """One abstract for the probe runs' results (UNKNOWN: a checking size the rule failed
    at, left out of every comparison but keeping its place in a dynamic int's probes)."""
    known = [o for o in outs if o is not UNKNOWN]
    a = known[0]
    if all(isinstance(o, Folded) for o in known):
        if all(_same(a.value, o.value) for o in known[1:]):
            return a
        return _dyn_value(prim, [o if o is UNKNOWN else o.value for o in outs])
    if all(isinstance(o, AbstractTensor) for o in known):
        if any(o.dtype is not a.dtype or len(o.shape) != len(a.shape) for o in known[1:]):
            raise ValueError(f"For '{prim.name}', the output's dtype or rank depends on a "
                             f"dynamic dimension: graph mode needs them fixed")
        return abstract_tensor(a.dtype, tuple(
            d if all(o.shape[i] == d for o in known[1:]) else -1 for i, d in enumerate(a.shape)))
    if all(isinstance(o, tuple) and len(o) == len(a) for o in known):
        items = []
        for i, x in enumerate(a):
            col = [UNKNOWN if o is UNKNOWN else o[i] for o in outs]
            sure = [c for c in col if c is not UNKNOWN]
            if isinstance(x, (AbstractTensor, tuple)):
                items.append(_merge(prim, col))
            elif all(_same(x, y) for y in sure[1:]):
                items.append(x)
            else:
                items.append(_dyn_value(prim, col))
        return tuple(items)
    raise ValueError(f"For '{prim.name}', whether the output is a constant depends on a "
                     f"dynamic dimension: graph mode needs a fixed answer")


def _same(x, y):
    try:
        return type(x) is type(y) and bool(x == y)
    except Exception:
        return False


def _dyn_value(prim, col):
    sure = [v for v in col if v is not UNKNOWN]
    x = sure[0]
    if all(isinstance(v, int) and not isinstance(v, bool) for v in sure):
        return AbstractDynInt(col)
    if all(isinstance(v, tuple) and len(v) == len(x) for v in sure):
        return tuple(x[i] if all(_same(x[i], v[i]) for v in sure[1:])
                     else _dyn_value(prim, [v if v is UNKNOWN else v[i] for v in col])
                     for i in range(len(x)))
    raise ValueError(f"For '{prim.name}', the value depends on a dynamic dimension and is "
                     f"not an int: graph mode needs a constant here")
