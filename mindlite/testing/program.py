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
from .program_exprs import B, ExprMixin

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


class Generator(ExprMixin):
    def __init__(self, choices, grad=False):
        self.c = choices
        self.grad = grad                  # only differentiable float ops, no effects
        self.count = 0
        self.features = set()
        self.lines = []
        self.params = {}                  # attribute -> (dtype, shape, init list)

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


def _init(choices, n):
    return [choices.integer(-8, 8) / 4 for _ in range(n)]


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
