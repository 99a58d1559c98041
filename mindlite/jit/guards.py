"""A compiled graph's guards, checked in C before every call (`_C.guards_hold`).

The parser bakes attributes it reads as constants into the graph (`training`, a sub-cell, a
Primitive's attrs...) and records each as a guard (obj, name, value, snapshot); a graph is
stale when one of them changed or a weight's dtype/shape did (Compiled.valid in api.py).
Checking them with getattr costs ~0.3 µs each in Python (more where Cell.__getattr__ runs:
Parameters and sub-cells), and a training step has ~50, so `fast_guards` resolves each once
into where the value lives:
  lookups     (dict, key, value)   an instance attribute (obj.__dict__), or a Cell's
                                   Parameter or sub-cell (its _params / _cells dict, with
                                   `_mp_dtype` absent from its __dict__: to_float makes
                                   __getattr__ cast Parameters)
  attrs       (obj, name, value)   anything else (properties, slots, class attributes);
                                   a bound method of obj as its class's function
  containers  (obj, items)         a list's items or a dict's (key, value) pairs (a
                                   container read as a constant: `self.layers` appended to)
A False from the C check is "not proven", never "stale": Compiled.valid then runs the full
Python check (values equal but not identical, weights not initialised yet) and, when that
passes, rebuilds the fast form from the values seen.
"""
import types
from collections import OrderedDict

__all__ = ["fast_guards"]


def fast_guards(guards, weights, gone):
    """The argument tuples of `_C.guards_hold` for a Compiled entry's guards and weights."""
    lookups, attrs, containers = [], [], []
    for obj, name, value, snap in guards:
        _resolve(obj, name, value, gone, lookups, attrs)
        if snap is not None:
            if isinstance(value, (list, dict)):
                items = tuple(value.items()) if isinstance(value, dict) else tuple(value)
                containers.append((value, items))
            else:
                return None
    pairs = tuple((node.default, node.abstract) for node in weights)
    return gone, tuple(lookups), tuple(attrs), tuple(containers), pairs


def _resolve(obj, name, value, gone, lookups, attrs):
    d = getattr(obj, "__dict__", None)
    if type(d) is not dict:                          # a class's mappingproxy, no __dict__
        d = None
    if isinstance(value, (types.MethodType, types.BuiltinMethodType)) \
            and getattr(value, "__self__", None) is obj:      # a new bound object per getattr
        if d is not None:
            lookups.append((d, name, gone))
        attrs.append((type(obj), name, getattr(type(obj), name, gone)))
        return
    if d is None or _data_descriptor(type(obj), name):  # a property or slot: getattr decides
        attrs.append((obj, name, value))
        return
    if name in d:
        lookups.append((d, name, value))
        return
    lookups.append((d, name, gone))                  # it must stay out of the instance
    for store in ("_params", "_cells"):              # a Cell: what Cell.__getattr__ reads
        table = d.get(store)
        if type(table) in (dict, OrderedDict) and name in table:
            lookups.append((d, "_mp_dtype", gone))
            lookups.append((table, name, value))
            return
    attrs.append((obj, name, value))


def _data_descriptor(cls, name):
    for klass in cls.__mro__:
        attr = klass.__dict__.get(name)
        if attr is not None:
            kind = type(attr)
            return hasattr(kind, "__set__") or hasattr(kind, "__delete__")
    return False
