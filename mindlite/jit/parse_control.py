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
