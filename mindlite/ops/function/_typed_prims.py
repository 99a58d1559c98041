"""Shared primitive instances for the functional API, one per attribute combination with the
attributes' types in the key (True is not 1, 1 is not 1.0, a list is not a tuple), in one
table bounded by cache_limits.remember. An attribute that cannot be hashed gets a fresh
instance (its constructor usually says what is wrong with it)."""
from ...cache_limits import remember

_PRIMS = {}


def _key(value):
    if isinstance(value, list):
        return (list, tuple(_key(v) for v in value))
    if isinstance(value, tuple):
        return (tuple, tuple(_key(v) for v in value))
    return (type(value), value)


def typed_prim(cls, *attrs):
    """The shared cls(*attrs), keyed by the attributes' types too (True is not 1)."""
    try:
        key = (cls, _key(attrs))
        prim = _PRIMS.get(key)
    except TypeError:               # an unhashable attribute: the constructor says what is wrong
        return cls(*attrs)
    if prim is None:
        prim = remember(_PRIMS, key, cls(*attrs))
    return prim
