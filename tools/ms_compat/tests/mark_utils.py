"""`tests.mark_utils.arg_mark` as MindSpore's test files use it: a decorator that records the
test's platforms, level, card mode and essential mark as pytest markers (what MindSpore's CI
selects tests by), and otherwise leaves the test as it is."""
import pytest


def arg_mark(plat_marks, level_mark, card_mark, essential_mark):
    def decorator(func):
        for mark in list(plat_marks) + [level_mark, card_mark, essential_mark]:
            func = getattr(pytest.mark, mark)(func)
        return func
    return decorator
