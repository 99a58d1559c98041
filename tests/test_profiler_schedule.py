"""mindlite.profiler's schedule, profile and tensorboard_trace_handler (MindSpore 2.10's step
API): the actions by step (MindSpore's values), which steps' ops each saved cycle holds
(warm-up dropped, one folder a cycle), and misuse warning as MindSpore's."""
import csv
import glob
import os

import numpy as np
import pytest

from mindlite import Tensor, _C, ops
from mindlite.profiler import (Profiler, ProfilerAction, profile, schedule,
                               tensorboard_trace_handler)

A = ProfilerAction


def test_schedule_actions():
    s = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    assert [s(i) for i in range(10)] == [A.NONE, A.NONE, A.WARM_UP, A.RECORD,
                                         A.RECORD_AND_SAVE, A.NONE, A.WARM_UP, A.RECORD,
                                         A.RECORD_AND_SAVE, A.NONE]
    assert [s(i) for i in range(3)] == [A.NONE] * 2 + [A.WARM_UP]
    assert [schedule(wait=0, active=1)(i) for i in range(3)] == [A.RECORD_AND_SAVE] * 3
    assert s.to_dict() == {"wait": 1, "active": 2, "warmup": 1, "repeat": 2, "skip_first": 1}
    with pytest.raises(ValueError, match="step"):
        s(-1)
    with pytest.warns(RuntimeWarning, match="'active' must be an int >= 1"):
        bad = schedule(wait=0, active=0)
    assert bad.active == 1
    with pytest.warns(RuntimeWarning, match="'wait'"):
        assert schedule(wait=True, active=1).wait == 0


def _adds(path):
    with open(os.path.join(path, "ASCEND_PROFILER_OUTPUT", "op_statistic.csv")) as f:
        return {r["OP Type"]: int(r["Count"]) for r in csv.DictReader(f)}.get("Add", 0)


def test_profile_cycles_go_to_the_handler(tmp_path):
    x = Tensor(np.ones((2, 2), np.float32))
    add = ops.Add()
    add(x, x)
    prof = profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                   on_trace_ready=tensorboard_trace_handler(str(tmp_path), "w0"))
    for step in range(10):
        for _ in range(step + 1):          # step i runs Add i+1 times
            add(x, x)
        prof.step()
    prof.stop()
    dirs = sorted(glob.glob(str(tmp_path / "w0_*_ascend_ms")))
    # cycles: steps 2-3 (warm-up step 1 dropped) and 6-7 (warm-up step 5 dropped)
    assert sorted(_adds(d) for d in dirs) == [3 + 4, 7 + 8]
    assert not _C.profiler_on()


def test_stop_mid_cycle_saves_it(tmp_path):
    x = Tensor(np.ones((2, 2), np.float32))
    seen = []
    with profile(schedule=schedule(wait=0, warmup=0, active=3),
                 on_trace_ready=lambda p: seen.append(
                     sum(len(c.records) for c in p._collections))) as prof:
        ops.exp(x)
        prof.step()
        ops.exp(x)
    assert seen == [2]


def test_schedule_misuse_warns(tmp_path):
    prof = Profiler(output_path=str(tmp_path), schedule=schedule(wait=0, active=1),
                    start_profile=False)
    with pytest.warns(RuntimeWarning, match="stopped, step"):
        prof.step()
    prof.start()
    prof.stop()
    with pytest.warns(RuntimeWarning, match="on_trace_ready"):
        prof.analyse()
    with pytest.warns(RuntimeWarning, match="'schedule' must be callable"):
        Profiler(output_path=str(tmp_path), schedule=3, start_profile=False)
    with pytest.raises(TypeError, match="dir_name"):
        tensorboard_trace_handler(3)
    assert not _C.profiler_on()
