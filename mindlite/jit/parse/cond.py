"""Conditions in the graph-mode parser: the truth Python asks for in `if`, `while`, `not`,
`x if c else y`, and the values of `and` / `or` expressions.

A condition on a constant is decided now (the untaken code is never parsed); on a tensor
of one element it is a bool node, and what depends on it becomes a Switch over branch
graphs (jit/parse/control.py). `test` takes an `and`/`or` used as a condition as the truth
of its operands, so a tensor test and a Python bool combine.
"""
import ast

import numpy as np

from ...common.abstract import AbstractTensor
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ir.anf import AnfNode
from ..dynamic import is_dyn_int


class ConditionMixin:
    def e_BoolOp(self, e, frame):
        is_and = isinstance(e.op, ast.And)
        value = self.expr(e.values[0], frame)
        for nxt in e.values[1:]:
            c = self.condition(value)
            if isinstance(c, AnfNode):
                from .control import switch
                first = value
                value = switch(self, c, (lambda f, n=nxt: self.expr(n, f)) if is_and
                               else (lambda f, v=first: v),
                               (lambda f, v=first: v) if is_and
                               else (lambda f, n=nxt: self.expr(n, f)), frame, "boolop")
                continue
            if c != is_and:        # `and` stops at a false value, `or` at a true one
                return value
            value = self.expr(nxt, frame)
        return value

    def e_IfExp(self, e, frame):
        c = self.test(e.test, frame)
        if isinstance(c, AnfNode):
            from .control import switch
            return switch(self, c, lambda f: self.expr(e.body, f),
                          lambda f: self.expr(e.orelse, f), frame, "ifexp")
        return self.expr(e.body if c else e.orelse, frame)

    def e_LoopTest(self, e, frame):
        """The test of a `while` that breaks (control.flag_loop made it)."""
        from .control import loop_test
        return loop_test(self, e, frame)

    def test(self, e, frame):
        """The truth of `e` where Python asks for it (if, while, not, `x if e else y`): a
        Python bool or a bool tensor node. An `and`/`or` is the truth of its operands, each
        evaluated only where the ones before let it run (in a branch on a tensor), so a
        tensor test and a Python bool combine (their values, a Tensor and a bool, could not
        be one graph value; their truths can)."""
        if not isinstance(e, ast.BoolOp):
            return self.condition(self.expr(e, frame))
        is_and = isinstance(e.op, ast.And)
        c = self.test(e.values[0], frame)
        for nxt in e.values[1:]:
            if not isinstance(c, AnfNode):
                if c != is_and:                  # `and` stops at False, `or` at True
                    return c
                c = self.test(nxt, frame)
                continue
            from .control import switch

            def rest(f, n=nxt):
                return self.truth_tensor(self.test(n, f))

            def stop(f, v=c):
                return self.truth_tensor(v)
            c = switch(self, c, rest if is_and else stop, stop if is_and else rest, frame,
                       "boolop")
        return c

    def truth_tensor(self, c):
        """A truth (Python bool or bool node of one element) as a 0-d bool graph value."""
        if not isinstance(c, AnfNode):
            return Tensor(np.array(bool(c)))
        if tuple(c.abstract.shape) != ():
            from ...ops.operations.array_ops import Reshape
            return self.emit_prim(Reshape(), (c, ()))
        return c

    def condition(self, v):
        """A Python bool for constants; for a tensor, a bool 0-d...n-d node of one element."""
        if not isinstance(v, AnfNode):
            try:
                return bool(v)
            except Exception as err:
                raise self.error(err) from None
        a = v.abstract
        if is_dyn_int(v):
            return self.dyn_decide(lambda n, _: bool(n), v, None,
                                   "the truth value of a dynamic dimension")
        if not isinstance(a, AbstractTensor):
            raise self.unsupported(f"a condition on a {a}")
        if a.size != 1:
            raise self.error(ValueError("The truth value of a Tensor with more than one "
                                        "element is ambiguous; use .any() or .all()"))
        if a.dtype is mstype.bool_:
            return v
        from ...ops.operations.array_ops import Cast
        return self.emit_prim(Cast(), (v, mstype.bool_))
