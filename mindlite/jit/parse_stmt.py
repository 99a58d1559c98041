"""Statements of the graph-mode parser: assignment, if, while, for, return, def, raise.

`block` runs statements in order and returns a status: None (fell through), BREAK,
CONTINUE or Return(value). Control flow on constants is decided at compile time (the
untaken branch is never parsed further; loops over constants are unrolled). On a tensor
value: `if` builds one graph per branch and a Switch; the variables either branch
assigns come back through the branch graphs' outputs. A branch that returns takes the
rest of the function with it (the rest is parsed into both branches), so `return` can
appear anywhere. `while` on a tensor builds a loop graph: parameters = the variables
the body changes, output = their final values, the body's graph calls the loop graph
again (a tail call the executor runs without recursion).
"""
import ast

from ..abstract import AbstractTensor
from ..common.tensor import Tensor
from ..ir.anf import FUNC, SWITCH, TUPLE_GETITEM, AnfNode, ValueNode

BREAK, CONTINUE = "break", "continue"
MAX_UNROLL = 100000


class Return:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _assigned_names(stmts):
    """Names a list of statements may bind (not looking into nested defs/lambdas' bodies)."""
    out = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in out:
                out.append(n.id)
            elif isinstance(n, ast.FunctionDef) and n.name not in out:
                out.append(n.name)
    return out


def _contains(stmts, kinds):
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, (ast.While, ast.For)) and kinds == (ast.Break, ast.Continue):
            stack.extend(n.orelse)     # break/continue inside a nested loop are its own
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


class StmtMixin:
    def block(self, stmts, frame, rest):
        """Run `stmts`; `rest` is what follows them in the function (None inside a loop)."""
        for i, s in enumerate(stmts):
            after = None if rest is None else list(stmts[i + 1:]) + rest
            status = self.stmt(s, frame, after)
            if status is not None:
                return status
        return None

    def stmt(self, s, frame, rest):
        self.at(frame, s)
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is None:
            raise self.unsupported(f"the statement '{type(s).__name__}'")
        return method(s, frame, rest)

    # ---- simple statements --------------------------------------------------------------------
    def s_Expr(self, s, frame, rest):
        self.expr(s.value, frame)

    def s_Pass(self, s, frame, rest):
        return None

    def s_Assign(self, s, frame, rest):
        value = self.expr(s.value, frame)
        for t in s.targets:
            self.assign(t, value, frame)

    def s_AnnAssign(self, s, frame, rest):
        if s.value is not None:
            self.assign(s.target, self.expr(s.value, frame), frame)

    def s_AugAssign(self, s, frame, rest):
        load = self._as_load(s.target)
        value = self.binop(s.op, self.expr(load, frame), self.expr(s.value, frame), aug=True)
        self.assign(s.target, value, frame)

    def _as_load(self, target):
        node = ast.parse(ast.unparse(target), mode="eval").body
        return ast.copy_location(ast.fix_missing_locations(node), target)

    def assign(self, target, value, frame):
        if isinstance(target, ast.Name):
            if isinstance(value, AnfNode) and getattr(value, "name", 1) is None \
                    and value.graph is self.fg:
                value.name = target.id
            frame.vars[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.iterate(value)
            star = [i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
            if star:
                k = star[0]
                n_after = len(target.elts) - k - 1
                items = items[:k] + [list(items[k:len(items) - n_after])] + items[len(items)
                                                                                  - n_after:]
            if len(items) != len(target.elts):
                raise self.error(ValueError(f"cannot unpack {len(items)} values into "
                                            f"{len(target.elts)} targets"))
            for t, v in zip(target.elts, items):
                self.assign(t.value if isinstance(t, ast.Starred) else t, v, frame)
        elif isinstance(target, ast.Attribute):
            obj = self.expr(target.value, frame)
            if isinstance(obj, AnfNode) or isinstance(value, AnfNode):
                raise self.unsupported(f"assigning the attribute '{target.attr}' a value "
                                       f"computed in the graph (a side effect)")
            try:
                setattr(obj, target.attr, value)
            except (AttributeError, TypeError) as e:
                raise self.error(e) from None
        elif isinstance(target, ast.Subscript):
            obj = self.expr(target.value, frame)
            if isinstance(obj, AnfNode) or not isinstance(obj, (list, dict)):
                raise self.unsupported("item assignment to a Tensor (in-place setitem)")
            obj[self.expr(target.slice, frame)] = value
        else:
            raise self.unsupported(f"assignment to '{type(target).__name__}'")

    def s_Return(self, s, frame, rest):
        if not self.stack:
            self.fg.return_loc = self.loc
        return Return(None if s.value is None else self.expr(s.value, frame))

    def s_Break(self, s, frame, rest):
        return BREAK

    def s_Continue(self, s, frame, rest):
        return CONTINUE

    def s_Raise(self, s, frame, rest):
        if self.branch_depth:
            raise self.unsupported("'raise' under a condition on a tensor value")
        exc = self.expr(s.exc, frame) if s.exc is not None else RuntimeError("re-raise")
        if isinstance(exc, type):
            exc = exc()
        raise self.error(exc)

    def s_Assert(self, s, frame, rest):
        test = self.expr(s.test, frame)
        if isinstance(test, AnfNode):
            raise self.unsupported("'assert' on a tensor value")
        if not test:
            msg = self.expr(s.msg, frame) if s.msg is not None else ""
            raise self.error(AssertionError(msg))

    def s_FunctionDef(self, s, frame, rest):
        if s.decorator_list:
            raise self.unsupported(f"decorators on the nested function '{s.name}'")
        frame.vars[s.name] = self.make_closure(s, frame)

    # ---- if ------------------------------------------------------------------------------------
    def s_If(self, s, frame, rest):
        cond = self.condition(self.expr(s.test, frame))
        if not isinstance(cond, AnfNode):
            return self.block(s.body if cond else s.orelse, frame, rest)
        returns = _contains(s.body + s.orelse, (ast.Return,))
        if _contains(s.body + s.orelse, (ast.Break, ast.Continue)):
            raise self.unsupported("'break'/'continue' under an 'if' on a tensor value")
        if returns:
            if rest is None:
                raise self.unsupported("'return' under an 'if' on a tensor value inside a loop")
            value = self.switch(cond, lambda f: self._returned(s.body + rest, f),
                                lambda f: self._returned(s.orelse + rest, f), frame, "if")
            return Return(value)
        names = _assigned_names(s.body + s.orelse)

        def branch(stmts):
            def run(f):
                self.block(stmts, f, None)
                return {n: f.vars[n] for n in names if n in f.vars}
            return run
        out = self.switch(cond, branch(s.body), branch(s.orelse), frame, "if", names=True)
        frame.vars.update(out)
        return None

    def _returned(self, stmts, f):
        status = self.block(stmts, f, [])
        return status.value if isinstance(status, Return) else None

    def s_While(self, s, frame, rest):
        for _ in range(MAX_UNROLL):
            cond = self.condition(self.expr(s.test, frame))
            if isinstance(cond, AnfNode):
                if s.orelse:
                    raise self.unsupported("'while ... else' on a tensor condition")
                return self.loop_graph(s, frame)
            if not cond:
                return self.block(s.orelse, frame, rest)
            status = self.block(s.body, frame, None)
            if status == BREAK:
                return None
            if isinstance(status, Return):
                return status
        raise self.unsupported(f"a loop on a constant condition running over {MAX_UNROLL} "
                               f"iterations")

    def s_For(self, s, frame, rest):
        items = self.iterate(self.expr(s.iter, frame))
        for item in items:
            self.at(frame, s)
            self.assign(s.target, item, frame)
            status = self.block(s.body, frame, None)
            if status == BREAK:
                return None
            if isinstance(status, Return):
                return status
        return self.block(s.orelse, frame, rest)

    # ---- graphs for tensor conditions --------------------------------------------------------
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

    def loop_graph(self, s, frame):
        """`while` on a tensor condition: a graph L(carried) = Switch(cond, body, exit)()."""
        if _contains(s.body, (ast.Break, ast.Continue, ast.Return)):
            raise self.unsupported("'break', 'continue' or 'return' in a 'while' on a tensor "
                                   "condition")
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
