"""What `Profiler.analyse()` writes: the per-op table (CSV) and the Chrome trace (JSON).

summarize(collections) -> rows: one per op name, from the op events of every recording
window (collect.py) with the first-call stage events attributed to the op event that
encloses them on their thread. Times are wall times: "Total Time" includes the ops an op
ran inside itself (a first call that runs other ops, a graph kernel step that calls a
primitive); "Self Time" leaves them out, and "Ratio(%)" is the op's share of all self time.

write_csv(rows, path): op_statistic.csv, MindSpore's columns first (OP Type, Core Type,
Count, Total/Min/Avg/Max Time(us), Ratio(%)), then mindlite's: Self Time(us), the calls by
path and the time of each pipeline stage (see STAGE_COLUMNS and docs/profiling.md).
write_trace(collections, path, pid): trace_view.json in the Trace Event Format that
chrome://tracing and Perfetto open: one complete ("ph": "X") event per op call, its stage
split in "args", and one per first-call stage, nested under its op.
"""
import csv
import json

from .collect import FIRST_STAGES, PATHS

C_STAGES = ("key + runner lookup", "output allocation", "kernel launch", "Tensor wrap",
            "grad record")
UNATTRIBUTED = "first call: Python glue / unattributed"
STAGE_COLUMNS = (C_STAGES + ("Python runner",)
                 + tuple(f"first call: {s}" for _, _, s in FIRST_STAGES) + (UNATTRIBUTED,))
MS_COLUMNS = ("OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)",
              "Avg Time(us)", "Max Time(us)", "Ratio(%)")


class OpRow:
    __slots__ = ("name", "count", "total", "self", "min", "max", "paths", "stages")

    def __init__(self, name):
        self.name = name
        self.count = 0
        self.total = self.self = 0
        self.min = self.max = None
        self.paths = [0] * len(PATHS)
        self.stages = dict.fromkeys(STAGE_COLUMNS, 0)


def _walk(collections):
    """Yield (op event, nested op ns, {first-call stage: ns}) for every op event, the stage
    events attributed to the innermost op event open on their thread when they start."""
    by_thread = {}
    for c in collections:
        for e in c.events:
            by_thread.setdefault(e[2], []).append((e[3], 0, e))
        for s in c.stages:
            by_thread.setdefault(s[1], []).append((s[2], 1, s))
    for items in by_thread.values():
        items.sort(key=lambda it: (it[0], it[1], -_dur(it)))
        stack = []          # [end ns, event, nested ns, stages]
        done = []
        for t0, kind, ev in items:
            while stack and stack[-1][0] <= t0:
                done.append(stack.pop())
            if kind == 0:
                dur = sum(ev[4])
                if stack:
                    stack[-1][2] += dur
                stack.append([t0 + dur, ev, 0, {}])
            elif stack:
                st = stack[-1][3]
                st[ev[0]] = st.get(ev[0], 0) + ev[3]
        done.extend(stack)
        for _, ev, nested, stages in done:
            yield ev, nested, stages


def _dur(item):
    _, kind, ev = item
    return sum(ev[4]) if kind == 0 else ev[3]


def summarize(collections):
    """Rows (OpRow) for every op name recorded, by self time, largest first."""
    rows = {}
    for ev, nested, stages in _walk(collections):
        name, path, _, _, (lookup, alloc, launch, wrap, last) = ev
        row = rows.get(name)
        if row is None:
            row = rows[name] = OpRow(name)
        total = lookup + alloc + launch + wrap + last
        row.count += 1
        row.total += total
        row.self += max(0, total - nested)
        row.min = total if row.min is None else min(row.min, total)
        row.max = total if row.max is None else max(row.max, total)
        row.paths[path] += 1
        st = row.stages
        if path == 0:
            for k, v in zip(C_STAGES, (lookup, alloc, launch, wrap, last)):
                st[k] += v
        elif path == 1:
            st["key + runner lookup"] += lookup
            st["Python runner"] += last - nested
        elif path == 2:
            st["key + runner lookup"] += lookup
            timed = 0
            for stage, ns in stages.items():
                st[f"first call: {stage}"] += ns
                timed += ns
            st[UNATTRIBUTED] += last - nested - timed
        else:
            st["kernel launch"] += total - nested
    return sorted(rows.values(), key=lambda r: (-r.self, r.name))


def _us(ns):
    return round(ns / 1e3, 3)


def write_csv(rows, path):
    all_self = sum(r.self for r in rows) or 1
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(MS_COLUMNS + ("Self Time(us)",) + tuple(f"{p} calls" for p in PATHS)
                   + tuple(f"{s}(us)" for s in STAGE_COLUMNS))
        for r in rows:
            w.writerow((r.name, "CPU", r.count, _us(r.total), _us(r.min),
                        _us(r.total / r.count), _us(r.max), round(100 * r.self / all_self, 3),
                        _us(r.self), *r.paths, *(_us(r.stages[s]) for s in STAGE_COLUMNS)))


def trace_events(collections, pid):
    """The Trace Event Format events: ts and dur in µs from the first recording's start."""
    if not collections:
        return []
    base = min(c.start_ns for c in collections)
    out = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
            "args": {"name": "mindlite"}}]
    threads = set()
    for c in collections:
        for name, path, tid, t0, stages in c.events:
            threads.add(tid)
            args = {"path": PATHS[path]}
            if path == 0:
                args.update((f"{k} (us)", _us(v)) for k, v in zip(C_STAGES, stages))
            out.append({"name": name, "ph": "X", "cat": PATHS[path], "ts": _us(t0 - base),
                        "dur": _us(sum(stages)), "pid": pid, "tid": tid, "args": args})
        for stage, tid, t0, dur in c.stages:
            threads.add(tid)
            out.append({"name": stage, "ph": "X", "cat": "first-call stage",
                        "ts": _us(t0 - base), "dur": _us(dur), "pid": pid, "tid": tid,
                        "args": {}})
    for tid in sorted(threads):
        out.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                    "args": {"name": f"thread {tid}"}})
    return out


def write_trace(collections, path, pid, indent=None):
    with open(path, "w") as f:
        json.dump({"traceEvents": trace_events(collections, pid), "displayTimeUnit": "ns"}, f,
                  indent=indent)
