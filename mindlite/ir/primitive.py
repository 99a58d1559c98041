"""Primitive: the named op object every call goes through (MindSpore's ops.Primitive).

    Primitive.__call__(*args)                          (C: _C.PrimitiveBase, fast_path.cc)
      fast path: runners[signature] -> cached runner (one dict lookup, then the kernel;
                 a FastRunner is executed in C without a Python frame)
      first call of a signature (or any call C cannot key): Primitive._dispatch
        -> check_elim -> Parameter.init_data -> _run_op
        -> PynativeExecutor.real_run_op -> ForwardExecutor.run_op (pynative/forward.py)

A primitive declares, next to its definition:
  infer(*inputs)            abstracts in (AbstractTensor, or the Python value of a
                            constant input), abstract(s) out; raises TypeError/ValueError
  kernel_params(*inputs)    keyword arguments its kernels need (normalised axes, ...)
  const_inputs              indexes of inputs that are compile-time values (axis, shape)
  same_type_inputs          indexes promoted to one dtype first (MindSpore's signature 'T')
The signature of a call is the tuple of its inputs' interned abstracts, so the
runner cache is hashed by identity; constants enter the key by value (plain ints,
None and int tuples as themselves, anything else tagged), Python scalars in tensor
positions by type (their value is converted on each call). C builds the same key for
all-Tensor calls with plain constants; signature_key builds every key on the Python path.
Runner caches are bounded (two generations, RUNNER_CAP; see mindlite/cache_limits.py): C
looks up the current generation only, the Python path also the previous one.
"""
import functools
import inspect
import threading

from .. import _C, cache_limits, context
from ..common.api import PYNATIVE
from ..common.signature import _PLAIN, _hashable, _int_tuple, _scalar_key, const_value  # noqa: F401
from ..common.tensor import Tensor


class RunnerCache(dict):
    """signature -> runner, the current generation (what C reads); `old` is the previous one.
    Written only through install_runner / find_runner, which keep the global bound."""
    __slots__ = ("old", "gen")

    def __init__(self):
        super().__init__()
        self.old = None
        self.gen = -1

    def __setitem__(self, key, runner):
        install_runner(self, key, runner)

    def pop(self, key, default=None):
        """Forget `key` in both generations."""
        if self.old:
            self.old.pop(key, None)
        return dict.pop(self, key, default)


# (primitive class, name, attrs key) -> RunnerCache; shared by equal primitives, so
# `ops.ReLU()(x)` in a loop reuses the runners of the first ReLU() built.
RUNNER_CACHES = {}
_LOCK = threading.RLock()        # slow path only (installs, generation changes)
_GEN = {"gen": 0, "count": 0, "touched": [], "previous": []}


def install_runner(cache, key, runner):
    """cache[key] = runner, counted against RUNNER_CAP (a full generation is retired first)."""
    with _LOCK:
        g = _GEN
        if g["count"] >= cache_limits.RUNNER_CAP:
            _new_generation(g)
        if cache.gen != g["gen"]:
            cache.gen = g["gen"]
            g["touched"].append(cache)
        if key not in cache:
            g["count"] += 1
        dict.__setitem__(cache, key, runner)


def _new_generation(g):
    for cache in g["previous"]:
        cache.old = None
    for cache in g["touched"]:
        cache.old = dict(cache)
        dict.clear(cache)
    g["previous"], g["touched"] = g["touched"], []
    g["count"] = 0
    g["gen"] += 1


def find_runner(cache, key):
    """The runner of `key` in either generation (a previous-generation one moves back)."""
    runner = cache.get(key)
    if runner is None:
        old = cache.old
        if old:
            runner = old.pop(key, None)
            if runner is not None:
                install_runner(cache, key, runner)
    return runner


def runner_count():
    """Runners held in both generations, all caches together."""
    with _LOCK:
        caches = {id(c): c for c in _GEN["touched"] + _GEN["previous"]}
        return sum(len(c) + len(c.old or ()) for c in caches.values())


def clear_runner_caches():
    """Forget every cached runner (after a context change that affects kernel selection)."""
    with _LOCK:
        for cache in list(RUNNER_CACHES.values()) + _GEN["touched"] + _GEN["previous"]:
            dict.clear(cache)
            cache.old = None
        _GEN["count"] = 0


context.CONTEXT.listeners.append(clear_runner_caches)


class Primitive(_C.PrimitiveBase):
    """Base class of all primitives; `name` is the MindSpore op name.

    `__call__` is the C base's (the cached call); `_runners` and `_const_mask` are its fields."""
    const_inputs = ()
    same_type_inputs = ()
    promote_int_to_float = False      # e.g. Div: int32 / int32 -> float32
    dynamic_shape = False             # output shape known only after the kernel ran
    constant_folded = False           # inference always yields the value: no kernel needed
    input_names = None                # for error messages and argument-count checks

    def __init__(self, name=None):
        self.name = name if name is not None else type(self).__name__
        self.attrs = {}
        self._refresh_attrs_key()

    # ---- attributes --------------------------------------------------------------------
    def add_prim_attr(self, name, value):
        self.attrs[name] = value
        self._refresh_attrs_key()
        return self

    def del_prim_attr(self, name):
        self.attrs.pop(name, None)
        self._refresh_attrs_key()
        return self

    def _refresh_attrs_key(self):
        self.attrs_key = tuple((k, _hashable(v)) for k, v in sorted(self.attrs.items()))
        self._runners = _runner_cache((type(self), self.name, self.attrs_key))
        self._const_mask = sum(1 << i for i in self.const_inputs)

    def __repr__(self):
        return f"Prim[{self.name}]"

    def __reduce__(self):
        """Pickling and copy.deepcopy: the Python state (name, attrs, sub-primitives); the
        runner cache and the keys are rebuilt from it (they are the C base's fields)."""
        state = {k: v for k, v in self.__dict__.items() if k != "attrs_key"}
        return _restore_primitive, (type(self), state)

    def __eq__(self, other):
        return (type(self) is type(other) and self.name == other.name
                and self.attrs_key == other.attrs_key)

    def __hash__(self):
        return hash((type(self), self.name, self.attrs_key))

    # ---- contract with the forward executor ----------------------------------------------
    def infer(self, *inputs):
        raise NotImplementedError(f"Primitive '{self.name}' defines no inference")

    def kernel_params(self, *inputs):
        return {}

    def check_elim(self, *args):
        """(True, value) when the call can be answered without running the op."""
        return False, None

    # ---- the call ------------------------------------------------------------------------
    def _dispatch(self, args):
        """The call in Python, when C could not key it (see the module docstring)."""
        runner = find_runner(self._runners, signature_key(self, args))
        if runner is not None:
            return runner(args)
        should_elim, value = self.check_elim(*args)
        if should_elim:
            return value
        _init_parameters(args)
        return _run_op(self, self.name, args)


def _restore_primitive(cls, state):
    prim = cls.__new__(cls)
    prim.__dict__.update(state)
    prim._refresh_attrs_key()
    return prim


def _runner_cache(key):
    cache = RUNNER_CACHES.get(key)
    if cache is None:
        if len(RUNNER_CACHES) >= cache_limits.RUNNER_CACHES_CAP:
            # live primitives keep theirs
            cache_limits.drop_oldest_half(RUNNER_CACHES, cache_limits.RUNNER_CACHES_CAP)
        cache = RUNNER_CACHES.setdefault(key, RunnerCache())
    return cache


def signature_key(prim, args):
    """The runner-cache key of a call (see the module docstring)."""
    key = []
    const = prim.const_inputs
    for i, a in enumerate(args):
        if i in const:
            t = type(a)
            if t is int or a is None or (t is tuple and _int_tuple(a)):
                key.append(a)                 # as fast_path.cc's plain_const
            else:
                key.append(("const", _hashable(const_value(a))))
        elif isinstance(a, Tensor):
            key.append(a._abs)
        elif isinstance(a, (tuple, list)):
            key.append(tuple(x._abs if isinstance(x, Tensor) else _scalar_key(x) for x in a))
        else:
            key.append(_scalar_key(a))
    return tuple(key)


def _init_parameters(args):
    for a in args:
        if isinstance(a, Tensor) and a._arr is None:
            a.init_data()
        elif isinstance(a, (tuple, list)):
            _init_parameters(a)


def _run_op(prim, name, args):
    """Hand a primitive call to the PyNative executor (as MindSpore's _run_op), through its
    slot (common/api.py: the executor sits above this floor)."""
    return PYNATIVE.run_op(prim, name, args)


def prim_attr_register(fn):
    """Decorate `__init__`: its arguments (defaults included) become the primitive's attrs.

    NOTE: `ops.ReLU()(x)` inside a loop builds a primitive per call, so binding is
    precomputed here (names, defaults) instead of calling inspect's Signature.bind each time.
    A non-callable `fn` gives a decorator that raises when called, as MindSpore 2.10's (which
    wraps whatever it is given).
    """
    if not callable(fn):
        def not_callable(self, *args, **kwargs):
            raise TypeError(f"prim_attr_register: {fn!r} is not a callable object")
        return not_callable
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())[1:]
    simple = all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params)
    names = tuple(p.name for p in params)
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}

    def slow_bind(self, args, kwargs):
        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"For '{type(self).__name__}', invalid arguments: {e}") from None
        bound.apply_defaults()
        return {k: v for k, v in list(bound.arguments.items())[1:]
                if sig.parameters[k].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                  inspect.Parameter.VAR_KEYWORD)}

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        key = _proto_key(self, args, kwargs) if type(self).__init__ is wrapper else None
        proto = _PROTOTYPES.get(key) if key is not None else None
        if proto is not None:
            _clone(self, proto)
            return
        if simple and not kwargs and len(args) <= len(names) \
                and len(args) + len(defaults) >= len(names):
            values = dict(defaults)
            values.update(zip(names, args))
            values = {n: values[n] for n in names}
        else:
            values = slow_bind(self, args, kwargs)
        self.name = type(self).__name__
        self.attrs = dict(values)          # __init__ may add/normalise attrs; init_args stay
        fn(self, *args, **kwargs)
        self._refresh_attrs_key()
        self.init_args = values
        if key is not None and all(map(_immutable, self.__dict__.values())) \
                and all(map(_immutable, self.attrs.values())):
            if len(_PROTOTYPES) >= cache_limits.PROTOTYPE_CAP:
                cache_limits.drop_oldest_half(_PROTOTYPES, cache_limits.PROTOTYPE_CAP)
            state = dict(self.__dict__)
            # the prototype holds copies: this instance's own attrs stay its own, so a later
            # add_prim_attr on it cannot reach the primitives cloned from the prototype
            state["attrs"], state["init_args"] = dict(self.attrs), dict(values)
            _PROTOTYPES[key] = (state, self._runners, self._const_mask)
    return wrapper


# NOTE: `ops.ReduceSum(keep_dims=True)(x, 1)` in a notebook builds a primitive per call; the
# state a successful __init__ left (plain values only: no list, dict or object it could
# mutate later) is kept per (class, arguments), and the next construction with the same
# arguments copies it (~0.4 us instead of ~2.5 us). Validation errors are never cached.
_PROTOTYPES = {}


def _immutable(value):
    t = type(value)
    if t is tuple:
        return all(map(_immutable, value))
    if t is dict:                       # attrs / init_args: copied by _clone
        return all(map(_immutable, value.values()))
    return t in _PLAIN or t is type     # (types tag bools and floats in attrs_key)


def _proto_key(self, args, kwargs):
    """(class, arguments with their types), or None when an argument is not plain."""
    if not all(map(_immutable, args)) or (kwargs and not all(map(_immutable, kwargs.values()))):
        return None
    if any(type(v) is dict for v in args) or any(type(v) is dict for v in kwargs.values()):
        return None                     # e.g. Custom(attrs={...}): not hashable as a key
    # _hashable: -0.0 is not 0.0, (True,) is not (1,) (equal tuples, different attributes)
    return (type(self), tuple((type(a), _hashable(a)) for a in args),
            tuple(sorted((k, type(v), _hashable(v)) for k, v in kwargs.items())) if kwargs
            else ())


def _clone(self, proto):
    state, runners, const_mask = proto
    self.__dict__.update(state)
    self.attrs = dict(state["attrs"])
    self.init_args = dict(state["init_args"])
    self._runners = runners
    self._const_mask = const_mask


class PrimitiveWithInfer(Primitive):
    """Alias kept for MindSpore code that subclasses it."""
