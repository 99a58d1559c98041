"""Graphs for control flow on tensor values (the graph-mode parser's part that builds them).

    if c: ... else: ...      Switch(c, @if_true, @if_false)(): each branch graph runs its
                             statements on a fork of the frame; the variables either branch
                             assigns leave through the branch graphs' outputs (one dtype and
                             shape per variable, else a TypeError naming it)
    x if c else y, and/or    the same, on expressions
    while c: ...             a loop graph L(carried) = Switch(c, @body, @exit)(), where the
                             body graph ends by calling L again and the exit graph returns the
                             carried values; carried = the variables the body changes
    break/continue           flags (flag_loop), in loops on constants and on tensors alike
    side effects             a branch or loop graph that assigns, prints or writes in place
                             makes its call a side effect too (has_effects): kept by DCE
                             even when it changes no variable, never merged or moved past

Functions of the parser (`parser` is jit/parse/parser.py's Parser), called from its statements and
expressions only when a condition is a tensor or a loop breaks: this module is imported at
that first use, not with the parser. NOTE: most graphs (a training step) have no such control
flow, and with no bytecode cache (PYTHONDONTWRITEBYTECODE) its source compile (~3 ms) would
otherwise be paid by every process's first compile.
"""
import ast
import itertools

import numpy as np

from ...common.abstract import AbstractTensor
from ...common.tensor import Tensor
from ...ir.anf import FUNC, SWITCH, TUPLE_GETITEM, AnfNode, ValueNode
from .stmt import Unknown, _assigned_names, _contains


def switch(parser, cond, true_fn, false_fn, frame, kind, names=False):
    """Switch(cond, @true, @false)() where each branch graph computes its function of a
    forked frame; returns the joined value (a dict of variables when names=True)."""
    results, graphs = [], []
    loc = parser.loc
    for label, fn in (("true", true_fn), ("false", false_fn)):
        g = parser.new_graph(f"{kind}_{label}")
        saved, parser.fg = parser.fg, g
        parser.branch_depth += 1
        try:
            results.append(fn(frame.fork()))
        finally:
            parser.fg = saved
            parser.branch_depth -= 1
        graphs.append(g)
    parser.loc = loc
    if names:
        common = [n for n in results[0] if n in results[1]]
        results = [tuple(r[n] for n in common) for r in results]
    leaves = _join_paths(parser, results[0], results[1], kind, common if names else None)
    for g, r in zip(graphs, results):
        outs = [_at(r, path) for path in leaves]
        saved, parser.fg = parser.fg, g
        try:
            g.set_output(parser.as_input(outs[0] if len(outs) == 1 else tuple(outs)))
        finally:
            parser.fg = saved
    sw = parser.emit([SWITCH, cond, ValueNode(graphs[0], FUNC), ValueNode(graphs[1], FUNC)],
                     FUNC)
    abstract = graphs[0].output.abstract
    call = parser.emit([sw], abstract, side_effect=any(map(has_effects, graphs)))
    picked = [call] if len(leaves) == 1 else \
        [parser.emit([TUPLE_GETITEM, call, i], a) for i, a in enumerate(abstract)]
    for node, path in zip(picked, leaves):
        if _dynamic(node.abstract):
            parser.same_probes(node, [_at(r, path) for r in results],
                               f"The branches of the '{kind}' on a tensor")
    _note_aliases(parser, graphs, results, picked, leaves)
    value = _rebuild(results[0], dict(zip(leaves, picked)), ())
    return dict(zip(common, value)) if names else value


def _note_aliases(parser, graphs, results, picked, leaves):
    """Record in parser.may_alias the values each pick may be: what a branch returns
    unchanged from outside it (eager's `x if c else x` is x itself), and what those may be,
    so that an item assignment to the pick is refused where eager would write the other
    name's Tensor (jit/parse/setitem.py)."""
    aliases = parser.__dict__.setdefault("may_alias", {})
    for node, path in zip(picked, leaves):
        srcs = []
        for g, r in zip(graphs, results):
            v = _at(r, path)
            if not isinstance(v, AnfNode):
                continue
            if v.graph is not None and v.graph is not g and v.graph not in g.children_all():
                srcs.append(v)
            srcs.extend(aliases.get(v, ()))
        if srcs:
            aliases[node] = tuple(srcs)


def _join_paths(parser, a, b, kind, names=None):
    """Paths (index tuples) of the leaves whose value differs between the branches;
    raises when the two cannot be one graph value (naming the variable when known)."""
    paths = []
    try:
        _join(parser, a, b, kind, (), paths)
    except TypeError as err:
        path = getattr(err, "_jit_path", ())
        if names and path:
            raise parser.error(TypeError(f"For the variable '{names[path[0]]}': "
                                         f"{err.args[0]}")) from None
        raise parser.error(err) from None
    return paths


def _join(parser, a, b, kind, path, paths):
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b) or type(a) is not type(b):
            raise _at_path(TypeError(f"The branches of the '{kind}' on a tensor give "
                                     f"sequences of different lengths or types"), path)
        for i, (x, y) in enumerate(zip(a, b)):
            _join(parser, x, y, kind, path + (i,), paths)
        return
    if a is b:
        return
    if isinstance(a, (AnfNode, Tensor)) or isinstance(b, (AnfNode, Tensor)):
        aa, bb = parser.abstract_of(a), parser.abstract_of(b)
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


def loop_test(parser, e, frame):
    """`not brk and test`: False once a constant break happened; while the flag is a
    constant, the loop's own test as it is; once it is a tensor, one bool tensor
    (logical_and of not brk and the test's truth: the test is side-effect free graph
    code, so evaluating it after a break changes nothing)."""
    brk = parser.expr(e.flag, frame)
    if not isinstance(brk, AnfNode):
        return False if bool(brk) else parser.test(e.test, frame)
    from ...ops.function import math_func
    go = parser.call_value(math_func.logical_not, (brk,), {})
    cond = parser.test(e.test, frame)
    if not isinstance(cond, AnfNode):
        return go if cond else False
    return parser.call_value(math_func.logical_and, (go, cond), {})


def loop_with_flags(parser, s, frame, rest):
    """A `while`/`for` whose body breaks or continues (under a condition that may be a
    tensor): run as flag_loop rewrote it."""
    fl = flag_loop(s)
    parser.block(fl.pre, frame, None)
    if isinstance(s, ast.While):
        status = parser.block([fl.loop], frame, None)
    else:
        status = None
        items = parser.for_items(parser.expr(s.iter, frame))
        rows = not isinstance(items, list)
        iterating = parser.__dict__.setdefault("iterating", [])
        if rows:
            iterating.append(items.value)
        try:
            for k in range(len(items)):
                if frame.vars[fl.brk] is _TRUE:         # broke on a constant condition
                    break
                parser.assign(s.target, items[k], frame)
                status = parser.block([fl.loop], frame, None)
                if status is not None:
                    break
        finally:
            if rows:
                iterating.pop()
        if isinstance(frame.vars[fl.brk], AnfNode):  # where it stopped: known at run time
            for name in _assigned_names([ast.Expr(s.target)]):
                frame.vars[name] = Unknown(
                    f"reading the loop variable '{name}' after a 'for' that may break on "
                    f"a tensor condition (its value is known only at run time)")
    if status is None:
        status = parser.block(fl.post, frame, rest)
    for name in fl.flags:                  # hidden: no outer branch or loop carries them
        frame.vars.pop(name, None)
    return status


def loop_graph(parser, s, frame):
    """`while` on a tensor condition: a graph L(carried) = Switch(cond, body, exit)()."""
    if _contains(s.body, (ast.Return,)):      # (its own break/continue became flags)
        raise parser.unsupported("'return' in a 'while' on a tensor condition")
    names = [n for n in _assigned_names(s.body) if n in frame.vars]
    init = [frame.vars[n] for n in names]
    dyn = [(n, v) for n, v in zip(names, init) if isinstance(v, AnfNode)
           or (hasattr(v, "_abs") and not isinstance(v, AnfNode))]
    bad = [n for n, v in zip(names, init) if isinstance(v, (tuple, list)) and
           any(isinstance(x, AnfNode) for x in v)]
    if bad:
        raise parser.unsupported(f"tuples changed by a 'while' on a tensor ({bad})")
    loc = parser.loc
    loop = parser.new_graph("while")
    lf = frame.fork(in_loop=True)
    params = []
    for n, v in dyn:
        p = loop.add_parameter(n, parser.abstract_of(v), debug=parser.debug())
        if _dynamic(p.abstract):
            parser.same_probes(p, [v], "")
        lf.vars[n] = p
        params.append(p)
    out_abs = tuple(p.abstract for p in params)
    saved, parser.fg = parser.fg, loop
    parser.branch_depth += 1
    try:
        cond = parser.test(s.test, lf)
        if not isinstance(cond, AnfNode):
            raise parser.unsupported("a 'while' whose condition is a tensor on entry and a "
                                     "constant inside the loop")
        body = parser.new_graph("while_body")
        parser.fg = body
        bf = lf.fork()
        parser.block(s.body, bf, None)
        new = []
        for (n, v), p in zip(dyn, params):
            nv = bf.vars[n]
            na = parser.abstract_of(nv)
            if not (isinstance(na, AbstractTensor) and na.dtype is p.abstract.dtype
                    and na.shape == p.abstract.shape):
                raise parser.error(TypeError(
                    f"In the 'while' on a tensor, '{n}' enters as {p.abstract} and "
                    f"leaves an iteration as {na}; graph mode needs them equal"))
            if _dynamic(na):
                parser.same_probes(p, [p, nv], f"In the 'while' on a tensor, '{n}' entering "
                                               f"and leaving an iteration")
            new.append(nv)
        carried = {n for n, _ in dyn}
        for n, v in zip(names, init):
            if n not in carried and bf.vars.get(n) is not v:
                raise parser.error(TypeError(
                    f"In the 'while' on a tensor, the constant '{n}' changes in the body; "
                    f"graph mode needs a Tensor for a value the loop changes"))
        parser.loc = loc
        effects = has_effects(loop) or has_effects(body)    # in the test or the body
        body.set_output(parser.emit([ValueNode(loop, FUNC)] + new, _one(out_abs),
                                    side_effect=effects))
        parser.fg = loop
        exit_g = parser.new_graph("while_exit")
        exit_g.set_output(params[0] if len(params) == 1 else
                          _in_graph(parser, exit_g, tuple(params)))
        sw = parser.emit([SWITCH, cond, ValueNode(body, FUNC), ValueNode(exit_g, FUNC)], FUNC)
        loop.set_output(parser.emit([sw], _one(out_abs), side_effect=effects))
    finally:
        parser.fg = saved
        parser.branch_depth -= 1
    call = parser.emit([ValueNode(loop, FUNC)] + [v for _, v in dyn], _one(out_abs),
                       side_effect=effects)
    outs = [call] if len(dyn) == 1 else \
        [parser.emit([TUPLE_GETITEM, call, i], a) for i, a in enumerate(out_abs)]
    for (n, _), o, p in zip(dyn, outs, params):
        if _dynamic(o.abstract):
            parser.same_probes(o, [p], "")
        frame.vars[n] = o
    return None


def _dynamic(a):
    return isinstance(a, AbstractTensor) and a.is_dynamic


def has_effects(graph):
    """Whether running `graph` may have a side effect: one of its nodes is marked (an
    in-place write, a print, a random draw, or a call of a graph that has one: the calls
    made here are marked as they are emitted, so the mark goes up through every level of
    nesting). Such a call is never removed as dead and ends every span in which the passes
    merge or move reads (cse, fusion), so the effect runs once, in program order."""
    return any(n.side_effect for n in graph.order)


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
_FLAG_IDS = itertools.count()     # unique flag names; the rewrite is kept on the loop node


class LoopTest(ast.expr):
    """`not brk and test` of a flagged `while` (see loop_test)."""
    _fields = ("flag", "test")


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
    hit = getattr(loop, "_jit_flag_loop", None)
    if hit is not None:
        return hit
    k = next(_FLAG_IDS)
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
    loop._jit_flag_loop = result      # lives as long as the parsed function's tree
    return result
