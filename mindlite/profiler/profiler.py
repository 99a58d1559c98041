"""Profiler: MindSpore's `mindspore.profiler.Profiler` on the CPU.

    prof = Profiler(output_path="./data")      # start_profile=True: collecting from here
    model.train(...)                           # or any ops, @jit functions, grad calls
    prof.analyse()                             # stops and writes the files below

or `with Profiler(output_path=...) as prof: ...` then `prof.analyse()`, or start()/stop()
from a Callback (start_profile=False). While on, every op call is recorded (collect.py):
eager ops (cached C runners, Python runners, first calls with their pipeline stages),
graph-mode kernel steps and the ops of backward passes, from every thread.
analyse() writes, under `output_path`, MindSpore's layout on CPU:

    <host>_<pid>_<YYYYmmddHHMMSSfff>_ascend_ms/
        ASCEND_PROFILER_OUTPUT/op_statistic.csv    per-op table (report.py)
        ASCEND_PROFILER_OUTPUT/trace_view.json     Chrome trace (chrome://tracing, Perfetto)
        profiler_metadata.json                     add_metadata / add_metadata_json entries

With `schedule` (schedule.py) collection follows step(): warm-up steps are collected and
dropped, each cycle of active steps goes to `on_trace_ready` (tensorboard_trace_handler
writes it as analyse() does, one folder a cycle). `profile` is the same class with
MindSpore's explicit keyword signature.
As MindSpore's, the class never raises on misuse: start() while started, stop() while
stopped, step() without a schedule, analyse() without data warn and return; a parameter of
the wrong type warns and takes its default. Device-only parameters (Ascend/GPU: levels,
AICORE metrics, memory, L2 cache, ...) are accepted and have no effect on the CPU.
"""
import os
import warnings
from enum import Enum

from .collect import Collection, active
from .schedule import ProfilerAction


class ProfilerLevel(Enum):
    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ProfilerActivity(Enum):
    NPU = "NPU"
    GPU = "GPU"
    CPU = "CPU"


class AicoreMetrics(Enum):
    PipeUtilization = "PipeUtilization"
    ArithmeticUtilization = "ArithmeticUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    MemoryUB = "MemoryUB"
    ResourceConflictRatio = "ResourceConflictRatio"
    L2Cache = "L2Cache"
    MemoryAccess = "MemoryAccess"
    AiCoreNone = "None"


class ExportType(Enum):
    Db = "db"
    Text = "text"


# MindSpore 2.10's parameters: name -> (type, default). Only output_path and start_profile
# change what mindlite does; the rest are device options (accepted, checked, no effect).
PARAMS = {
    "output_path": (str, "./data"),
    "start_profile": (bool, True),
    "profiler_level": (ProfilerLevel, ProfilerLevel.Level0),
    "activities": (list, [ProfilerActivity.CPU, ProfilerActivity.NPU]),
    "aic_metrics": (AicoreMetrics, AicoreMetrics.AiCoreNone),
    "with_stack": (bool, False),
    "profile_memory": (bool, False),
    "data_process": (bool, False),
    "parallel_strategy": (bool, False),
    "l2_cache": (bool, False),
    "hbm_ddr": (bool, False),
    "pcie": (bool, False),
    "sys_io": (bool, False),
    "sys_interconnection": (bool, False),
    "host_sys": (list, []),
    "sync_enable": (bool, True),
    "data_simplification": (bool, True),
    "record_shapes": (bool, False),
    "export_type": (list, [ExportType.Text]),
    "mstx": (bool, False),
    "mstx_domain_include": (list, []),
    "mstx_domain_exclude": (list, []),
    "schedule": (object, None),
    "on_trace_ready": (object, None),
    "experimental_config": (object, None),
}


def _warn(msg):
    warnings.warn(f"mindlite: For 'Profiler', {msg}", RuntimeWarning, stacklevel=3)


class Profiler:
    """MindSpore's Profiler (see the module docstring). `result_dir` (mindlite): the folder
    analyse() writes, chosen when collection first starts (None before)."""

    def __init__(self, **kwargs):
        self._params = {}
        for key, (typ, default) in PARAMS.items():
            value = kwargs.get(key, default)
            if typ is not object and not isinstance(value, typ):
                _warn(f"the type of '{key}' should be {typ.__name__}, but got "
                      f"{type(value).__name__}; reset to {default!r}")
                value = default
            self._params[key] = value
        unknown = sorted(set(kwargs) - set(PARAMS))
        if unknown:
            _warn(f"unknown parameters {unknown} are ignored")
        for key in ("schedule", "on_trace_ready"):
            if self._params[key] is not None and not callable(self._params[key]):
                _warn(f"'{key}' must be callable, but got {self._params[key]!r}; reset to None")
                self._params[key] = None
        self._schedule = self._params["schedule"]
        self._on_trace_ready = self._params["on_trace_ready"]
        self.step_num = 0
        self._action = self._schedule(0) if self._schedule else ProfilerAction.RECORD
        self._output_path = os.path.abspath(self._params["output_path"])
        self._collections = []
        self._current = None            # the Collection recording now
        self._started = False
        self._metadata = {}
        self.result_dir = None
        if self._params["start_profile"]:
            self.start()

    @property
    def _has_started(self):
        return self._started

    def start(self):
        """Turn collection on (again after stop(): the data of every window is kept). With a
        schedule, collection follows its actions from the current step."""
        if self._started:
            _warn("the profiler has already started. Do not turn on again in the open state")
            return
        if self._schedule is None:
            self._started = self._begin()
            return
        self._started = True
        self._transit(ProfilerAction.NONE, self._action)

    def stop(self):
        """Turn collection off (with a schedule, a cycle being recorded is handed to
        on_trace_ready)."""
        if not self._started:
            _warn("the profiler has not started. Do not turn off again in the closed state")
            return
        self._started = False
        if self._schedule is None:
            self._end(keep=True)
        else:
            self._transit(self._action, None)

    def step(self):
        """Next step of the schedule (schedule.py): collection starts, is discarded (after a
        warm-up) or is handed to on_trace_ready as its actions say."""
        if self._schedule is None:
            _warn("with no schedule in the Profiler, step takes no effect")
            return
        if not self._started:
            _warn("the profiler is stopped, step takes no effect")
            return
        prev = self._action
        self.step_num += 1
        self._action = self._schedule(self.step_num)
        self._transit(prev, self._action)

    def _transit(self, prev, cur):
        on = (ProfilerAction.WARM_UP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev is ProfilerAction.WARM_UP and cur in on:
            if cur is not ProfilerAction.WARM_UP:
                self._end(keep=False)                   # the warm-up's data is dropped
        elif prev is ProfilerAction.RECORD_AND_SAVE or (prev in on and cur not in on):
            self._end(keep=prev is not ProfilerAction.WARM_UP)
            if prev is not ProfilerAction.WARM_UP and self._on_trace_ready is not None:
                self._on_trace_ready(self)
        if cur in on and self._current is None:
            self._begin()

    def _begin(self):
        c = Collection()
        if not c.start():
            _warn("another Profiler is collecting now; stop it first (one collects at a time)")
            return False
        self._current = c
        if self.result_dir is None:
            import socket               # here, not at module import: `import mindlite` stays light
            self._new_result_dir(self._output_path, f"{socket.gethostname()}_{os.getpid()}")
        return True

    def _end(self, keep):
        c, self._current = self._current, None
        if c is not None:
            c.stop()
            if keep:
                self._collections.append(c)

    def _new_result_dir(self, root, worker):
        """<root>/<worker>_<YYYYmmddHHMMSSfff>_ascend_ms, not an existing folder (two cycles
        within a millisecond get the next millisecond's name)."""
        import datetime
        now = datetime.datetime.now()
        while True:
            stamp = now.strftime("%Y%m%d%H%M%S%f")[:-3]
            path = os.path.join(root, f"{worker}_{stamp}_ascend_ms")
            if not os.path.exists(path):
                break
            now += datetime.timedelta(milliseconds=1)
        self.result_dir = path
        return path

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync"):
        """Stop if on, then write op_statistic.csv, trace_view.json and the metadata under
        result_dir; the collected data is then released (a second analyse() has none).
        With a schedule, on_trace_ready writes each cycle instead (as MindSpore's)."""
        if self._started:
            self.stop()
        if offline_path:
            _warn("the parameter 'offline_path' is deprecated and ignored")
        if self._schedule is not None:
            _warn("the profiler has a schedule: its cycles go to 'on_trace_ready' "
                  "(e.g. tensorboard_trace_handler)")
            return
        if not self._collections:
            _warn("there is no collected data to analyse (the profiler never ran, or analyse() "
                  "already wrote it)")
            return
        self._write(self.result_dir, pretty)

    def _write(self, result_dir, pretty=False):
        out = os.path.join(result_dir, "ASCEND_PROFILER_OUTPUT")
        os.makedirs(out, exist_ok=True)
        collections, self._collections = self._collections, []
        dropped = sum(c.dropped for c in collections)
        if dropped:
            _warn(f"{dropped} op calls past the first {collections[0].max_events} of a "
                  f"recording window were counted out of the tables")
        from . import report        # csv and the trace writer: loaded when analysing
        report.write_csv(report.summarize(collections), os.path.join(out, "op_statistic.csv"))
        report.write_trace(collections, os.path.join(out, "trace_view.json"), os.getpid(),
                           indent=4 if pretty else None)
        with open(os.path.join(result_dir, "profiler_metadata.json"), "w") as f:
            import json
            json.dump(self._metadata, f, indent=4)

    def add_metadata(self, key, value):
        """A str key/value written to profiler_metadata.json."""
        if not isinstance(key, str) or not isinstance(value, str):
            _warn("the key and value of metadata must be str; this metadata is skipped")
            return
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        """As add_metadata, `value` a JSON string stored parsed."""
        if not isinstance(key, str) or not isinstance(value, str):
            _warn("the key and value of metadata must be str; this metadata is skipped")
            return
        try:
            import json
            self._metadata[key] = json.loads(value)
        except ValueError:
            _warn("the metadata value must be a JSON string; this metadata is skipped")

    def __enter__(self):
        if not self._started:
            self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._started:
            self.stop()

    def __del__(self):
        c = getattr(self, "_current", None)
        if c is not None and active() is c:       # dropped while on: the recorder stops
            c.stop()


class profile(Profiler):   # noqa: N801  (MindSpore's name)
    """mindspore.profiler.profile: the Profiler with MindSpore's explicit keywords (no
    output_path: results go through on_trace_ready, or analyse() to "./data")."""

    def __init__(self, activities=None, with_stack=False, profile_memory=False,
                 data_process=False, parallel_strategy=False, start_profile=True,
                 hbm_ddr=False, pcie=False, sync_enable=True, record_shapes=False,
                 schedule=None, on_trace_ready=None, experimental_config=None):
        kwargs = dict(with_stack=with_stack, profile_memory=profile_memory,
                      data_process=data_process, parallel_strategy=parallel_strategy,
                      start_profile=start_profile, hbm_ddr=hbm_ddr, pcie=pcie,
                      sync_enable=sync_enable, record_shapes=record_shapes, schedule=schedule,
                      on_trace_ready=on_trace_ready, experimental_config=experimental_config)
        if activities is not None:
            kwargs["activities"] = list(activities)
        super().__init__(**kwargs)
