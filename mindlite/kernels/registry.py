"""Kernel registry: `register_kernel(op, device, dtypes, provider, priority)` fills KERNELS.

A kernel is a function of arrays, or a class with MindSpore Lite's life cycle. Conventions,
declared at registration:
  alloc="runtime"  fn(*inputs, *outputs, **params): writes into preallocated outputs
  alloc="kernel"   fn(*inputs, **params) -> array or tuple: allocates (views, dynamic shapes)
`params` are what the primitive's kernel_params() returns (normalised axes...), bound once
per signature. A class kernel (subclass of `Kernel`, or any class with `execute`) gets one
instance per (primitive, input dtypes): prepare() once, resize(inputs, outputs) whenever the
signature it runs for changes (inputs/outputs: the AbstractTensors, shape and dtype), and
execute(*inputs, *outputs) per call; `self.params` holds the signature's kernel params.

Selection (select_from), as MindSpore Lite's REGISTER_KERNEL:
  1. the requested provider (context `kernel_provider`, or the primitive's own
     "kernel_provider" attr) if it has a kernel for the dtype. A per-primitive request is
     strict: a provider with no kernel for the op (ValueError) or none for the dtype
     (TypeError) is an error, never a silent fallback. The context one is a preference;
  2. else the highest priority kernel that supports the dtype and whose `when` predicate
     accepts the input abstracts;
  3. the numpy provider (priority 0) is the reference, the oracle in tests and the last resort.
A provider that needs a module which cannot load (numba not installed, or broken) is skipped:
PROVIDER_LOADERS maps a provider to a function importing what its kernels need; it runs once,
when a kernel of that provider is about to be selected (so numba loads only when a numba
kernel is chosen). An ImportError is remembered in UNAVAILABLE, warned about once, and
selection goes on to the next kernel; a per-primitive (strict) request for it is an error.
User registrations (anything not under mindlite.kernels) are checked: the op must exist
(a Primitive, or a Custom type with custom=True), registering a different kernel for the same
(op, device, provider, dtypes, when) needs override=True, and a kernel that raises is
reported as a KernelError (RuntimeError) naming the op and the provider.
`register_kernel_interface(op, provider)` registers a provider's InferShape (INTERFACES); the
forward executor applies it when that provider's kernel is the one selected.
"""
import sys
import threading
import warnings

from ..common import dtype as mstype
from .kernel_def import Kernel, KernelDef, KernelError, guard  # noqa: F401  (re-exported)

KERNELS = {}          # op name -> [KernelDef], highest priority first ("Custom:<type>" for types)
INTERFACES = {}       # op name -> {provider: infer(inputs, attrs)}  (REGISTER_KERNEL_INTERFACE)
PROVIDER_PRIORITY = {"numpy": 0, "numba": 10, "cpp": 20}
USER_PRIORITY = 100   # a provider without a listed priority outranks the built-ins
LISTENERS = []        # called after a user (un)registration: cached selections are stale
OP_CHECKERS = []      # fn(name) -> bool, installed by the ops layer: does a primitive exist
_LOADED = []          # [True] once the built-in kernel modules are imported
_LOADING = []         # [True] while one thread imports them (under _LOAD_LOCK)
_LOAD_LOCK = threading.RLock()


def _import_numba():
    import numba  # noqa: F401


PROVIDER_LOADERS = {"numba": _import_numba}   # provider -> fn() importing what it needs
UNAVAILABLE = {}      # provider -> why it cannot load ("ModuleNotFoundError: ...")
_AVAILABLE = set()    # providers whose loader succeeded (or that have none)
_PROVIDER_LOCK = threading.RLock()   # a loader may select kernels itself
_BUILTIN_PREFIX = "mindlite.kernels."


# ---- registration ---------------------------------------------------------------------------
def _fail(exc, what, op, provider, msg):
    return exc(f"For '{what}' (op '{op}', provider '{provider}'), {msg}")


def _check_common(what, op, provider, custom):
    if not isinstance(op, str) or not op:
        raise TypeError(f"For '{what}', 'op' must be a non-empty str, but got {op!r}")
    if not isinstance(provider, str) or not provider:
        raise TypeError(f"For '{what}', 'provider' must be a non-empty str, but got {provider!r}")
    if custom or op.startswith("Custom:"):
        return op if op.startswith("Custom:") else "Custom:" + op
    if OP_CHECKERS and not any(check(op) for check in OP_CHECKERS):
        raise _fail(ValueError, what, op, provider,
                    f"there is no primitive named '{op}'; register a Custom op type with "
                    "custom=True")
    return op


def _is_builtin_caller(depth=2):
    return sys._getframe(depth).f_globals.get("__name__", "").startswith(_BUILTIN_PREFIX)


def _norm_dtypes(op, provider, dtypes):
    if dtypes is None:
        return None
    if isinstance(dtypes, (mstype.Type, str)):
        dtypes = (dtypes,)
    try:
        return tuple(mstype.to_type(d) for d in dtypes)
    except TypeError as e:
        raise _fail(TypeError, "register_kernel", op, provider,
                    f"'dtypes' must be mindlite dtypes, but got {dtypes!r}: {e}") from None


def register_kernel(op, device="CPU", dtypes=None, provider="numpy", priority=None,
                    alloc="runtime", when=None, *, kernel=None, arch=None, override=False,
                    custom=False):
    """Register a kernel of primitive `op` (MindSpore Lite's REGISTER_KERNEL).

    Decorator form `@register_kernel("Add", provider="mine", dtypes=(float32,))` over a
    function or class (returned unchanged); call form `register_kernel("Add", provider="mine",
    kernel=MyAdd)` returns the KernelDef. `arch` is an alias of `device`; `custom=True`
    registers for a Custom op type (MindSpore Lite's REGISTER_CUSTOM_KERNEL).
    """
    builtin = _is_builtin_caller()
    if arch is not None:
        device = arch
    if not isinstance(device, str) or not device:
        raise TypeError(f"For 'register_kernel', 'device' must be a non-empty str, but got "
                        f"{device!r}")
    op = _check_common("register_kernel", op, provider, custom) if not builtin else op
    if alloc not in ("runtime", "kernel"):
        raise _fail(ValueError, "register_kernel", op, provider,
                    f"'alloc' must be 'runtime' or 'kernel', but got {alloc!r}")
    if priority is None:
        priority = PROVIDER_PRIORITY.get(provider, USER_PRIORITY)
    elif isinstance(priority, bool) or not isinstance(priority, (int, float)):
        raise _fail(TypeError, "register_kernel", op, provider,
                    f"'priority' must be a number, but got {priority!r}")
    dtypes = _norm_dtypes(op, provider, dtypes)
    if when is not None and not callable(when):
        raise _fail(TypeError, "register_kernel", op, provider, "'when' must be callable")

    def deco(fn):
        if isinstance(fn, type) and not callable(getattr(fn, "execute", None)):
            raise _fail(TypeError, "register_kernel", op, provider,
                        f"the kernel class {fn.__name__} has no execute() method")
        if not callable(fn):
            raise _fail(TypeError, "register_kernel", op, provider,
                        f"the kernel must be a function or a class, but got {fn!r}")
        kdef = KernelDef(op, device, dtypes, provider, priority, alloc, fn, when, builtin)
        return _add(kdef, override)
    if kernel is not None:
        return deco(kernel)

    def decorator(fn):
        deco(fn)
        return fn
    return decorator


def _add(kdef, override):
    kernels = KERNELS.setdefault(kdef.op, [])
    for i, k in enumerate(kernels):
        if (k.device, k.provider, k.dtypes, k.when) == (kdef.device, kdef.provider, kdef.dtypes,
                                                       kdef.when):
            if k.fn is kdef.fn:
                return k                        # the same kernel registered again: no-op
            if not override:
                raise _fail(ValueError, "register_kernel", kdef.op, kdef.provider,
                            f"a different {kdef.device} kernel '{k.name}' is already registered "
                            "for these dtypes; pass override=True to replace it")
            del kernels[i]
            break
    kernels.append(kdef)
    kernels.sort(key=lambda k: -k.priority)
    if not kdef.builtin:
        notify()
    return kdef


def unregister_kernel(op, provider, device="CPU", custom=False):
    """Remove every `device` kernel of `provider` for `op`; returns how many were removed."""
    if custom and not op.startswith("Custom:"):
        op = "Custom:" + op
    kernels = KERNELS.get(op, [])
    keep = [k for k in kernels if not (k.provider == provider and k.device == device)]
    removed = len(kernels) - len(keep)
    if op in KERNELS:
        KERNELS[op] = keep
    if INTERFACES.get(op, {}).pop(provider, None) is not None or removed:
        notify()
    return removed


def register_kernel_interface(op, provider, infer=None, *, override=False, custom=False):
    """Register `provider`'s InferShape for `op` (MindSpore Lite's REGISTER_KERNEL_INTERFACE).

    infer(inputs, attrs) gets the inputs as inference sees them (AbstractTensors with shape
    and dtype, constants as values) and the primitive's attrs, and returns an AbstractTensor,
    a (shape, dtype) pair, or a list of those (one per output). Decorator or call form.
    """
    op = _check_common("register_kernel_interface", op, provider, custom)

    def deco(fn):
        if not callable(fn):
            raise _fail(TypeError, "register_kernel_interface", op, provider,
                        f"the InferShape must be callable, but got {fn!r}")
        table = INTERFACES.setdefault(op, {})
        old = table.get(provider)
        if old is not None and old is not fn and not override:
            raise _fail(ValueError, "register_kernel_interface", op, provider,
                        "a different InferShape is already registered; pass override=True")
        table[provider] = fn
        notify()
        return fn
    if infer is not None:
        return deco(infer)
    return deco


def notify():
    for listener in LISTENERS:
        listener()


# ---- lookup and selection -------------------------------------------------------------------
def provider_available(provider):
    """Whether `provider`'s kernels can run: its PROVIDER_LOADERS entry (if any) is run once;
    an ImportError marks the provider unavailable (UNAVAILABLE) with one RuntimeWarning."""
    if provider in _AVAILABLE:
        return True
    if provider in UNAVAILABLE:
        return False
    with _PROVIDER_LOCK:
        if provider in _AVAILABLE or provider in UNAVAILABLE:
            return provider in _AVAILABLE
        loader = PROVIDER_LOADERS.get(provider)
        try:
            if loader is not None:
                loader()
        except ImportError as e:
            UNAVAILABLE[provider] = f"{type(e).__name__}: {e}"
            warnings.warn(f"mindlite: the kernel provider '{provider}' cannot load "
                          f"({UNAVAILABLE[provider]}); its kernels are skipped and the next "
                          "registered kernel (C++ or the numpy reference) runs instead",
                          RuntimeWarning, stacklevel=2)
            return False
        _AVAILABLE.add(provider)
        return True


def load_builtin_kernels():
    """Import the built-in kernel modules (once, at the first kernel selection).

    A thread that comes while another imports them waits for the import to finish (so it
    never finds an op without its kernels); the importing thread itself re-enters (a module
    that selects a kernel while loading) and sees what is registered so far."""
    if _LOADED:
        return
    with _LOAD_LOCK:
        if _LOADED or _LOADING:
            return
        _LOADING.append(True)
        try:
            from . import cpu  # noqa: F401
        finally:
            _LOADING.clear()
        _LOADED.append(True)


def kernels_for(op, device="CPU"):
    load_builtin_kernels()
    return [k for k in KERNELS.get(op, ()) if k.device == device]


def registered_kernels(op=None, device="CPU"):
    """What is registered: the KernelDefs of `op` (a name or a primitive), best first, with
    provider, dtypes, priority, kind and name; with no op, a dict op -> list for all ops."""
    load_builtin_kernels()
    if op is None:
        return {name: [k for k in ks if device is None or k.device == device]
                for name, ks in sorted(KERNELS.items())}
    if isinstance(op, str):
        return [k for k in KERNELS.get(op, ()) if device is None or k.device == device]
    key = getattr(op, "kernel_key", None) or op.name
    own = list(getattr(op, "own_kernels", lambda: ())())
    return [k for k in KERNELS.get(key, ()) if device is None or k.device == device] + own


def select_kernel(op, device, dtype, provider=None, input_abstracts=None, strict=False):
    """The kernel that runs `op` for inputs of `dtype` (see the module docstring)."""
    return select_from(op, kernels_for(op, device), device, dtype, provider, input_abstracts,
                       strict)


def select_from(op, candidates, device, dtype, provider=None, input_abstracts=None,
                strict=False):
    if not candidates:
        raise NotImplementedError(f"No {device} kernel is registered for '{op}'")
    if provider is not None:
        mine = [k for k in candidates if k.provider == provider]
        for k in mine:
            if k.supports(dtype, input_abstracts) and _usable(k):
                return k
        if strict and mine and provider in UNAVAILABLE:
            raise ValueError(f"For '{op}', the requested kernel provider '{provider}' cannot "
                             f"load: {UNAVAILABLE[provider]}")
        if strict and not mine:
            raise ValueError(f"For '{op}', the requested kernel provider '{provider}' has no "
                             f"{device} kernel; registered providers: "
                             f"{sorted({k.provider for k in candidates})}")
        if strict:
            have = sorted({str(d) for k in mine for d in (k.dtypes or ())}) or "all dtypes"
            raise TypeError(f"For '{op}', the requested kernel provider '{provider}' has no "
                            f"{device} kernel for dtype {dtype} and these inputs (its kernels "
                            f"support {have})")
    for k in candidates:
        if k.supports(dtype, input_abstracts) and _usable(k):
            return k
    skipped = sorted({k.provider for k in candidates if k.provider in UNAVAILABLE
                      and k.supports(dtype, input_abstracts)})
    if skipped:
        raise KernelError(f"For '{op}', the only {device} kernels for dtype {dtype} are of "
                          f"provider {skipped[0]!r}, which cannot load: "
                          f"{UNAVAILABLE[skipped[0]]}")
    have = sorted({str(d) for k in candidates for d in (k.dtypes or ())})
    raise TypeError(f"For '{op}', no {device} kernel supports dtype {dtype}; kernels exist for "
                    f"{have}")


def _usable(kdef):
    provider = kdef.provider
    return provider in _AVAILABLE or provider_available(provider)
