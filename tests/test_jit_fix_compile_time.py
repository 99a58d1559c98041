"""First-call compile time (issue 12): the parser's caches give the same results as the work
they save. function_ast's fast path (a def's lines from its code object, parsed alone)
gives the same ast, line numbers and file as the general path (inspect's source lines);
the statement memo of _contains answers as a fresh walk; signature() follows a function's
changed defaults. (Timings are benchmarks/jit_step.py's, never asserted.)"""
import ast
import functools
import importlib
import sys
import types

import numpy as np
import pytest

import mindlite as ms
from mindlite.jit.parse import parser as parse
from mindlite.jit.parse_stmt import _contains, _walk_contains


def plain(x, y=2):
    return (x +
            y)


def decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper


@decorator
def wrapped(x):
    return x * 3


class Holder:
    @staticmethod
    def method(x):
        """A docstring
        over two lines."""
        if x:
            return x
        else:
            pass

    def nested(self, x):
        def inner(y):
            return [y,
                    y]
        return inner(x)


def last_is_string(x):
    x = x + 1
    "a trailing string statement"


LAMBDA = lambda x: x + 1  # noqa: E731


def _general(fn):
    saved = parse._from_code_lines
    parse._from_code_lines = lambda fn, code: None
    parse._SOURCES.pop(fn.__code__, None)
    try:
        return parse.function_ast(fn)
    finally:
        parse._from_code_lines = saved
        parse._SOURCES.pop(fn.__code__, None)


def _fast(fn):
    parse._SOURCES.pop(fn.__code__, None)
    try:
        return parse.function_ast(fn)
    finally:
        parse._SOURCES.pop(fn.__code__, None)


def _dump(hit):
    node, file = hit
    return ast.dump(node, include_attributes=True), file


def _functions():
    mods = [sys.modules[__name__], parse] + [importlib.import_module(m) for m in (
        "mindlite.nn.layer.basic", "mindlite.nn.wrap.cell_wrapper", "mindlite.ops.composite")]
    out = []
    for m in mods:
        for v in list(vars(m).values()):
            for f in [v] + (list(vars(v).values()) if isinstance(v, type) else []):
                f = getattr(f, "__func__", f)
                if isinstance(f, types.FunctionType) and f.__module__ == m.__name__:
                    out.append(f)
    return out


@pytest.mark.parametrize("fn", [plain, wrapped, Holder.method, Holder.nested, last_is_string,
                                LAMBDA], ids=lambda f: f.__qualname__)
def test_fast_path_equals_general_path(fn):
    assert _dump(_fast(fn)) == _dump(_general(fn))


def test_fast_path_over_modules():
    fns = _functions()
    assert len(fns) > 30
    fast = 0
    for fn in fns:
        fast += parse._from_code_lines(fn, fn.__code__) is not None
        assert _dump(_fast(fn)) == _dump(_general(fn)), fn.__qualname__
    assert fast > len(fns) // 2            # the fast path is the one taken


def test_wrapper_takes_the_general_path():
    assert parse._from_code_lines(wrapped, wrapped.__code__) is None
    assert _fast(wrapped)[0].name == "wrapped"


def test_contains_memo_matches_walk():
    node, _ = parse.function_ast(Holder.method)
    kinds_list = [(ast.Return,), (ast.Break, ast.Continue), (ast.If,)]
    for _ in range(2):                       # the second round reads the memo
        for kinds in kinds_list:
            for s in ast.walk(node):
                if isinstance(s, ast.stmt):
                    assert _contains([s], kinds) == _walk_contains(s, kinds)


def test_signature_follows_defaults():
    def f(x, y=1):
        return x + y
    assert parse.signature(f).parameters["y"].default == 1
    f.__defaults__ = (5,)
    assert parse.signature(f).parameters["y"].default == 5


def test_jit_results_unchanged_through_caches():
    def g(x, y=2.0):
        if (x > 0).all():
            return x * y
        return x - y

    jf = ms.jit(g)
    for v in (1.0, -1.0):
        x = ms.Tensor(np.full((2, 2), v, np.float32))
        np.testing.assert_array_equal(jf(x).asnumpy(), g(x).asnumpy())
