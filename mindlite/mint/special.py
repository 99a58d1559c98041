"""mindlite.mint.special (MindSpore 2.10's mint.special): erfc, exp2, expm1, log1p,
log_softmax, round, sinc, over the same primitives as ops."""
from ..ops import functional as F

__all__ = ['erfc', 'exp2', 'expm1', 'log1p', 'log_softmax', 'round', 'sinc']


def erfc(input):
    return F.erfc(input)


def exp2(input):
    return F.exp2(input)


def expm1(input):
    return F.expm1(input)


def log1p(input):
    return F.log1p(input)


def log_softmax(input, dim=None, *, dtype=None):
    x = input if dtype is None else F.cast(input, dtype)
    return F.log_softmax(x, -1 if dim is None else dim)


def round(input):
    return F.round(input)


def sinc(input):
    return F.sinc(input)
