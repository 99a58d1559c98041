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
import threading

from ...common.abstract import AbstractTensor
from ...common.tensor import Tensor
from ...ir.anf import AnfNode

BREAK, CONTINUE = "break", "continue"
MAX_UNROLL = 100000


_AST_LOCK = threading.Lock()


def parse_source(source, mode="exec"):
    """ast.parse, one thread at a time: CPython 3.11's AST-to-object conversion keeps its
    recursion depth per interpreter, and a thread switch inside it (a garbage collection
    running a finalizer) fails the other thread's parse with "SystemError: AST constructor
    recursion depth mismatch" (seen compiling in four threads)."""
    with _AST_LOCK:
        return ast.parse(source, mode=mode)


class Return:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Unknown:
    """A variable whose value graph mode cannot know (reading it is an error)."""
    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what


class _Rows:
    """The rows of a tensor a `for` iterates over (StmtMixin.for_items)."""
    __slots__ = ("parser", "value", "n")

    def __init__(self, parser, value):
        self.parser, self.value, self.n = parser, value, value.abstract.shape[0]

    def __len__(self):
        return self.n

    def __getitem__(self, k):
        if not 0 <= k < self.n:
            raise IndexError(k)
        return self.parser.getitem(self.value, k)


class ResumeFor(ast.stmt):
    """The iterations of an unrolled `for` after item `start - 1` (then its `else:`), as a
    statement of the `rest` that an `if` on a tensor which returns parses into a branch."""
    _fields = ()

    def __init__(self, loop, items, start):
        super().__init__()
        self.loop, self.items, self.start = loop, items, start
        ast.copy_location(self, loop)


def _assigned_names(stmts):
    """Names a list of statements may bind (not looking into nested defs/lambdas' bodies),
    including the tensors item assignment rebinds."""
    out = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in out:
                out.append(n.id)
            elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) \
                    and isinstance(n.value, ast.Name) and n.value.id not in out:
                out.append(n.value.id)          # y[i] = v rebinds y (jit/parse/setitem.py)
            elif isinstance(n, ast.FunctionDef) and n.name not in out:
                out.append(n.name)
    return out


def _contains(stmts, kinds):
    """Whether a statement holds a node of `kinds` (not looking into nested defs, and for
    break/continue not into nested loops); kept on each statement node (the asts are cached
    per function, so a graph compiled again asks again)."""
    for s in stmts:
        memo = s.__dict__.setdefault("_ml_contains", {})
        hit = memo.get(kinds)
        if hit is None:
            hit = memo[kinds] = _walk_contains(s, kinds)
        if hit:
            return True
    return False


def _walk_contains(stmt, kinds):
    stack = [stmt]
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

    def s_ImportFrom(self, s, frame, rest):
        """A function-local `from .. import functional as F` (bprops, lazy imports): bound
        now; importing an already-loaded module has no effect a compiled call would miss."""
        import importlib
        pkg = frame.globals.get("__package__")
        try:
            mod = importlib.import_module("." * s.level + (s.module or ""), pkg)
            for a in s.names:
                frame.vars[a.asname or a.name] = self.lift(
                    getattr(mod, a.name) if hasattr(mod, a.name) else
                    importlib.import_module(f"{mod.__name__}.{a.name}"))
        except (ImportError, AttributeError) as err:
            raise self.error(err) from None

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
        node = parse_source(ast.unparse(target), mode="eval").body
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
            from ...nn.cell import Cell
            if not isinstance(obj, Cell) and id(obj) not in self.locals:
                raise self.unsupported(f"assigning the attribute '{target.attr}' of a "
                                       f"{type(obj).__name__} (a side effect that would happen "
                                       f"once, at compile time)")
            try:
                setattr(obj, target.attr, value)
            except (AttributeError, TypeError) as e:
                raise self.error(e) from None
        elif isinstance(target, ast.Subscript):
            obj = self.expr(target.value, frame)
            if isinstance(obj, Tensor) or (isinstance(obj, AnfNode)
                                           and isinstance(obj.abstract, AbstractTensor)):
                from .setitem import assign_item
                index = self.expr(target.slice, frame)
                self.at(frame, target)
                return assign_item(self, target, obj, index, value, frame)
            if isinstance(obj, AnfNode) or not isinstance(obj, (list, dict)):
                raise self.unsupported(f"item assignment to a {type(obj).__name__}")
            if id(obj) not in self.locals:
                raise self.unsupported(f"item assignment to a {type(obj).__name__} the graph "
                                       f"did not create (a side effect that would happen once)")
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
        cond = self.test(s.test, frame)
        if not isinstance(cond, AnfNode):
            return self.block(s.body if cond else s.orelse, frame, rest)
        from .control import switch
        returns = _contains(s.body + s.orelse, (ast.Return,))
        if _contains(s.body + s.orelse, (ast.Break, ast.Continue)):
            raise self.unsupported("'break'/'continue' under an 'if' on a tensor value")
        if returns:
            if rest is None:
                raise self.unsupported("'return' under an 'if' on a tensor value inside a loop")
            value = switch(self, cond, lambda f: self._returned(s.body + rest, f),
                           lambda f: self._returned(s.orelse + rest, f), frame, "if")
            return Return(value)
        names = _assigned_names(s.body + s.orelse)

        def branch(stmts):
            def run(f):
                self.block(stmts, f, None)
                return {n: f.vars[n] for n in names if n in f.vars}
            return run
        out = switch(self, cond, branch(s.body), branch(s.orelse), frame, "if", names=True)
        frame.vars.update(out)
        return None

    def _returned(self, stmts, f):
        status = self.block(stmts, f, [])
        return status.value if isinstance(status, Return) else None

    def s_While(self, s, frame, rest):
        if _contains(s.body, (ast.Break, ast.Continue)):
            from .control import loop_with_flags
            return loop_with_flags(self, s, frame, rest)
        for _ in range(MAX_UNROLL):
            cond = self.test(s.test, frame)
            if isinstance(cond, AnfNode):
                if s.orelse:
                    raise self.unsupported("'while ... else' on a tensor condition")
                from .control import loop_graph
                return loop_graph(self, s, frame)
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
        if _contains(s.body, (ast.Break, ast.Continue)):
            from .control import loop_with_flags
            return loop_with_flags(self, s, frame, rest)
        return self.resume_for(s, self.for_items(self.expr(s.iter, frame)), 0, frame, rest)

    def for_items(self, value):
        """What a `for` iterates: a constant's items, or a tensor's rows read one by one as
        each iteration starts (eager's Tensor iterator does: an in-place write by an
        earlier iteration is seen by the later rows)."""
        if isinstance(value, AnfNode) and isinstance(value.abstract, AbstractTensor) \
                and value.abstract.shape and value.abstract.shape[0] >= 0:
            return _Rows(self, value)
        return self.iterate(value)

    def resume_for(self, s, items, start, frame, rest):
        """An unrolled `for` (no break/continue of its own) from item `start` on. Each
        iteration's body gets as its `rest` the remaining iterations (a ResumeFor
        statement) and what follows the loop, so an `if` on a tensor that returns inside
        the loop takes them into its other branch, as it does outside loops."""
        iterating = self.__dict__.setdefault("iterating", [])
        if isinstance(items, _Rows):
            iterating.append(items.value)     # (item assignment to it is refused meanwhile)
        try:
            for k in range(start, len(items)):
                self.at(frame, s)
                self.assign(s.target, items[k], frame)
                after = None if rest is None else [ResumeFor(s, items, k + 1)] + rest
                status = self.block(s.body, frame, after)
                if status == BREAK:
                    return None
                if isinstance(status, Return):
                    return status
        finally:
            if isinstance(items, _Rows):
                iterating.pop()
        return self.block(s.orelse, frame, rest)

    def s_ResumeFor(self, s, frame, rest):
        return self.resume_for(s.loop, s.items, s.start, frame, rest)
