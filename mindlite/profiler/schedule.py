"""Step schedules for the Profiler (MindSpore's mindspore.profiler.schedule) and the
trace-ready handler that writes each recorded cycle (tensorboard_trace_handler).

    prof = profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                   on_trace_ready=tensorboard_trace_handler("./data"))
    for step in range(steps):
        train_one_step()
        prof.step()

A schedule maps a step number to a ProfilerAction: skip `skip_first` steps, then cycles of
`wait` steps (NONE), `warmup` steps (WARM_UP: collected, then discarded) and `active` steps
(RECORD, the last RECORD_AND_SAVE: the cycle is handed to on_trace_ready), `repeat` cycles
(0: until the profiler stops). Profiler.step() moves along it (profiler.py).
"""
import os
import warnings
from enum import Enum


class ProfilerAction(Enum):
    NONE = 0
    WARM_UP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def _count(name, value, least, default):
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        warnings.warn(f"mindlite: For 'schedule', '{name}' must be an int >= {least}, but got "
                      f"{value!r}; reset to {default}", RuntimeWarning, stacklevel=3)
        return default
    return value


class Schedule:
    """MindSpore's Schedule (exported as `schedule`): a bad count warns and takes its
    default, as MindSpore's does."""

    def __init__(self, *, wait, active, warmup=0, repeat=0, skip_first=0):
        self.wait = _count("wait", wait, 0, 0)
        self.active = _count("active", active, 1, 1)
        self.warmup = _count("warmup", warmup, 0, 0)
        self.repeat = _count("repeat", repeat, 0, 0)
        self.skip_first = _count("skip_first", skip_first, 0, 0)

    def __call__(self, step):
        if step < 0:
            raise ValueError(f"For 'schedule', the step must be >= 0, but got {step}")
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if 0 < self.repeat <= step // cycle:
            return ProfilerAction.NONE
        k = step % cycle
        if k < self.wait:
            return ProfilerAction.NONE
        if k < self.wait + self.warmup:
            return ProfilerAction.WARM_UP
        return ProfilerAction.RECORD if k < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    def to_dict(self):
        return {"wait": self.wait, "active": self.active, "warmup": self.warmup,
                "repeat": self.repeat, "skip_first": self.skip_first}

    def __repr__(self):
        return (f"Schedule(wait={self.wait}, active={self.active}, warmup={self.warmup}, "
                f"repeat={self.repeat}, skip_first={self.skip_first})")


schedule = Schedule


def tensorboard_trace_handler(dir_name=None, worker_name=None, analyse_flag=True,
                              async_mode=False):
    """on_trace_ready handler: each saved cycle is written (as Profiler.analyse does) to
    <dir_name>/<worker_name>_<stamp>_ascend_ms (defaults "./data", "<host>_<pid>").
    analyse_flag=False keeps nothing; async_mode is accepted (writing is synchronous)."""
    if dir_name is None:
        dir_name = "./data"
    if not isinstance(dir_name, str):
        raise TypeError(f"For 'tensorboard_trace_handler', 'dir_name' must be a str, but got "
                        f"{type(dir_name).__name__}")
    if worker_name is not None and not isinstance(worker_name, str):
        raise TypeError(f"For 'tensorboard_trace_handler', 'worker_name' must be a str, but "
                        f"got {type(worker_name).__name__}")
    root = os.path.abspath(dir_name)
    import socket                    # here: import mindlite stays light
    worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"

    def handler(prof):
        if analyse_flag:
            prof._write(prof._new_result_dir(root, worker))
        else:
            prof._collections.clear()
    return handler
