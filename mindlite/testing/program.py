"""Random valid programs for the differential fuzzer, rendered as Python source.

A program is a module defining `Net(nn.Cell)`: Parameters (float vectors and a matmul
weight, an int vector sometimes, a sub-Cell with a Parameter of its own) and a construct
over two inputs, x0 (float32, (B, F)) and x1 (a dtype and a shape broadcastable against x0),
B the batch: 3 in static runs, dynamic in the dynamic ones. Its statements:

    v = op(...)              an elementwise primitive of the registry (ops_table.py) on
                             variables, Parameters or Python numbers, broadcast and with mixed
                             dtypes; a reduction, matmul, cast, select, slice, concat, reshape,
                             transpose, softmax; `x0.shape[0]` arithmetic
    if/elif/else             on a tensor (`v.sum() > c`), on a constant, on a shape fact
                             (`x0.shape[0] % 2 == 0`: a dynamic dimension decided per size)
    while                    on a tensor counter (and sometimes a data test), bounded
    for                      over range(n) and over a tensor's rows
    def / call               closures reading the enclosing variables, some with effects
    effects                  ops.assign, ops.assign_add, print, item assignment to a
                             Parameter or a local tensor, a sub-Cell updating its Parameter

The generator keeps every program valid: a variable keeps its dtype and shape through
branches and loops (graph mode's rule), new names made in a block stay in it. Choices come
from a `Choices` object (`pick(options)`, `integer(lo, hi)`, `boolean()`), so hypothesis
(fuzz.py) can drive and shrink it, and a plain seed can replay it.
"""
import random

from . import ops_table as T

B = "B"
MAX_DEPTH = 2


class RandomChoices:
    """Choices from a seeded random.Random (replays and long runs without hypothesis)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def pick(self, options):
        return options[self.rng.randrange(len(options))]

    def integer(self, lo, hi):
        return self.rng.randint(lo, hi)

    def boolean(self, p=0.5):
        return self.rng.random() < p


class Program:
    """A generated program: `source` (a module defining Net), the input types, and what it
    uses (so paths know what to expect: effects, prints, grad)."""

    def __init__(self, source, inputs, features):
        self.source = source
        self.inputs = inputs              # [(dtype, shape with "B")]
        self.features = features          # set of construct names used

    def __repr__(self):
        return f"Program(features={sorted(self.features)})\n{self.source}"


class _Scope:
    def __init__(self, names, parent=None):
        self.names = dict(names)          # variable -> (dtype, shape)
        self.parent = parent


class Generator:
    def __init__(self, choices, grad=False):
        self.c = choices
        self.grad = grad                  # only differentiable float ops, no effects
        self.count = 0
        self.features = set()
        self.lines = []
        self.params = {}                  # attribute -> (dtype, shape, init list)

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

    # ---- statements ------------------------------------------------------------------------
    def block(self, scope, depth, indent, n=None):
        n = n if n is not None else self.c.integer(1, 3)
        lines = []
        for _ in range(n):
            kinds = [self.s_assign] * 3 + [self.s_if, self.s_if_const, self.s_for,
                                           self.s_while, self.s_closure]
            if not self.pure:
                kinds += [self.s_effect, self.s_effect, self.s_setitem]
            if not self.grad:
                kinds += [self.s_sub]
            if depth >= MAX_DEPTH:
                kinds = [k for k in kinds if k not in (self.s_if, self.s_if_const, self.s_for,
                                                       self.s_while, self.s_closure)]
            lines += self.c.pick(kinds)(scope, depth, indent)
        return lines or [f"{indent}pass"]

    def target(self, scope, t, depth):
        """A name to assign a value of type t: an existing one of the same type (always
        allowed), or a new one (kept in the current block)."""
        same = [n for n, u in self.operands(scope, params=False) if u == t and n != "x0"
                and n != "x1"]
        if same and (depth > 0 or self.c.boolean(0.3)):
            return self.c.pick(same)
        name = self.fresh()
        scope.names[name] = t
        return name

    def s_assign(self, scope, depth, indent):
        src, t = self.expr(scope)
        if t is None:                                 # (a batch slice: shape "B" or less)
            return []
        if self.c.boolean(0.15):                      # a conditional expression
            other = self.operands(scope, lambda u: u == t, params=False)
            if other:
                self.features.add("ifexp")
                src = f"{src} if {self.cond(scope)} else {self.c.pick(other)[0]}"
        same = [n for n, u in self.operands(scope, params=False) if u == t
                and n not in ("x0", "x1")]
        if same and t[0] != "bool" and self.c.boolean(0.15):
            self.features.add("augassign")
            return [f"{indent}{self.c.pick(same)} {self.c.pick(['+=', '-=', '*='])} {src}"]
        return [f"{indent}{self.target(scope, t, depth)} = {src}"]

    def cond(self, scope, simple=False):
        name, t = self.c.pick(self.operands(scope, lambda t: t[0] != "bool" or not t[1]))
        red = self.c.pick(["sum", "mean", "max"]) if t[0] in T.FLOATS else "sum"
        if t[0] == "bool":
            test = f"{name}.any()" if t[1] else name
        else:
            test = f"{name}.{red}() {self.c.pick(['>', '<', '>='])} {self.number('float32')}"
        if simple or not self.c.boolean(0.25):
            return test
        self.features.add("bool_ops")
        return self.c.pick([f"not ({test})", f"({test}) and ({self.cond(scope, True)})",
                            f"({test}) or ({self.cond(scope, True)})",
                            f"({test}) and x0.shape[0] > 1"])

    def s_if(self, scope, depth, indent):
        self.features.add("if_tensor")
        lines = [f"{indent}if {self.cond(scope)}:"]
        lines += self.block(_Scope({}, scope), depth + 1, indent + "    ") or \
            [f"{indent}    pass"]
        if self.c.boolean(0.3):
            self.features.add("elif")
            lines += [f"{indent}elif {self.cond(scope)}:"]
            lines += self.block(_Scope({}, scope), depth + 1, indent + "    ") or \
                [f"{indent}    pass"]
        if self.c.boolean(0.6):
            lines += [f"{indent}else:"]
            lines += self.block(_Scope({}, scope), depth + 1, indent + "    ") or \
                [f"{indent}    pass"]
        return lines

    def s_if_const(self, scope, depth, indent):
        self.features.add("if_const")
        test = self.c.pick(["x0.shape[0] % 2 == 0", "x0.shape[0] > 2", "x0.shape[1] > 2",
                            "True", "x0.shape[0] == 1", f"len(x0) % 3 == {self.c.integer(0, 2)}"])
        if "shape[0]" in test or "len(" in test:
            self.features.add("if_dyn_dim")
        lines = [f"{indent}if {test}:"]
        lines += self.block(_Scope({}, scope), depth + 1, indent + "    ") or \
            [f"{indent}    pass"]
        lines += [f"{indent}else:"]
        lines += self.block(_Scope({}, scope), depth + 1, indent + "    ") or \
            [f"{indent}    pass"]
        return lines

    def s_for(self, scope, depth, indent):
        rows = self.operands(scope, lambda t: len(t[1]) >= 1 and t[1][0] != B
                             and t[1][0] <= 4 and t[0] != "bool")
        inner = _Scope({}, scope)
        if rows and self.c.boolean(0.4):
            name, (dtype, shape) = self.c.pick(rows)
            var = self.fresh("r")
            inner.names[var] = (dtype, shape[1:])
            self.features.add("for_tensor")
            head = f"{indent}for {var} in {name}:"
        else:
            var = self.fresh("k")
            self.features.add("for_range")
            head = f"{indent}for {var} in range({self.c.integer(1, 3)}):"
        return [head] + self.block(inner, depth + 1, indent + "    ")

    def s_while(self, scope, depth, indent):
        self.features.add("while_tensor")
        c = self.fresh("c")
        n = self.c.integer(1, 3)
        lines = [f"{indent}{c} = ops.zeros_like(x0.sum())"]
        test = f"{c} < {n}"
        if self.c.boolean(0.3):
            self.features.add("while_data")
            test = f"({c} < {n}) and ({self.cond(scope)})"
        lines.append(f"{indent}while {test}:")
        inner = _Scope({}, scope)
        lines += self.block(inner, depth + 1, indent + "    ")
        if self.c.boolean(0.2) and not self.grad:
            self.features.add("break")
            lines += [f"{indent}    if {self.cond(scope)}:", f"{indent}        break"]
        lines.append(f"{indent}    {c} = {c} + 1")
        return lines

    def s_closure(self, scope, depth, indent):
        self.features.add("closure")
        name, t = self.c.pick(self.operands(scope, params=False))
        fn, arg = self.fresh("f"), self.fresh("a")
        inner = _Scope({arg: t}, scope)
        body = []
        if not self.pure and self.c.boolean(0.3):
            body = self.s_effect(inner, depth + 1, indent + "    ")
        src, out = self.expr(inner)
        if out is None:
            src, out = arg, t
        lines = [f"{indent}def {fn}({arg}):"] + body + [f"{indent}    return {src}"]
        call = f"{fn}({name})"
        same = [n for n, u in self.operands(scope, params=False) if u == out
                and n not in ("x0", "x1")]
        if same and self.c.boolean(0.3):             # called under a tensor condition
            self.features.add("closure_in_if")
            return lines + [f"{indent}if {self.cond(scope)}:",
                            f"{indent}    {self.c.pick(same)} = {call}"]
        return lines + [f"{indent}{self.target(scope, out, depth)} = {call}"]

    def s_effect(self, scope, depth, indent):
        kind = self.c.pick(["assign", "assign_add", "print"])
        if kind == "print":
            self.features.add("print")
            name, _ = self.c.pick(self.operands(scope))
            extra = self.c.pick(["", ", x0.shape[1]", f", {name} * 2", ", 'end'"])
            return [f"{indent}print('p{self.fresh('')}', {name}{extra})"]
        w = self.c.pick(["w0", "w2"] if "w2" in self.params else ["w0"])
        dtype, shape, _ = self.params[w]
        src, _ = self.like(scope, (dtype, shape)) if self.c.boolean(0.3) else \
            self.expr(scope, (dtype, shape))
        self.features.add(kind)
        return [f"{indent}ops.{kind}(self.{w}, {src})"]

    def s_setitem(self, scope, depth, indent):
        if self.c.boolean(0.5):
            dtype, shape, _ = self.params["w0"]
            k = self.c.integer(0, shape[0] - 1)
            self.features.add("setitem_param")
            return [f"{indent}self.w0[{k}] = {self.number(dtype)}"]
        cands = [(n, t) for n, t in self.operands(scope, lambda t: len(t[1]) == 2 and
                                                   t[1][1] != B and t[0] != "bool",
                                                   params=False)
                 if n in scope.names and n not in ("x0", "x1")]
        if not cands:
            return []
        name, (dtype, shape) = self.c.pick(cands)
        self.features.add("setitem_local")
        return [f"{indent}{name}[:, {self.c.integer(0, shape[1] - 1)}] = {self.number(dtype)}"]

    def s_sub(self, scope, depth, indent):
        cands = self.operands(scope, lambda t: t == ("float32", (B, self.f)), params=False)
        if not cands:
            return []
        self.features.add("sub_cell")
        return [f"{indent}{self.target(scope, ('float32', (B, self.f)), depth)} = "
                f"self.sub({self.c.pick(cands)[0]})"]

    # ---- the module ------------------------------------------------------------------------
    def build(self):
        self.pure = self.c.boolean(0.4)       # no effects: model files can hold it
        if self.grad:
            self.features.add("grad_program")
        if self.pure:
            self.features.add("pure")
        self.f = self.c.integer(1, 4)
        g = self.c.integer(1, 3)
        dt1 = "float32" if self.grad else self.c.pick(list(T.DTYPES))
        s1 = self.c.pick([(B, self.f), (self.f,), (B, 1), (1, self.f)])
        inputs = self.inputs = [("float32", (B, self.f)), (dt1, s1)]
        self.params["w0"] = ("float32", (self.f,), _init(self.c, self.f))
        self.params["w1"] = ("float32", (self.f, g), _init(self.c, self.f * g))
        if not self.grad and self.c.boolean(0.3):
            self.params["w2"] = ("int32", (self.f,), [self.c.integer(-3, 3)
                                                      for _ in range(self.f)])
        scope = _Scope({"x0": inputs[0], "x1": inputs[1]})
        body = self.block(scope, 0, "        ", self.c.integer(1, 5))
        if self.c.boolean(0.2):                        # a return under a tensor condition
            self.features.add("early_return")
            outs = self.operands(scope, lambda t: not self.grad or t[0] in T.FLOATS,
                                 params=False)
            first = self.c.pick(outs)
            same = [n for n, t in outs if t == first[1]]
            body += [f"        if {self.cond(scope)}:", f"            return {first[0]}"]
            body += self.block(scope, 1, "        ", 1)
            body.append(f"        return {self.c.pick(same)}")
            return self.finish(body)
        outs = self.operands(scope, lambda t: not self.grad or t[0] in T.FLOATS,
                             params=False)
        rets = [self.c.pick(outs)[0] for _ in range(self.c.integer(1, 2))]
        if not self.pure and self.c.boolean(0.5):
            rets.append("self.w0 * 1")
        body.append(f"        return {', '.join(rets)}" + ("," if len(rets) == 1 and
                                                           self.c.boolean(0.2) else ""))
        return self.finish(body)

    def finish(self, body):
        sub_effect = not self.pure and self.c.boolean(0.4)
        if sub_effect:
            self.features.add("sub_cell_effect")
        return Program(_module(self.params, body, self.f, sub_effect), self.inputs,
                       self.features)


def _ms(dtype):
    return "bool_" if dtype == "bool" else dtype


def _init(choices, n):
    return [choices.integer(-8, 8) / 4 for _ in range(n)]


def _shape_src(shape):
    return "(" + ", ".join("x0.shape[0]" if d == B else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


def _module(params, body, f, sub_effect):
    lines = ["import numpy as np", "import mindlite as ms",
             "from mindlite import Parameter, Tensor, nn, ops", "", "",
             "class Sub(nn.Cell):", "    def __init__(self):", "        super().__init__()",
             f"        self.s = Parameter(Tensor(np.full(({f},), 0.5, np.float32)), name='s')",
             "", "    def construct(self, a):", "        b = a * self.s"]
    if sub_effect:
        lines.append("        ops.assign_add(self.s, b.mean(0))")
    lines += ["        return b + 1", "", "", "class Net(nn.Cell):", "    def __init__(self):",
              "        super().__init__()", "        self.sub = Sub()"]
    for name, (dtype, shape, init) in params.items():
        lines.append(f"        self.{name} = Parameter(Tensor(np.array({init}, np.{dtype})"
                     f".reshape({shape})), name='{name}')")
    lines += ["", "    def construct(self, x0, x1):"] + body
    return "\n".join(lines) + "\n"


def generate(choices, grad=False):
    """A Program drawn with `choices` (see the module docstring)."""
    return Generator(choices, grad).build()


__all__ = ["Program", "RandomChoices", "generate"]
