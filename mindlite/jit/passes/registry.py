"""The user pass API, as MindSpore Lite's converter extension (include/registry/pass_registry.h):

    register_pass(name, pass_obj)                      REG_PASS(name, PassClass)
    register_scheduled_passes(position, [names])       REG_SCHEDULED_PASS(position, names)

A pass is a callable `pass_obj(graph, manager) -> bool` (True when it changed the graph) or
an object with `run(graph, manager)` (subclass `PassBase`, Lite's registry::PassBase). It
receives the root FuncGraph of a compile and its FuncGraphManager (users, replace, graphs).
Positions (Lite's PassPosition): "before_fusion" (POSITION_BEGIN, 0) runs the named passes
after the built-in simplifications and before the built-in fusions; "after_fusion"
(POSITION_END, 1) after the fusions. A position's list is replaced by each call, as Lite's
registration assigns it. Names may be registered user passes or built-in ones.

Every change here bumps STATE.version: compiled graphs remember the version they were built
under, so the next call of a @jit function recompiles with the new passes.
"""
import enum
import threading


class PassPosition(enum.IntEnum):
    """Where scheduled user passes run (MindSpore Lite's mindspore::registry::PassPosition)."""
    POSITION_BEGIN = 0
    POSITION_END = 1


BEFORE_FUSION = "before_fusion"
AFTER_FUSION = "after_fusion"
POSITIONS = {BEFORE_FUSION: BEFORE_FUSION, AFTER_FUSION: AFTER_FUSION,
             "POSITION_BEGIN": BEFORE_FUSION, "POSITION_END": AFTER_FUSION,
             PassPosition.POSITION_BEGIN: BEFORE_FUSION, PassPosition.POSITION_END: AFTER_FUSION}


class PassBase:
    """Base of a class pass (Lite's registry::PassBase): override `run(graph, manager)`."""

    def __init__(self, name=None):
        self.name = name or type(self).__name__

    def run(self, graph, manager):
        raise NotImplementedError(f"pass '{self.name}' defines no run(graph, manager)")

    def __call__(self, graph, manager):
        return self.run(graph, manager)


class _State:
    def __init__(self):
        self.version = 0
        self.lock = threading.Lock()


STATE = _State()
PASSES = {}                                   # name -> callable(graph, manager) -> bool
SCHEDULED = {BEFORE_FUSION: [], AFTER_FUSION: []}


def _as_callable(name, pass_obj):
    run = getattr(pass_obj, "run", None)
    if callable(run) and not isinstance(pass_obj, type):
        return run
    if callable(pass_obj) and not isinstance(pass_obj, type):
        return pass_obj
    raise TypeError(f"For 'register_pass', 'pass_obj' of pass '{name}' must be a callable "
                    f"(graph, manager) -> bool or an object with run(graph, manager), but got "
                    f"{pass_obj!r}")


def register_pass(name, pass_obj, *, override=False):
    """Register a user pass under `name` (REG_PASS). Registering the same object again is a
    no-op; another object under a taken name is a ValueError unless override=True."""
    from .pipeline import BUILTIN
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"For 'register_pass', 'name' must be an identifier str, but got "
                        f"{name!r}")
    if name in BUILTIN:
        raise ValueError(f"For 'register_pass', '{name}' is a built-in pass; choose another name")
    fn = _as_callable(name, pass_obj)
    with STATE.lock:
        old = PASSES.get(name)
        if old is not None and old[0] is not pass_obj and not override:
            raise ValueError(f"For 'register_pass', a pass named '{name}' is already "
                             f"registered ({old[0]!r}); pass override=True to replace it")
        PASSES[name] = (pass_obj, fn)
        STATE.version += 1
    return pass_obj


def unregister_pass(name):
    """Remove a user pass and its scheduled entries (ValueError for an unknown name)."""
    with STATE.lock:
        if PASSES.pop(name, None) is None:
            raise ValueError(f"For 'unregister_pass', no user pass named '{name}' is registered")
        for where, names in list(SCHEDULED.items()):      # new lists: a compile may be
            SCHEDULED[where] = [n for n in names if n != name]   # iterating the old ones
        STATE.version += 1


def position_name(position):
    try:
        if isinstance(position, bool):
            raise KeyError(position)
        return POSITIONS[position]                  # also the ints 0 / 1, as Lite's enum
    except (KeyError, TypeError):
        raise ValueError(f"For 'register_scheduled_passes', 'position' must be one of "
                         f"'before_fusion' / PassPosition.POSITION_BEGIN or 'after_fusion' / "
                         f"PassPosition.POSITION_END, but got {position!r}") from None


def register_scheduled_passes(position, names):
    """Run the passes `names` (in that order) at `position` in every later compile
    (REG_SCHEDULED_PASS); replaces what was scheduled there. [] clears the position."""
    from .pipeline import BUILTIN
    where = position_name(position)
    if isinstance(names, str) or not isinstance(names, (list, tuple)) or \
            not all(isinstance(n, str) for n in names):
        raise TypeError(f"For 'register_scheduled_passes', 'names' must be a list of pass "
                        f"names, but got {names!r}")
    unknown = [n for n in names if n not in PASSES and n not in BUILTIN]
    if unknown:
        raise ValueError(f"For 'register_scheduled_passes', unknown passes {unknown}: register "
                         f"them with register_pass first (registered: {sorted(PASSES)})")
    with STATE.lock:
        SCHEDULED[where] = list(names)
        STATE.version += 1


def registered_passes():
    """{name: pass object} of the user passes."""
    return {k: v[0] for k, v in PASSES.items()}


def scheduled_passes(position):
    return list(SCHEDULED[position_name(position)])


def resolve(name):
    from .pipeline import BUILTIN
    hit = PASSES.get(name)
    return hit[1] if hit is not None else BUILTIN[name]
