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
split in "args", and one per first-call stage, nested under its op; written as a stream.
The events that can hold no other op (cached C runner calls, graph kernel steps outside a
Python call) are summed with numpy; only the rest are walked one by one for nesting.
"""
import csv
import json

import numpy as np

from .collect import FIRST_STAGES, PATHS

C_STAGES = ("key + runner lookup", "output allocation", "kernel launch", "Tensor wrap",
            "grad record")
UNATTRIBUTED = "first call: Python glue / unattributed"
STAGE_COLUMNS = (C_STAGES + ("Python runner",)
                 + tuple(f"first call: {s}" for _, _, s in FIRST_STAGES) + (UNATTRIBUTED,))
CHUNK = 1 << 16            # trace events turned into Python values at a time
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


def _walk_mask(rec):
    """The events the nesting walk must see: those of paths 1 and 2 (Python code runs inside
    them, which may run other ops) and, per thread, those that start inside one. The rest
    hold no op and no stage: summarize adds them up with numpy."""
    box = (rec["path"] == 1) | (rec["path"] == 2)
    walk = box.copy()
    for tid in np.unique(rec["tid"][box]).tolist():
        on = rec["tid"] == tid
        b = box & on
        starts = rec["t0"][b]
        order = np.argsort(starts, kind="stable")
        starts = starts[order]
        ends = np.maximum.accumulate((starts + rec["d"][b].sum(axis=1)[order]))
        t = rec["t0"][on]
        k = np.searchsorted(starts, t, "right") - 1
        walk[np.flatnonzero(on)[(k >= 0) & (t < ends[np.maximum(k, 0)])]] = True
    return walk


def _walk(c, mine):
    """Yield (name, path, stage durations, nested op ns, {first-call stage: ns}) for the
    events `mine` (indexes into c.records), the stage events attributed to the innermost op
    event open on their thread when they start."""
    rec = c.records[mine]
    stages = {}
    for st in c.stages:
        stages.setdefault(st[1], []).append(st)
    for tid in set(rec["tid"].tolist()) | set(stages):
        sel = rec[rec["tid"] == tid]
        d = sel["d"].tolist()
        objs, paths = sel["obj"].tolist(), sel["path"].tolist()
        items = [(t0, 0, -sum(di), i) for i, (t0, di) in enumerate(zip(sel["t0"].tolist(), d))]
        items += [(st[2], 1, -st[3], st) for st in stages.get(tid, ())]
        items.sort(key=lambda it: it[:3])
        stack = []          # [end ns, event index, nested ns, stages]
        done = []
        for t0, kind, neg, ev in items:
            while stack and stack[-1][0] <= t0:
                done.append(stack.pop())
            if kind == 0:
                if stack:
                    stack[-1][2] -= neg
                stack.append([t0 - neg, ev, 0, {}])
            elif stack:
                sd = stack[-1][3]
                sd[ev[0]] = sd.get(ev[0], 0) - neg
        done.extend(stack)
        for _, i, nested, sd in done:
            yield c.names[objs[i]], paths[i], d[i], nested, sd


def _add(rows, name, path, d, count, total, mn, mx, nested=0, stages=None):
    """Add `count` calls of one op on one path: d = the five stage sums, total their sum."""
    row = rows.get(name)
    if row is None:
        row = rows[name] = OpRow(name)
    lookup, alloc, launch, wrap, last = d
    row.count += count
    row.total += total
    row.self += max(0, total - nested)
    row.min = mn if row.min is None else min(row.min, mn)
    row.max = mx if row.max is None else max(row.max, mx)
    row.paths[path] += count
    st = row.stages
    if path == 0:
        for k, v in zip(C_STAGES, d):
            st[k] += v
    elif path == 1:
        st["key + runner lookup"] += lookup
        st["Python runner"] += last - nested
    elif path == 2:
        st["key + runner lookup"] += lookup
        timed = 0
        for stage, ns in (stages or {}).items():
            st[f"first call: {stage}"] += ns
            timed += ns
        st[UNATTRIBUTED] += last - nested - timed
    else:
        st["kernel launch"] += total - nested


def summarize(collections):
    """Rows (OpRow) for every op name recorded, by self time, largest first."""
    rows = {}
    for c in collections:
        rec = c.records
        walk = _walk_mask(rec)
        for name, path, d, nested, stages in _walk(c, np.flatnonzero(walk)):
            total = sum(d)
            _add(rows, name, path, d, 1, total, total, total, nested, stages)
        plain = rec[~walk]
        if not len(plain):
            continue
        keys, inv = np.unique(plain["obj"].astype(np.int64) * 4 + plain["path"],
                              return_inverse=True)
        tot = plain["d"].sum(axis=1)
        counts = np.bincount(inv, minlength=len(keys)).tolist()
        sums = np.stack([np.bincount(inv, plain["d"][:, k], len(keys)) for k in range(5)], 1)
        mins = np.full(len(keys), np.iinfo(np.int64).max)
        maxs = np.full(len(keys), np.iinfo(np.int64).min)
        np.minimum.at(mins, inv, tot)
        np.maximum.at(maxs, inv, tot)
        for j, key in enumerate(keys.tolist()):
            d = [int(v) for v in sums[j].tolist()]
            _add(rows, c.names[key // 4], key % 4, d, counts[j], sum(d), int(mins[j]),
                 int(maxs[j]))
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


def _trace_lines(collections, pid):
    """The Trace Event Format events, one JSON text each: ts and dur in µs from the first
    recording's start."""
    if not collections:
        return
    base = min(c.start_ns for c in collections)
    yield json.dumps({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
                      "args": {"name": "mindlite"}})
    threads = set()
    cats = [json.dumps(p) for p in PATHS]
    for c in collections:
        names = [json.dumps(n) for n in c.names]
        for at in range(0, len(c.records), CHUNK):      # as Python values a chunk at a time
            rec = c.records[at:at + CHUNK]
            for obj, path, tid, t0, d in zip(rec["obj"].tolist(), rec["path"].tolist(),
                                             rec["tid"].tolist(), rec["t0"].tolist(),
                                             rec["d"].tolist()):
                threads.add(tid)
                args = f'"path":{cats[path]}'
                if path == 0:
                    args += "".join(f',"{k} (us)":{v / 1e3:.3f}' for k, v in zip(C_STAGES, d))
                yield (f'{{"name":{names[obj]},"ph":"X","cat":{cats[path]},'
                       f'"ts":{(t0 - base) / 1e3:.3f},"dur":{sum(d) / 1e3:.3f},"pid":{pid},'
                       f'"tid":{tid},"args":{{{args}}}}}')
        for stage, tid, t0, dur in c.stages:
            threads.add(tid)
            yield json.dumps({"name": stage, "ph": "X", "cat": "first-call stage",
                              "ts": _us(t0 - base), "dur": _us(dur), "pid": pid, "tid": tid,
                              "args": {}})
    for tid in sorted(threads):
        yield json.dumps({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                          "args": {"name": f"thread {tid}"}})


def write_trace(collections, path, pid, indent=None):
    """trace_view.json, written an event at a time (a million op calls stay a stream);
    `indent` puts one event a line."""
    sep = ",\n" if indent else ","
    with open(path, "w") as f:
        f.write('{"displayTimeUnit": "ns", "traceEvents": [')
        for i, line in enumerate(_trace_lines(collections, pid)):
            f.write(sep + line if i else line)
        f.write("]}\n")
