"""The collection behind `Profiler`: the C op recorder and the first-call stage timers.

Every primitive call that enters `Primitive.__call__` (C, csrc/bind/fast_path.cc) and every
kernel step of a graph runner (graph mode, csrc/bind/graph_runner.cc) leaves one event in C
while the recorder is on (_C.profiler_enable; csrc/bind/profile.h): the op, its thread, its
start and the ticks at its stage boundaries. Off, the C call path tests one flag.

A first call of a signature goes through Primitive._dispatch and the ForwardExecutor
(pynative/forward.py) in Python; while the recorder is on, its stages are timed by wrapping
them where they are looked up (instance attributes of the executor's ForwardExecutor and
of the CPU session, module attributes of pynative/forward.py and pynative/runner.py; the
stage names are those of mindlite.profiler.breakdown), and removed again when it
stops, so that path, too, costs nothing when off. Each stage event is attributed later to
the op event that encloses it on its thread (report.py).

One collection at a time (the recorder is process-wide); events are appended under the GIL,
so ops may run on several threads while it is on.
"""
import threading
import time

import numpy as np

from .. import _C

# first-call stages: (owner getter, attribute, stage name)
FIRST_STAGES = (
    ("forward", "cast_inputs", "cast inputs"),
    ("forward", "make_input_abstracts", "input abstracts"),
    ("forward", "infer_output_abstract", "inference"),
    ("session", "compile_op", "compile op"),
    ("forward_module", "_kernel_inputs", "kernel inputs"),
    ("session", "run_op", "run kernel graph"),
    ("runner", "make_runner", "runner build"),
    ("runner", "wrap_outputs", "Tensor wrap"),
    ("runner", "record", "grad record"),
)
PATHS = ("cached (C runner)", "cached (Python runner)", "first call / Python dispatch",
         "graph kernel")

_LOCK = threading.RLock()     # re-entrant: a Profiler dropped while on stops in __del__
_ACTIVE = None            # the Collection recording now


def _owners():
    from ..context import CONTEXT
    from ..backend.session import session_factory
    from ..pynative import forward, runner as runner_mod
    from ..pynative.executor import PYNATIVE_EXECUTOR
    return {"forward": PYNATIVE_EXECUTOR.forward_executor, "forward_module": forward,
            "session": session_factory(CONTEXT.values["device_target"]),
            "runner": runner_mod}


# one op event as _C.profiler_events packs it (csrc/bind/fast_runner_profile.cc, Packed):
# start ns, the five stage durations ns (lookup, alloc, launch, wrap, record; a Python runner
# or a dispatch has its body in the last, a graph kernel step in "launch"), the op (index
# into `names`), thread id, path (PATHS)
EVENT_DTYPE = np.dtype({"names": ["t0", "d", "obj", "tid", "path"],
                        "formats": ["<i8", ("<i8", (5,)), "<u4", "<u4", "u1"],
                        "offsets": [0, 8, 48, 52, 56], "itemsize": 64})


class Collection:
    """One recording window: start() ... stop(); then `records` (the op events from C, an
    EVENT_DTYPE array), `names` (the op names `records["obj"]` indexes) and `stages` (the
    first-call stage events: (stage, thread id, start ns, duration ns))."""

    def __init__(self, max_events=1_000_000):
        self.max_events = int(max_events)
        self.records = np.zeros(0, EVENT_DTYPE)
        self.names = []
        self.stages = []
        self.dropped = 0
        self.start_ns = self.stop_ns = None
        self._patched = []

    # ---- on / off ----------------------------------------------------------------------
    def start(self):
        """Turn the recorder on for this collection; False if another one is recording."""
        global _ACTIVE
        with _LOCK:
            if _ACTIVE is not None:
                return False
            _ACTIVE = self
            self._patch()
            self.start_ns = time.perf_counter_ns()
            _C.profiler_enable(True, self.max_events)
        return True

    def stop(self):
        global _ACTIVE
        with _LOCK:
            if _ACTIVE is not self:
                return
            _C.profiler_enable(False)
            self.stop_ns = time.perf_counter_ns()
            objs, data, dropped = _C.profiler_events()
            self._unpatch()
            _ACTIVE = None
        self.records = np.frombuffer(data, EVENT_DTYPE)
        self.names = [_op_name(o) for o in objs]
        self.dropped = dropped

    # ---- first-call stage timers -------------------------------------------------------
    def _patch(self):
        owners = _owners()
        stages = self.stages
        get_id = threading.get_native_id
        clock = time.perf_counter_ns
        cap = self.max_events
        for owner_name, attr, stage in FIRST_STAGES:
            owner = owners[owner_name]
            fn = getattr(owner, attr)

            def timed(*args, _fn=fn, _stage=stage, **kwargs):
                t0 = clock()
                try:
                    return _fn(*args, **kwargs)
                finally:
                    if len(stages) < cap:
                        stages.append((_stage, get_id(), t0, clock() - t0))
            timed.__wrapped__ = fn
            setattr(owner, attr, timed)
            self._patched.append((owner, attr, fn))

    def _unpatch(self):
        for owner, attr, fn in reversed(self._patched):
            if isinstance(owner, type(threading)):       # a module: put the function back
                setattr(owner, attr, fn)
            else:                                        # an instance: drop the override
                vars(owner).pop(attr, None)
        self._patched.clear()


def active():
    """The collection recording now, or None."""
    return _ACTIVE


def _op_name(obj):
    if isinstance(obj, str):
        return obj
    name = getattr(obj, "name", None)
    if isinstance(name, str):
        return name
    return getattr(obj, "__name__", None) or type(obj).__name__
