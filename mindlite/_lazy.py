"""Deferred star-imports for package __init__ files (PEP 562 module __getattr__ / __dir__).

A package that used to star-import its submodules (`from .math_ops import *`, ...)
calls `lazy_exports(globals(), modules)` instead: nothing is imported then. The
first attribute the namespace lacks (or dir(), or `from pkg import *`) imports all
the modules, binds what the star-imports bound (the last module, in `modules`
order, whose `__all__` holds a name wins), and deletes `__getattr__` and `__dir__`
from the namespace again.

Why all at once rather than name by name: CPython (3.11-3.13) does not specialize
attribute loads from a module whose dict holds `__getattr__` (LOAD_ATTR_MODULE);
each `F.add` / `ops.add` would then cost ~25-30 ns more on every op call (measured
here: 19 vs 49 ns a lookup). Once the package is complete it has no `__getattr__`,
and the hot path is as fast as with eager imports.

Threads: the one-time load runs under one re-entrant lock shared by every deferred
namespace (completing `ops` completes `ops.operations` inside it, so per-namespace locks
could be taken in opposite orders). A thread that needs a name while another thread is
loading waits for the load to finish; the loading thread itself re-enters (an import
inside the load that reads the namespace) and sees the names bound so far, as with eager
star-imports. After completion no lock is taken: `__getattr__` is gone.
"""
import importlib
import os
import threading

# NOTE: one lock for every namespace; an RLock because a load re-enters through imports.
_LOAD_LOCK = threading.RLock()


def _exports(module):
    """What `from module import *` binds: its __all__, else its public names."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return names


class LazyExports:
    """The deferred namespace of a package, or of a plain module (relative to its package).

    `modules`: relative module names whose exports the namespace re-exports, in
    star-import order. `reexport`: relative packages or modules (deferred themselves,
    or not) star-imported before them, which have no `__all__`: all their public
    attributes, submodules included (e.g. `ops.math_ops` via ops.operations).
    """

    def __init__(self, namespace, modules, reexport=()):
        self.namespace = namespace
        name = namespace["__name__"]
        self.package = name if "__path__" in namespace else name.rpartition(".")[0]
        self.owner = name
        self.modules = tuple(modules)
        self.reexport = tuple(reexport)
        self.done = False
        self._busy = False

    def _import(self, relname):
        return importlib.import_module(f"{self.package}.{relname}")

    def complete(self):
        """Import every module and bind the eager star-imports' names (once). Another thread's
        load in progress is waited for; this thread's own (re-entered) is not."""
        if self.done:
            return
        with _LOAD_LOCK:
            if self.done or self._busy:     # _busy: set by this thread (others wait above)
                return
            self._load()

    def _load(self):
        self._busy = True
        try:
            own = set(self.namespace)
            bound = {}
            for rel in self.reexport:
                mod = self._import(rel)
                if isinstance(vars(mod).get("_LAZY"), LazyExports):
                    mod._LAZY.complete()
                bound.update((n, v) for n, v in vars(mod).items() if not n.startswith("_"))
            for rel in self.modules:
                module = self._import(rel)
                bound.update((n, getattr(module, n)) for n in _exports(module))
            for n, v in bound.items():
                if n not in own:
                    self.namespace[n] = v
            self.namespace.pop("__getattr__", None)
            self.namespace.pop("__dir__", None)
            self.done = True
        finally:
            self._busy = False

    def _submodule(self, name):
        """The package's own submodule `name` (imported), or None."""
        path = self.namespace.get("__path__")
        if not path or not name.isidentifier():
            return None
        base = os.path.join(path[0], name)
        if os.path.isfile(base + ".py") or os.path.isfile(os.path.join(base, "__init__.py")):
            return self._import(name)
        return None

    def resolve(self, name):
        """Module __getattr__: complete the package, then look `name` up (or AttributeError).

        A submodule (`from . import math_ops` inside a family, while the families are
        still importing) is imported alone: completing then would import a cycle."""
        if name.startswith("__") and name != "__all__":
            raise AttributeError(f"module {self.owner!r} has no attribute {name!r}")
        sub = self._submodule(name)
        if sub is not None:
            return sub
        self.complete()
        if name == "__all__":             # `from pkg import *` before completion: the public
            # names, stored (importlib asks twice: hasattr, then getattr, and the hook is gone)
            self.namespace["__all__"] = [n for n in self.namespace if not n.startswith("_")]
            return self.namespace["__all__"]
        try:
            return self.namespace[name]
        except KeyError:
            raise AttributeError(f"module {self.owner!r} has no attribute {name!r}") from None

    def dir(self):
        self.complete()
        return sorted(self.namespace)


def lazy_exports(namespace, modules, reexport=()):
    """Install module `__getattr__` and `__dir__` into a namespace; returns the state."""
    state = LazyExports(namespace, modules, reexport)
    namespace["__getattr__"] = state.resolve
    namespace["__dir__"] = state.dir
    return state

