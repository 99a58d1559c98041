"""Graphs for control flow on tensor values (the graph-mode parser's part that builds them).

    if c: ... else: ...      Switch(c, @if_true, @if_false)(): each branch graph runs its
                             statements on a fork of the frame; the variables either branch
                             assigns leave through the branch graphs' outputs (one dtype and
                             shape per variable, else a TypeError naming it)
    x if c else y, and/or    the same, on expressions
    while c: ...             a loop graph L(carried) = Switch(c, @body, @exit)(), where the
                             body graph ends by calling L again and the exit graph returns the
                             carried values; carried = the variables the body changes
"""
import ast

import numpy as np

from ..abstract import AbstractTensor
from ..common.tensor import Tensor
from ..ir.anf import FUNC, SWITCH, TUPLE_GETITEM, AnfNode, ValueNode
from .parse_stmt import _assigned_names, _contains


class ControlMixin:
    def switch(self, cond, true_fn, false_fn, frame, kind, names=False):
        """Switch(cond, @true, @false)() where each branch graph computes its function of a
        forked frame; returns the joined value (a dict of variables when names=True)."""
        results, graphs = [], []
        loc = self.loc
        for label, fn in (("true", true_fn), ("false", false_fn)):
            g = self.new_graph(f"{kind}_{label}")
            saved, self.fg = self.fg, g
            self.branch_depth += 1
            try:
                results.append(fn(frame.fork()))
            finally:
                self.fg = saved
                self.branch_depth -= 1
            graphs.append(g)
        self.loc = loc
        if names:
            common = [n for n in results[0] if n in results[1]]
            results = [tuple(r[n] for n in common) for r in results]
        leaves = self.join(results[0], results[1], kind, common if names else None)
        for g, r in zip(graphs, results):
            outs = [_at(r, path) for path in leaves]
            saved, self.fg = self.fg, g
            try:
                g.set_output(self.as_input(outs[0] if len(outs) == 1 else tuple(outs)))
            finally:
                self.fg = saved
        sw = self.emit([SWITCH, cond, ValueNode(graphs[0], FUNC), ValueNode(graphs[1], FUNC)],
                       FUNC)
        abstract = graphs[0].output.abstract
        call = self.emit([sw], abstract)
        picked = [call] if len(leaves) == 1 else \
            [self.emit([TUPLE_GETITEM, call, i], a) for i, a in enumerate(abstract)]
        value = _rebuild(results[0], dict(zip(leaves, picked)), ())
        return dict(zip(common, value)) if names else value

    def join(self, a, b, kind, names=None):
        """Paths (index tuples) of the leaves whose value differs between the branches;
        raises when the two cannot be one graph value (naming the variable when known)."""
        paths = []
        try:
            self._join(a, b, kind, (), paths)
        except TypeError as err:
            path = getattr(err, "_jit_path", ())
            if names and path:
                raise self.error(TypeError(f"For the variable '{names[path[0]]}': "
                                           f"{err.args[0]}")) from None
            raise self.error(err) from None
        return paths

    def _join(self, a, b, kind, path, paths):
        if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
            if len(a) != len(b) or type(a) is not type(b):
                raise _at_path(TypeError(f"The branches of the '{kind}' on a tensor give "
                                         f"sequences of different lengths or types"), path)
            for i, (x, y) in enumerate(zip(a, b)):
                self._join(x, y, kind, path + (i,), paths)
            return
        if a is b:
            return
        if isinstance(a, (AnfNode, Tensor)) or isinstance(b, (AnfNode, Tensor)):
            aa, bb = self.abstract_of(a), self.abstract_of(b)
            if not (isinstance(aa, AbstractTensor) and isinstance(bb, AbstractTensor)
                    and aa.dtype is bb.dtype and aa.shape == bb.shape):
                raise _at_path(TypeError(
                    f"The branches of the '{kind}' on a tensor give different types: {aa} "
                    f"and {bb}; both must be Tensors of one dtype and shape"), path)
            paths.append(path)
            return
        try:
            same = type(a) is type(b) and bool(a == b)
        except Exception:
            same = False
        if not same:
            raise _at_path(TypeError(
                f"The branches of the '{kind}' on a tensor give different constants {a!r} and "
                f"{b!r}; graph mode needs one value here (use a Tensor)"), path)

    def resume_for(self, s, items, start, frame, rest):
        """An unrolled `for` (no break/continue of its own) from item `start` on. Each
        iteration's body gets as its `rest` the remaining iterations (a ResumeFor
        statement) and what follows the loop, so an `if` on a tensor that returns inside
        the loop takes them into its other branch, as it does outside loops."""
        from .parse_stmt import BREAK, Return
        for k in range(start, len(items)):
            self.at(frame, s)
            self.assign(s.target, items[k], frame)
            after = None if rest is None else [ResumeFor(s, items, k + 1)] + rest
            status = self.block(s.body, frame, after)
            if status == BREAK:
                return None
            if isinstance(status, Return):
                return status
        return self.block(s.orelse, frame, rest)

    def e_LoopTest(self, e, frame):
        """`not brk and test`: False once a constant break happened; while the flag is a
        constant, the loop's own test as it is; once it is a tensor, one bool tensor
        (logical_and of not brk and the test's truth: the test is side-effect free graph
        code, so evaluating it after a break changes nothing)."""
        brk = self.expr(e.flag, frame)
        if not isinstance(brk, AnfNode):
            return False if bool(brk) else self.expr(e.test, frame)
        from ..ops.function import math_func
        go = self.call_value(math_func.logical_not, (brk,), {})
        cond = self.condition(self.expr(e.test, frame))
        if not isinstance(cond, AnfNode):
            return go if cond else False
        return self.call_value(math_func.logical_and, (go, cond), {})

    def s_ResumeFor(self, s, frame, rest):
        return self.resume_for(s.loop, s.items, s.start, frame, rest)

    def loop_with_flags(self, s, frame, rest):
        """A `while`/`for` whose body breaks or continues (under a condition that may be a
        tensor): run as flag_loop rewrote it."""
        fl = flag_loop(s)
        self.block(fl.pre, frame, None)
        if isinstance(s, ast.While):
            status = self.block([fl.loop], frame, None)
        else:
            status = None
            for item in self.iterate(self.expr(s.iter, frame)):
                if frame.vars[fl.brk] is _TRUE:         # broke on a constant condition
                    break
                self.assign(s.target, item, frame)
                status = self.block([fl.loop], frame, None)
                if status is not None:
                    break
            if isinstance(frame.vars[fl.brk], AnfNode):  # where it stopped: known at run time
                for name in _assigned_names([ast.Expr(s.target)]):
                    frame.vars[name] = Unknown(
                        f"reading the loop variable '{name}' after a 'for' that may break on "
                        f"a tensor condition (its value is known only at run time)")
        if status is None:
            status = self.block(fl.post, frame, rest)
        for name in fl.flags:                  # hidden: no outer branch or loop carries them
            frame.vars.pop(name, None)
        return status

    def loop_graph(self, s, frame):
        """`while` on a tensor condition: a graph L(carried) = Switch(cond, body, exit)()."""
        if _contains(s.body, (ast.Return,)):      # (its own break/continue became flags)
            raise self.unsupported("'return' in a 'while' on a tensor condition")
        names = [n for n in _assigned_names(s.body) if n in frame.vars]
        init = [frame.vars[n] for n in names]
        dyn = [(n, v) for n, v in zip(names, init) if isinstance(v, AnfNode)
               or (hasattr(v, "_abs") and not isinstance(v, AnfNode))]
        bad = [n for n, v in zip(names, init) if isinstance(v, (tuple, list)) and
               any(isinstance(x, AnfNode) for x in v)]
        if bad:
            raise self.unsupported(f"tuples changed by a 'while' on a tensor ({bad})")
        loc = self.loc
        loop = self.new_graph("while")
        lf = frame.fork(in_loop=True)
        params = []
        for n, v in dyn:
            p = loop.add_parameter(n, self.abstract_of(v), debug=self.debug())
            lf.vars[n] = p
            params.append(p)
        out_abs = tuple(p.abstract for p in params)
        saved, self.fg = self.fg, loop
        self.branch_depth += 1
        try:
            cond = self.condition(self.expr(s.test, lf))
            if not isinstance(cond, AnfNode):
                raise self.unsupported("a 'while' whose condition is a tensor on entry and a "
                                       "constant inside the loop")
            body = self.new_graph("while_body")
            self.fg = body
            bf = lf.fork()
            self.block(s.body, bf, None)
            new = []
            for (n, v), p in zip(dyn, params):
                nv = bf.vars[n]
                na = self.abstract_of(nv)
                if not (isinstance(na, AbstractTensor) and na.dtype is p.abstract.dtype
                        and na.shape == p.abstract.shape):
                    raise self.error(TypeError(
                        f"In the 'while' on a tensor, '{n}' enters as {p.abstract} and "
                        f"leaves an iteration as {na}; graph mode needs them equal"))
                new.append(nv)
            carried = {n for n, _ in dyn}
            for n, v in zip(names, init):
                if n not in carried and bf.vars.get(n) is not v:
                    raise self.error(TypeError(
                        f"In the 'while' on a tensor, the constant '{n}' changes in the body; "
                        f"graph mode needs a Tensor for a value the loop changes"))
            self.loc = loc
            body.set_output(self.emit([ValueNode(loop, FUNC)] + new, _one(out_abs)))
            self.fg = loop
            exit_g = self.new_graph("while_exit")
            exit_g.set_output(params[0] if len(params) == 1 else
                              _in_graph(self, exit_g, tuple(params)))
            sw = self.emit([SWITCH, cond, ValueNode(body, FUNC), ValueNode(exit_g, FUNC)], FUNC)
            loop.set_output(self.emit([sw], _one(out_abs)))
        finally:
            self.fg = saved
            self.branch_depth -= 1
        call = self.emit([ValueNode(loop, FUNC)] + [v for _, v in dyn], _one(out_abs))
        outs = [call] if len(dyn) == 1 else \
            [self.emit([TUPLE_GETITEM, call, i], a) for i, a in enumerate(out_abs)]
        for (n, _), o in zip(dyn, outs):
            frame.vars[n] = o
        return None


def _at_path(err, path):
    err._jit_path = path
    return err


def _one(abstracts):
    return abstracts[0] if len(abstracts) == 1 else abstracts


def _in_graph(parser, g, values):
    saved, parser.fg = parser.fg, g
    try:
        return parser.as_input(values)
    finally:
        parser.fg = saved


def _at(value, path):
    for i in path:
        value = value[i]
    return value


def _rebuild(value, picked, path):
    if path in picked:
        return picked[path]
    if isinstance(value, (tuple, list)):
        return type(value)(_rebuild(x, picked, path + (i,)) for i, x in enumerate(value))
    return value


# ---- break / continue as flags -----------------------------------------------------------------
_FALSE = Tensor(np.array(False))
_TRUE = Tensor(np.array(True))
_REWRITTEN = {}                   # id(loop node) -> (loop node, FlagLoop)


class LoopTest(ast.expr):
    """`not brk and test` of a flagged `while` (see ControlMixin.e_LoopTest)."""
    _fields = ("flag", "test")


class ResumeFor(ast.stmt):
    """The iterations of an unrolled `for` after item `start - 1` (then its `else:`), as a
    statement of the `rest` that an `if` on a tensor which returns parses into a branch."""
    _fields = ()

    def __init__(self, loop, items, start):
        super().__init__()
        self.loop, self.items, self.start = loop, items, start
        ast.copy_location(self, loop)


class Unknown:
    """A variable whose value graph mode cannot know (reading it is an error)."""
    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what


class FlagLoop:
    """A loop rewritten without break/continue (see flag_loop): `pre` sets the flags,
    `loop` is the new While (or, for a `for`, the guarded body of one iteration, run after
    the target is assigned), `post` is the `else:` under `if not brk`."""
    __slots__ = ("brk", "flags", "pre", "loop", "post")

    def __init__(self, flags, pre, loop, post):
        self.brk, self.flags = flags[0], flags
        self.pre, self.loop, self.post = pre, loop, post


def flag_loop(loop):
    """The loop rewritten without break/continue, as MindSpore's parser does: a `break`
    sets a flag that ends the loop (`while not brk and test`; an unrolled `for` runs each
    later iteration under `if not brk`), a `continue` a flag that skips the rest of the
    iteration; the statements after an `if` that may break or continue run under
    `if not (brk or cnt)`. Flags are bool Tensors: constants while every condition is a
    constant (decided at compile time as before), graph values carried through the loop
    state once a tensor condition sets them. `else:` runs under `if not brk`."""
    hit = _REWRITTEN.get(id(loop))
    if hit is not None and hit[0] is loop:
        return hit[1]
    k = len(_REWRITTEN)
    brk, cnt = f"__jit_break_{k}", f"__jit_continue_{k}"

    def name(n, store=False):
        return ast.Name(id=n, ctx=ast.Store() if store else ast.Load())

    def setf(n, value):
        return ast.Assign(targets=[name(n, True)], value=ast.Constant(value=value))

    def not_(test):
        return ast.UnaryOp(op=ast.Not(), operand=test)

    def rewrite(stmts):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, (ast.Break, ast.Continue)):
                flag = brk if isinstance(s, ast.Break) else cnt
                out.append(ast.copy_location(setf(flag, _TRUE), s))
                return out
            if isinstance(s, ast.If) and _contains([s], (ast.Break, ast.Continue)):
                out.append(ast.copy_location(ast.If(test=s.test,
                                                    body=rewrite(s.body) or [ast.Pass()],
                                                    orelse=rewrite(s.orelse)), s))
                rest = rewrite(stmts[i + 1:])
                if rest:
                    stop = not_(ast.BoolOp(op=ast.Or(), values=[name(brk), name(cnt)]))
                    out.append(ast.copy_location(ast.If(test=stop, body=rest, orelse=[]),
                                                 stmts[i + 1]))
                return out
            out.append(s)       # (a `with`/`try` holding a break stays: parsing rejects it)
        return out

    body = [setf(cnt, _FALSE)] + rewrite(loop.body)
    if isinstance(loop, ast.While):
        new = ast.While(test=LoopTest(name(brk), loop.test), body=body, orelse=[])
    else:
        new = ast.If(test=not_(name(brk)), body=body, orelse=[])
    pre = [setf(brk, _FALSE), setf(cnt, _FALSE)]
    post = [ast.If(test=not_(name(brk)), body=loop.orelse, orelse=[])] if loop.orelse else []
    for s in pre + [new] + post:
        ast.copy_location(s, loop)
        ast.fix_missing_locations(s)
    result = FlagLoop((brk, cnt), pre, new, post)
    _REWRITTEN[id(loop)] = (loop, result)
    return result
