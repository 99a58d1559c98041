"""mindlite.profiler: MindSpore's `Profiler` (mindspore.profiler.Profiler) and the per-stage
latency breakdown of one primitive call.

    Profiler(output_path="./data", start_profile=True, ...)   profiler.py: collects every op
        run while it is on (eager ops, graph-mode kernels, backward ops) with its wall time and
        pipeline-stage split; analyse() writes the per-op CSV and the Chrome trace (report.py)
    profile(..., schedule=schedule(wait=1, warmup=1, active=2),
            on_trace_ready=tensorboard_trace_handler("./data"))   the same, step by step
    profile_call(prim, *args, repeat=15, grad=False) -> {stage: µs}   breakdown.py
    format_breakdown(d), stage_sum(d, phase), time_samples(fn, repeat)

See docs/profiling.md.
"""
from .profiler import (AicoreMetrics, ExportType, Profiler, ProfilerActivity,  # noqa: F401
                       ProfilerLevel, profile)
from .schedule import ProfilerAction, Schedule, schedule, tensorboard_trace_handler  # noqa: F401

# the breakdown (statistics, the pynative internals) loads on first use: importing the
# Profiler stays light
_BREAKDOWN = ("format_breakdown", "median_us", "profile_call", "stage_sum", "time_samples")


def __getattr__(name):
    if name in _BREAKDOWN:
        from . import breakdown
        return getattr(breakdown, name)
    raise AttributeError(f"module 'mindlite.profiler' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_BREAKDOWN))
