"""Real MindSpore Lite 2.0.0 for the interop tests and fixtures: where its Python is, and a
batch of converter/runtime jobs run in it (tests/mslite_runner.py, one process a batch).

    lite_python() -> path or None      $MINDLITE_LITE_PYTHON, else build/litevenv (what
                                        `make test` prepares where a Python 3.7 is), else
                                        /opt/litevenv; the first that imports mindspore_lite
    LiteJobs(tmp).convert(...) / .run(...) queue jobs; .go() runs them, returns the results
"""
import functools
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "tests", "mslite_runner.py")
CANDIDATES = (os.path.join(ROOT, "build", "litevenv", "bin", "python"), "/opt/litevenv/bin/python")
WHY_NOT = ("no Python with MindSpore Lite 2.0.0 (mindspore_lite): `make test` builds "
           "build/litevenv where a Python 3.7 is installed (pyenv: ~/.pyenv/versions/3.7.*); "
           "or set MINDLITE_LITE_PYTHON")


@functools.lru_cache(maxsize=1)
def lite_python():
    env = os.environ.get("MINDLITE_LITE_PYTHON")
    for path in ([env] if env else []) + list(CANDIDATES):
        if not os.access(path, os.X_OK):
            continue
        try:
            ok = subprocess.run([path, "-c", "import mindspore_lite"], capture_output=True,
                                timeout=120).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if ok:
            return path
    return None


class LiteJobs:
    """Jobs for one run of the real-Lite runner, in `folder`."""

    def __init__(self, folder):
        self.folder, self.jobs = str(folder), []

    def convert(self, fmk, model, output, input_shape=None, input_format=None, config=None):
        job = {"fmk": fmk, "model": str(model), "output": str(output)}
        if config:
            job["config"] = str(config)
        if input_shape:
            job["input_shape"] = input_shape
        if input_format:
            job["input_format"] = input_format
        self.jobs.append({"convert": job})
        return len(self.jobs) - 1

    def run(self, model, arrays, outputs):
        inputs = os.path.join(self.folder, f"in{len(self.jobs)}.npz")
        np.savez(inputs, **{f"x{i}": a for i, a in enumerate(arrays)})
        self.jobs.append({"run": {"model": str(model), "inputs": inputs,
                                  "outputs": str(outputs)}})
        return len(self.jobs) - 1

    def go(self, timeout=600):
        """Run the queued jobs; returns [{"ok": bool, "error": why}] in job order."""
        jobs = os.path.join(self.folder, "jobs.json")
        results = os.path.join(self.folder, "results.json")
        with open(jobs, "w") as f:
            json.dump(self.jobs, f)
        env = dict(os.environ, GLOG_v=os.environ.get("GLOG_v", "3"))
        env.pop("PYTHONPATH", None)           # the Lite venv sees none of mindlite
        proc = subprocess.run([lite_python(), RUNNER, jobs, results], capture_output=True,
                              text=True, timeout=timeout, env=env, cwd=self.folder)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-4000:])
            raise RuntimeError(f"the MindSpore Lite runner failed (status {proc.returncode})")
        with open(results) as f:
            out = json.load(f)
        self.jobs = []
        return out


def outputs(path):
    data = np.load(path)
    return [data[f"y{i}"] for i in range(len(data.files))]
