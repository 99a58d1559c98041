"""Expressions of the graph-mode parser: names, constants, attributes, subscripts,
operators, comparisons, boolean and conditional expressions, comprehensions, lambdas.

An operator on constants is computed now (Python's own semantics, constant Tensors
included: that is constant folding). An operator with a tensor node goes through the
Tensor class's dunder method, parsed like any other function, so `x - 1` reaches the
same `F.sub` -> `Sub` primitive call eager makes.
"""
import ast
import builtins
import functools
import operator
import types

from ...common.abstract import AbstractTensor
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ir.anf import AnfNode, ParameterNode
from ..dynamic import has_dyn_int, is_dyn_int
from .stmt import Unknown

_BIN = {ast.Add: ("__add__", "__radd__", operator.add),
        ast.Sub: ("__sub__", "__rsub__", operator.sub),
        ast.Mult: ("__mul__", "__rmul__", operator.mul),
        ast.Div: ("__truediv__", "__rtruediv__", operator.truediv),
        ast.FloorDiv: ("__floordiv__", "__rfloordiv__", operator.floordiv),
        ast.Mod: ("__mod__", "__rmod__", operator.mod),
        ast.Pow: ("__pow__", "__rpow__", operator.pow),
        ast.MatMult: ("__matmul__", "__rmatmul__", operator.matmul),
        ast.BitAnd: ("__and__", "__rand__", operator.and_),
        ast.BitOr: ("__or__", "__ror__", operator.or_),
        ast.BitXor: ("__xor__", "__rxor__", operator.xor),
        ast.LShift: ("__lshift__", "__rlshift__", operator.lshift),
        ast.RShift: ("__rshift__", "__rrshift__", operator.rshift)}
_AUG = {ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul}
_CMP = {ast.Eq: ("__eq__", "__eq__", operator.eq), ast.NotEq: ("__ne__", "__ne__", operator.ne),
        ast.Lt: ("__lt__", "__gt__", operator.lt), ast.LtE: ("__le__", "__ge__", operator.le),
        ast.Gt: ("__gt__", "__lt__", operator.gt), ast.GtE: ("__ge__", "__le__", operator.ge)}
_TENSOR_ATTRS = ("shape", "dtype", "ndim", "size")
_NOT_FOUND = object()


class ExprMixin:
    def expr(self, e, frame):
        method = getattr(self, "e_" + type(e).__name__, None)
        if method is None:
            raise self.unsupported(f"the expression '{type(e).__name__}'")
        return method(e, frame)

    def e_Constant(self, e, frame):
        return e.value

    def e_Name(self, e, frame):
        name = e.id
        f = frame
        while f is not None:
            if name in f.vars:
                v = f.vars[name]
                if isinstance(v, Unknown):
                    raise self.unsupported(v.what)
                return v
            f = f.enclosing
        for scope in (frame.closure, frame.globals, vars(builtins)):
            if name in scope:
                return self.lift(scope[name])
        if frame.enclosing is not None:
            f = frame.enclosing
            while f is not None:
                for scope in (f.closure, f.globals):
                    if name in scope:
                        return self.lift(scope[name])
                f = f.enclosing
        raise self.error(NameError(f"name '{name}' is not defined"))

    def e_Tuple(self, e, frame):
        return tuple(self._elts(e.elts, frame))

    def e_List(self, e, frame):
        return self.local(list(self._elts(e.elts, frame)))

    def _elts(self, elts, frame):
        out = []
        for x in elts:
            if isinstance(x, ast.Starred):
                out.extend(self.iterate(self.expr(x.value, frame)))
            else:
                out.append(self.expr(x, frame))
        return out

    def e_Dict(self, e, frame):
        out = {}
        for k, v in zip(e.keys, e.values):
            if k is None:
                out.update(self.expr(v, frame))
                continue
            key = self.expr(k, frame)
            if isinstance(key, AnfNode):
                raise self.unsupported("a dict key computed in the graph")
            out[key] = self.expr(v, frame)
        return self.local(out)

    def e_JoinedStr(self, e, frame):
        parts = []
        for v in e.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
                continue
            val = self.expr(v.value, frame)
            if isinstance(val, AnfNode):
                val = f"Tensor({val.abstract})"
            spec = self.expr(v.format_spec, frame) if v.format_spec is not None else ""
            conv = {115: str, 114: repr, 97: ascii}.get(v.conversion)
            parts.append(format(conv(val) if conv else val, spec))
        return "".join(parts)

    def e_Slice(self, e, frame):
        parts = [None if p is None else self.expr(p, frame) for p in (e.lower, e.upper, e.step)]
        if any(isinstance(p, AnfNode) and not is_dyn_int(p) for p in parts):
            raise self.unsupported("slice bounds computed in the graph (they must be constants "
                                   "or dynamic dimensions)")
        return slice(*parts)

    def e_Lambda(self, e, frame):
        return self.make_closure(e, frame)

    def make_closure(self, node, frame):
        from .values import GraphClosure
        a = node.args
        defaults = [self.expr(d, frame) for d in a.defaults]
        kw = [None if d is None else self.expr(d, frame) for d in a.kw_defaults]
        return GraphClosure(node, frame, defaults, kw)

    # ---- attributes and subscripts ------------------------------------------------------------
    def e_Attribute(self, e, frame):
        return self.get_attr(self.expr(e.value, frame), e.attr)

    def get_attr(self, obj, name, default=_NOT_FOUND):
        from .values import GraphMethod
        if isinstance(obj, AnfNode):
            a = obj.abstract
            if not isinstance(a, AbstractTensor):
                raise self.unsupported(f"the attribute '{name}' of a {a}")
            if name in ("shape", "size") and a.is_dynamic:
                shape = self.dyn_shape(obj)
                return shape if name == "shape" else functools.reduce(
                    lambda m, d: self.binop(ast.Mult(), m, d), shape, 1)
            if name in _TENSOR_ATTRS:
                return {"shape": a.shape, "dtype": a.dtype, "ndim": len(a.shape),
                        "size": a.size}[name]
            if name == "_abs":
                return a
            cls = Parameter if isinstance(obj, ParameterNode) and obj.default is not None \
                else Tensor
            attr = _static(cls, name)
            if isinstance(attr, property):
                return self.call_function(attr.fget, (obj,), {})
            if callable(attr) and hasattr(attr, "__code__"):
                return GraphMethod(attr, obj)
            if default is not _NOT_FOUND:
                return default
            raise self.unsupported(f"the Tensor attribute '{name}' on a tensor computed in "
                                   f"the graph")
        try:
            value = getattr(obj, name)
        except AttributeError as e:
            if default is not _NOT_FOUND:
                return default
            raise self.error(e) from None
        if not isinstance(obj, (type, types.ModuleType, super)):
            self.guards.setdefault((id(obj), name), (obj, name, value))
        return self.lift(value)

    def e_Subscript(self, e, frame):
        obj = self.expr(e.value, frame)
        index = self.expr(e.slice, frame)
        self.at(frame, e)
        return self.getitem(obj, index)

    def getitem(self, obj, index):
        if isinstance(obj, AnfNode) or (isinstance(obj, Tensor) and isinstance(index, AnfNode)):
            if not isinstance(self.abstract_of(obj), AbstractTensor):
                raise self.unsupported("indexing this graph value")
            return self.call_value(Tensor.__getitem__, (obj, index), {})
        if isinstance(index, AnfNode):
            raise self.unsupported("indexing a sequence with a tensor computed in the graph")
        try:
            return self.lift(obj[index])
        except (IndexError, KeyError, TypeError) as e:
            raise self.error(e) from None

    # ---- operators ---------------------------------------------------------------------------
    def e_BinOp(self, e, frame):
        left, right = self.expr(e.left, frame), self.expr(e.right, frame)
        self.at(frame, e)
        result = self.binop(e.op, left, right)
        if isinstance(result, (list, dict, set)) and result is not left and result is not right:
            self.local(result)          # a new container ([0] * n, a + b): the graph code's own
        return result

    def binop(self, op, left, right, aug=False):
        spec = _BIN.get(type(op))
        if spec is None:
            raise self.unsupported(f"the operator '{type(op).__name__}'")
        forward, reflected, fn = spec
        if aug and isinstance(left, (list, dict, set)) and id(left) not in self.locals:
            aug = False                  # `lst += x` on a list from outside: a new list
        return self._dunder(forward, reflected, _AUG.get(type(op), fn) if aug else fn,
                            left, right, type(op).__name__)

    def _dunder(self, forward, reflected, fn, left, right, what):
        from .values import is_dyn
        if fn in (operator.eq, operator.ne) and (has_dyn_int(left) or has_dyn_int(right)):
            return self.dyn_equal(fn, left, right)
        if not isinstance(left, AnfNode) and not isinstance(right, AnfNode):
            if not is_dyn(left) and not is_dyn(right) or \
                    (isinstance(left, (tuple, list)) and not isinstance(right, AnfNode)):
                try:
                    return fn(left, right)
                except Exception as e:
                    raise self.error(e) from None
        from .values import is_tensor
        if (is_dyn_int(left) or is_dyn_int(right)) and not (is_tensor(left) or is_tensor(right)):
            return self.scalar_binop(fn, left, right, what)
        if is_tensor(left) and hasattr(Tensor, forward):
            return self.call_value(getattr(Tensor, forward), (left, right), {})
        if is_tensor(right) and hasattr(Tensor, reflected):
            return self.call_value(getattr(Tensor, reflected), (right, left), {})
        raise self.unsupported(f"'{what}' on these graph values")

    def e_UnaryOp(self, e, frame):
        v = self.expr(e.operand, frame)
        op = type(e.op)
        if op is ast.Not:
            c = self.condition(v) if not isinstance(e.operand, ast.BoolOp) else \
                self.test(e.operand, frame)
            if isinstance(c, AnfNode):
                from ...ops.function import math_func
                return self.call_value(math_func.logical_not, (c,), {})
            return not c
        if not isinstance(v, AnfNode):
            try:
                return {ast.USub: operator.neg, ast.UAdd: operator.pos,
                        ast.Invert: operator.invert}[op](v)
            except Exception as err:
                raise self.error(err) from None
        name = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}[op]
        return self.call_value(getattr(Tensor, name), (v,), {})

    def e_Compare(self, e, frame):
        left = self.expr(e.left, frame)
        result = True
        for op, comp in zip(e.ops, e.comparators):
            right = self.expr(comp, frame)
            self.at(frame, e)
            r = self.compare(op, left, right)
            if len(e.ops) > 1 and isinstance(r, AnfNode):
                raise self.unsupported("chained comparisons on tensors")
            if len(e.ops) == 1:
                return r
            result = result and r
            if not result:
                return result
            left = right
        return result

    def compare(self, op, left, right):
        t = type(op)
        if t in (ast.Is, ast.IsNot):      # a node is its own value: never None, never a
            same = left is right            # constant (so `bias is None` folds)
            return same if t is ast.Is else not same
        if t in (ast.In, ast.NotIn):
            from .values import is_dyn
            if isinstance(left, AnfNode) or isinstance(right, AnfNode) or is_dyn(right):
                if not any(x is left for x in (right if isinstance(right, (tuple, list)) else ())):
                    raise self.unsupported("'in' on tensors computed in the graph")
                return t is ast.In
            return (left in right) if t is ast.In else (left not in right)
        forward, reflected, fn = _CMP[t]
        return self._dunder(forward, reflected, fn, left, right, t.__name__)

    # ---- comprehensions (over constant iterables: unrolled) ------------------------------------
    def e_ListComp(self, e, frame):
        return self.local(self._comp(e, frame, lambda f: self.expr(e.elt, f)))

    def e_GeneratorExp(self, e, frame):
        return tuple(self._comp(e, frame, lambda f: self.expr(e.elt, f)))

    def e_SetComp(self, e, frame):
        return self.local(set(self._comp(e, frame, lambda f: self.expr(e.elt, f))))

    def e_DictComp(self, e, frame):
        pairs = self._comp(e, frame, lambda f: (self.expr(e.key, f), self.expr(e.value, f)))
        return self.local(dict(pairs))

    def _comp(self, e, frame, elt):
        out = []
        inner = frame.fork()
        inner.enclosing = frame

        def gen(k):
            if k == len(e.generators):
                out.append(elt(inner))
                return
            g = e.generators[k]
            for item in self.iterate(self.expr(g.iter, inner)):
                self.assign(g.target, item, inner)
                conds = [self.condition(self.expr(c, inner)) for c in g.ifs]
                if any(isinstance(c, AnfNode) for c in conds):
                    raise self.unsupported("a comprehension filter on a tensor value")
                if all(conds):
                    gen(k + 1)
        gen(0)
        return out

    def iterate(self, v):
        """The items of a constant iterable, or of a tensor along axis 0 (unrolled)."""
        if isinstance(v, AnfNode):
            a = v.abstract
            if not isinstance(a, AbstractTensor) or not a.shape:
                raise self.unsupported(f"iterating over a {a}")
            if a.shape[0] < 0:
                raise self.unsupported("iterating over a tensor whose first dimension is "
                                       "dynamic (the loop would be unrolled)")
            return [self.getitem(v, i) for i in range(a.shape[0])]
        try:
            return [self.lift(x) for x in v]
        except TypeError as err:
            raise self.error(err) from None


def _static(cls, name):
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None
