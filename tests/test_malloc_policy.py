"""runtime/malloc_policy.cc: glibc malloc keeps a training step's few-MiB buffers mapped from
one step to the next (no page faults on reuse), unless the user opts out or tuned malloc."""
import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc",
                                reason="the policy is glibc's mallopt; other libcs are left as is")

STEP = """
import resource, numpy as np
from mindlite import _C
def step():                     # three 8 MiB buffers live at once, all freed at the end
    bufs = [np.ones(1 << 21, np.float32) for _ in range(3)]
    return sum(float(b[-1]) for b in bufs)
step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    step()
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(_C.malloc_tuned(), faults)
"""


def run(**env):
    full = {k: v for k, v in os.environ.items()
            if k not in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES",
                         "MINDLITE_MALLOC_TUNE")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", STEP], env=full, capture_output=True,
                         text=True, timeout=120, check=True).stdout.split()
    return out[0] == "True", int(out[1])


def test_buffers_are_reused_without_page_faults():
    tuned, faults = run()
    assert tuned
    pages = 10 * 3 * (8 << 20) // 4096          # what fresh mappings would fault in
    assert faults < pages // 20, f"{faults} minor faults for {pages} pages of buffers"


def test_opt_out_and_user_settings_keep_glibc_defaults():
    assert run(MINDLITE_MALLOC_TUNE="0")[0] is False
    assert run(MALLOC_TRIM_THRESHOLD_="1000000")[0] is False
    assert run(GLIBC_TUNABLES="glibc.malloc.mmap_threshold=1000000")[0] is False
