"""The fuzzer's expressions (program.py's generator, the part that writes one expression of
a known type over the variables in scope): registry primitives, reductions, casts,
select, slices, concat, matmul, reshape/transpose, softmax, shape arithmetic, aliases.
Each `e_<kind>(scope)` gives (source, (dtype, shape)) or None when the scope has nothing
it applies to; shapes hold "B" for the batch dimension.
"""
from . import ops_table as T

B = "B"


class ExprMixin:
    # ---- helpers ---------------------------------------------------------------------------
    def fresh(self, prefix="v"):
        self.count += 1
        return f"{prefix}{self.count}"

    def operands(self, scope, pred=lambda t: True, params=True):
        found = []
        s = scope
        while s is not None:
            found += [(n, t) for n, t in s.names.items() if pred(t) and n not in
                      {f for f, _ in found}]
            s = s.parent
        if params:
            found += [(f"self.{n}", (d, s)) for n, (d, s, _) in self.params.items()
                      if pred((d, s))]
        return sorted(found)

    def lookup(self, scope, name):
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def number(self, dtype):
        if dtype == "bool" or dtype.startswith("int") or self.c.boolean(0.3):
            return str(self.c.integer(-2, 3))
        return self.c.pick(["0.5", "1.5", "-0.25", "2.0", "3.0"])

    # ---- expressions -----------------------------------------------------------------------
    def expr(self, scope, want=None):
        """(source, type) of an expression over the scope, of type `want` when given."""
        kinds = [self.e_unary, self.e_binary, self.e_reduce, self.e_cast, self.e_select,
                 self.e_slice, self.e_concat, self.e_matmul, self.e_reshape, self.e_shape,
                 self.e_softmax, self.e_alias]
        for _ in range(8):
            got = self.c.pick(kinds)(scope)
            if got is not None and (want is None or got[1] == want):
                return got
        if want is not None:
            return self.like(scope, want)
        return self.like(scope, ("float32", (B, self.f)))

    def like(self, scope, want):
        """An expression of exactly type `want` (a cast/broadcast of something at hand)."""
        dtype, shape = want
        same = self.operands(scope, lambda t: t == want)
        if same:
            name = self.c.pick(same)[0]
            op = self.c.pick(["+ 1", "* 2", "- 1"]) if dtype != "bool" else "== True"
            return (f"{name} {op}" if dtype != "bool" else f"ops.logical_not({name})"), want
        src = "x0" if shape[:1] == (B,) else "self.w0"
        base = self.lookup(scope, "x0") if src == "x0" else self.params["w0"][:2]
        expr = src if base[1] == shape else f"ops.zeros({_shape_src(shape)}, ms.float32) + " \
            f"{src}.sum()"
        return f"ops.cast({expr}, ms.{_ms(dtype)})", want

    def e_unary(self, scope):
        name, t = self.c.pick(self.operands(scope))
        ops = [p for p in T.primitives("unary") if T.result_dtype(p, (t[0],)) is not None
               and (not self.grad or p in T.DIFFERENTIABLE)]
        if not ops:
            return None
        op = self.c.pick(ops)
        self.features.add(f"unary:{op}")
        return f"ops.{op}()({name})", (T.result_dtype(op, (t[0],)), t[1])

    def e_binary(self, scope):
        a, ta = self.c.pick(self.operands(scope))
        if self.c.boolean(0.3):
            b = self.number(ta[0])
            tb = ("float" if "." in b else "int", ())
        else:
            b, tb = self.c.pick(self.operands(
                scope, lambda t: T.broadcast(ta[1], t[1]) is not None))
        shape = T.broadcast(ta[1], tb[1])
        ops = [p for p in T.primitives("binary")
               if T.result_dtype(p, (ta[0], tb[0])) in (T.FLOATS if self.grad else T.DTYPES)
               and (not self.grad or p in T.DIFFERENTIABLE)]
        if not ops or shape is None:
            return None
        op = self.c.pick(ops)
        self.features.add(f"binary:{op}")
        out = (T.result_dtype(op, (ta[0], tb[0])), shape)
        sym = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "Greater": ">", "Less": "<",
               "Equal": "=="}.get(op)
        if sym is not None and self.c.boolean(0.6):
            return f"({a} {sym} {b})", out
        return f"ops.{op}()({a}, {b})", out

    def e_reduce(self, scope):
        cands = self.operands(scope, lambda t: len(t[1]) >= 1)
        if not cands:
            return None
        name, (dtype, shape) = self.c.pick(cands)
        ops = [r for r, ok in T.REDUCTIONS.items() if dtype in ok
               and (not self.grad or r in T.DIFFERENTIABLE)]
        if not ops:
            return None
        op = self.c.pick(ops)
        keep = self.c.boolean(0.3)
        axes = [i for i, d in enumerate(shape) if d != B] + [()]
        if self.c.boolean(0.2):
            axes.append(0)                           # over the batch too (B may be 1)
        axis = self.c.pick(axes)
        if axis == ():
            out = tuple(1 for _ in shape) if keep else ()
        else:
            out = tuple(1 if i == axis else d for i, d in enumerate(shape)) if keep else \
                tuple(d for i, d in enumerate(shape) if i != axis)
        self.features.add(f"reduce:{op}")
        return f"ops.{op}(keep_dims={keep})({name}, {axis})", (dtype, out)

    def e_cast(self, scope):
        name, t = self.c.pick(self.operands(scope))
        to = self.c.pick(T.FLOATS if self.grad else T.DTYPES)
        self.features.add("cast")
        return f"ops.cast({name}, ms.{_ms(to)})", (to, t[1])

    def e_select(self, scope):
        conds = self.operands(scope, lambda t: t[0] == "bool" and t[1])
        if not conds or self.grad and self.c.boolean(0.5):
            if not self.grad:
                return None
            name, t = self.c.pick(self.operands(scope, lambda t: t[0] in T.FLOATS and t[1]))
            return f"ops.select({name} > 0, {name}, {name} * 0.5)", t
        cond, tc = self.c.pick(conds)
        same = self.operands(scope, lambda t: t[1] == tc[1] and t[0] != "bool")
        if not same:
            return None
        a, ta = self.c.pick(same)
        b = self.c.pick([n for n, t in same if t == ta])
        self.features.add("select")
        return f"ops.select({cond}, {a}, {b})", ta

    def e_slice(self, scope):
        cands = self.operands(scope, lambda t: len(t[1]) >= 1 and t[0] != "bool")
        if not cands:
            return None
        name, (dtype, shape) = self.c.pick(cands)
        axis = self.c.integer(0, len(shape) - 1)
        d = shape[axis]
        pre = ":, " * axis
        if d == B:                                   # a clamp: fewer rows when B < k
            self.features.add("slice:batch")
            return f"{name}[{pre}:{self.c.integer(1, 3)}].sum()", (dtype, ())
        if d > 1 and self.c.boolean(0.5):
            self.features.add("slice:int")
            return f"{name}[{pre}{self.c.integer(0, d - 1)}]", \
                (dtype, shape[:axis] + shape[axis + 1:])
        lo = self.c.integer(0, d - 1)
        self.features.add("slice")
        return f"{name}[{pre}{lo}:]", (dtype, shape[:axis] + (d - lo,) + shape[axis + 1:])

    def e_concat(self, scope):
        cands = self.operands(scope, lambda t: len(t[1]) >= 1 and t[1][-1] != B)
        if not cands:
            return None
        name, (dtype, shape) = self.c.pick(cands)
        self.features.add("concat")
        return f"ops.concat(({name}, {name}), -1)", (dtype, shape[:-1] + (2 * shape[-1],))

    def e_matmul(self, scope):
        w = self.params.get("w1")
        cands = self.operands(scope, lambda t: t[0] == "float32" and len(t[1]) == 2
                              and t[1][1] == w[1][0]) if w else []
        if not cands:
            return None
        name, (_, shape) = self.c.pick(cands)
        self.features.add("matmul")
        return f"ops.matmul({name}, self.w1)", ("float32", (shape[0], w[1][1]))

    def e_reshape(self, scope):
        cands = self.operands(scope, lambda t: len(t[1]) == 2 and t[1][0] == B
                              and t[1][1] != B and t[1][1] % 2 == 0 and t[0] != "bool")
        if not cands:
            cands = self.operands(scope, lambda t: len(t[1]) == 2 and B not in t[1])
            if not cands:
                return None
            name, (dtype, shape) = self.c.pick(cands)
            self.features.add("transpose")
            return f"ops.transpose({name}, (1, 0))", (dtype, shape[::-1])
        name, (dtype, shape) = self.c.pick(cands)
        self.features.add("reshape")
        half = shape[1] // 2
        if self.c.boolean(0.5):
            return f"{name}.reshape((-1, 2, {half})).sum(1)", (dtype, (B, half))
        return f"{name}.reshape(({name}.shape[0], 2, {half}))[:, 1]", (dtype, (B, half))

    def e_shape(self, scope):
        cands = self.operands(scope, lambda t: t[0] in T.FLOATS and t[1][:1] == (B,),
                              params=False)
        if not cands:
            return None
        name, t = self.c.pick(cands)
        form = self.c.pick([f"{name} * {name}.shape[0]", f"{name} + ({name}.shape[0] % 3)",
                            f"{name} - {name}.shape[0] // 2",
                            f"{name} * (x0.shape[0] * 2 - 1)",
                            f"{name} * {name}[:2].shape[0]"])
        self.features.add("shape_arith")
        return form, t

    def e_softmax(self, scope):
        cands = self.operands(scope, lambda t: t[0] in T.FLOATS and len(t[1]) >= 1)
        if not cands:
            return None
        name, t = self.c.pick(cands)
        self.features.add("softmax")
        return f"ops.softmax({name}, -1)", t

    def e_alias(self, scope):
        if self.grad:
            return None
        name, t = self.c.pick(self.operands(scope, params=False))
        self.features.add("alias")
        return name, t


def _ms(dtype):
    return "bool_" if dtype == "bool" else dtype


def _shape_src(shape):
    return "(" + ", ".join("x0.shape[0]" if d == B else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"
