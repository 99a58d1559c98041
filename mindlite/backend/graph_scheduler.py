"""Running a CompiledGraph (backend/graph_compiler.py): sequentially, or as actors.

    run_sequential(cg, args)            the steps in execution order on the calling thread
    GraphScheduler(workers).run(cg, args)
                                        MindSpore's GraphScheduler made small: every step is
                                        an actor that fires when its data arrows (inputs
                                        produced) and control arrows (stream order, memory
                                        reuse, side effects) have all arrived; actors run on a
                                        thread pool, so independent branches run at once
                                        where kernels release the GIL (numpy BLAS, C kernels)

Memory (Memory): a run takes one set of buffers per device from the CompiledGraph's pool:
CPU slots are host buffers, a device's slots come from its DeviceResManager's pool; each
planned value is a view / sub-address of its slot. Slots that escape (graph outputs) are
handed to the returned Tensors and refilled before the next run. Both runners give the same
results: the arrows carry every ordering the sequential order implies.
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import _C
from ..common.tensor import Tensor
from ..context import CONTEXT
from ..device.base import DeviceAddress
from .device_session import kernel_error
from ..common.buffers import own_buffers
from .lowering import CONST

POOL_MEMORY = 4             # buffer sets kept per compiled graph


class Memory:
    """One run's buffers: per device a buffer per slot; `values` the run's value table."""

    def __init__(self, cg):
        self.cg = cg
        self.slots = {dev: [None] * len(p.slot_bytes) for dev, p in cg.plans.items()}
        self.template = [v.const if v.kind == CONST else None for v in cg.values]
        self.views = list(self.template)
        for dev, p in cg.plans.items():
            for sl in range(len(p.slot_bytes)):
                self._fill(dev, sl)

    def _fill(self, dev, sl):
        p, cg = self.cg.plans[dev], self.cg
        if dev == "CPU":
            buf = self.slots[dev][sl] = np.empty(p.slot_bytes[sl], np.uint8)
            for v in p.members[sl]:
                a = cg.values[v].abstract
                self.views[v] = np.ndarray(a.shape, a.np, buf)
            return
        rm = self.cg.target.res_manager         # the graph's device (its only non-CPU one)
        slot = self.slots[dev][sl] = rm.alloc_address((p.slot_bytes[sl],), np.uint8)
        for v in p.members[sl]:
            a = cg.values[v].abstract
            self.views[v] = DeviceAddress(dev, slot.ptr, cg.values[v].nbytes, a.shape, a.np)

    def values(self):
        return list(self.views)

    def handoff(self):
        """Escaping CPU slots now belong to the returned Tensors: fresh ones next run."""
        p = self.cg.plans.get("CPU")
        if p is not None:
            for sl in p.escaping:
                self._fill("CPU", sl)


def _take(cg):
    pool = cg.__dict__.setdefault("_memory_pool", [])
    try:
        return pool.pop()
    except IndexError:
        return Memory(cg)


def _give(cg, mem):
    mem.handoff()
    pool = cg.__dict__["_memory_pool"]
    if len(pool) < POOL_MEMORY:
        pool.append(mem)


def _array(x):
    if isinstance(x, Tensor):
        if x._arr is None:
            x.init_data()
        return x._arr
    return x


def _tensor(cg, ref, vals):
    if isinstance(ref, tuple):
        return tuple(_tensor(cg, r, vals) for r in ref)
    x = vals[ref]
    if isinstance(x, np.ndarray) and cg.values[ref].abstract is not None:
        return _C.wrap(x, cg.values[ref].abstract)
    return x


def _call(fn, arrays, params, kwnames):
    if kwnames:
        n = len(params) - len(kwnames)
        return fn(*arrays, *params[:n], **dict(zip(kwnames, params[n:])))
    return fn(*arrays, *params)


def _store(s, vals, res):
    if len(s.outs) == 1 and not isinstance(res, (tuple, list)):
        vals[s.outs[0]] = res
    else:
        for v, r in zip(s.outs, res):
            vals[v] = r


def _as_abstract(arr, a, s):
    """A SuperKernel's output as the graph's abstract promised (a runtime may return a
    scalar as shape (1,)); a different size or dtype is the plugin's error."""
    if arr.shape != tuple(a.shape):
        if arr.size != a.size:
            raise ValueError(f"output shape {list(arr.shape)}, the graph expects "
                             f"{list(a.shape)}")
        arr = arr.reshape(a.shape)
    if arr.dtype != a.np:
        raise ValueError(f"output dtype {arr.dtype}, the graph expects {a.np}")
    return arr


def run_step(cg, s, vals):
    kind = s.kind
    try:
        if kind == "kernel":
            _call(s.fn, [_array(vals[v]) for v in s.ins] + [vals[v] for v in s.outs],
                  s.params, s.kwnames)
        elif kind == "alloc":
            if s.own:
                own_buffers(*(_tensor(cg, r, vals) for r in s.own))
            _store(s, vals, _call(s.fn, [_array(vals[v]) for v in s.ins], s.params,
                                  s.kwnames))
        elif kind == "prim":
            _store(s, vals, s.fn(*(_tensor(cg, r, vals) for r in s.ins)))
        elif kind == "device":
            _launch_device(cg, s, vals)
        elif kind == "h2d":
            s.ctx.res_manager.copy_host_to_device(
                vals[s.outs[0]], _array(vals[s.ins[0]]))
        elif kind == "d2h":
            s.ctx.res_manager.copy_device_to_host(
                vals[s.outs[0]], vals[s.ins[0]])
        else:                                            # super: host arrays back
            res = s.ctx.graph_executor.run_graph(
                s.fn, [_array(vals[v]) for v in s.ins])
            _store(s, vals, [_as_abstract(np.asarray(r), cg.values[v].abstract, s)
                             for r, v in zip(res, s.outs)])
    except Exception as err:
        if s.on_error is not None:
            s.on_error(err)
        if s.device != "CPU" and kind == "super":
            raise kernel_error(s.ctx, s.name, getattr(s.fn, "name", "SuperKernel"), err) from err
        raise


def _launch_device(cg, s, vals):
    ctx = s.ctx
    ins, outs = [vals[v] for v in s.ins], [vals[v] for v in s.outs]
    if not s.kernel.failed:
        try:
            ctx.kernel_executor.launch(s.fn, ins, outs, s.stream)
            return
        except Exception as err:
            error = kernel_error(ctx, s.name, s.kernel.name, err)
            if not CONTEXT.values.get("device_fallback"):
                raise error from err
            import warnings
            s.kernel.failed = True
            warnings.warn(f"mindlite: {error}; op '{s.name}' runs on CPU from now on "
                          f"(device_fallback=True)", RuntimeWarning, stacklevel=4)
    rm = ctx.res_manager                # CPU fallback: through host copies
    host_out = [np.empty(a.shape, a.dtype) for a in outs]
    s.kernel.cpu_graph.launch(*(rm.to_host(a) for a in ins), *host_out)
    for a, h in zip(outs, host_out):
        rm.copy_host_to_device(a, h)


def _start(cg, args):
    mem = _take(cg)
    vals = mem.values()
    for i, a in zip(cg.args, args):
        vals[i] = a
    return mem, vals


def _finish(cg, mem, vals):
    out = _tensor(cg, cg.output, vals)
    _give(cg, mem)
    return out


def run_sequential(cg, args):
    mem, vals = _start(cg, args)
    try:
        for s in cg.steps:
            run_step(cg, s, vals)
        return _finish(cg, mem, vals)
    except BaseException:
        _give(cg, mem)
        raise


class GraphScheduler:
    """Actors on a thread pool (see the module docstring); `workers` threads (default: the
    CPU count). One scheduler can run many graphs, from many threads."""

    def __init__(self, workers=None):
        self.workers = workers or os.cpu_count() or 1
        self.pool = ThreadPoolExecutor(self.workers, thread_name_prefix="mindlite-actor")

    def close(self):
        self.pool.shutdown(wait=True)

    def run(self, cg, args):
        succ = cg.__dict__.get("_succ")
        if succ is None:
            succ = [[] for _ in cg.steps]
            for i, preds in enumerate(cg.preds):
                for p in preds:
                    succ[p].append(i)
            cg._succ = succ
        mem, vals = _start(cg, args)
        pending = [len(p) for p in cg.preds]
        state = {"left": len(cg.steps), "inflight": 0, "error": None}
        lock, done = threading.Lock(), threading.Event()
        submit = self.pool.submit

        def fire(i):
            err = None
            try:
                run_step(cg, cg.steps[i], vals)
            except BaseException as e:           # reported to the caller below
                err = e
            ready = []
            with lock:
                state["inflight"] -= 1
                state["left"] -= 1
                if err is not None and state["error"] is None:
                    state["error"] = err
                if state["error"] is None:
                    for j in succ[i]:
                        pending[j] -= 1
                        if pending[j] == 0:
                            ready.append(j)
                    state["inflight"] += len(ready)
                if state["left"] == 0 or (state["error"] is not None
                                          and state["inflight"] == 0):
                    done.set()
            for j in ready:
                submit(fire, j)

        roots = [i for i, n in enumerate(pending) if n == 0]
        if not roots:
            done.set()
        state["inflight"] = len(roots)
        for i in roots:
            submit(fire, i)
        done.wait()
        if state["error"] is not None:
            _give(cg, mem)
            raise state["error"]
        return _finish(cg, mem, vals)


def sequential_order_ok(cg):
    """True when every arrow points backwards in execution order (the sequential runner then
    honours every ordering the scheduler does)."""
    return all(p < i for i, preds in enumerate(cg.preds) for p in preds)
