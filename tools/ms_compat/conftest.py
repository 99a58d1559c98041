"""pytest configuration for running MindSpore's own test files (tests/st/ops/cpu, fetched into
a folder outside this repository) with run_st_cpu.py: the `mindspore` alias package beside
this file comes first on sys.path (on mindlite; under MindSpore's own Python the real
package is found first, run_st_cpu.py sees to it), MindSpore's test markers are
registered, and each test starts from PyNative mode and a fixed seed as MindSpore's CI
processes do (one process per file there; here one per run)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("MS_COMPAT_ENGINE", "mindlite") == "mindlite" and HERE not in sys.path:
    sys.path.insert(0, HERE)

MARKS = ("level0", "level1", "level2", "level3", "level4", "platform_x86_cpu",
         "platform_arm_cpu", "platform_x86_gpu_training", "platform_arm_ascend_training",
         "platform_x86_ascend_training", "env_onecard", "env_single", "env_multicard",
         "allcards", "skip", "essential", "unstable")


def pytest_configure(config):
    for mark in MARKS:
        config.addinivalue_line("markers", f"{mark}: MindSpore's test marker")
