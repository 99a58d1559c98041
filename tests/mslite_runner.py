"""Runs real MindSpore Lite (the `mindspore_lite` 2.0.0 package, in its own Python 3.7
environment) for the interop tests and fixtures: tests/lite_real.py starts it as

    <lite python> tests/mslite_runner.py jobs.json results.json

jobs.json is a list of jobs, done in order, each a dict:
    {"convert": {"fmk": "ONNX" | "MINDIR", "model": path, "output": path without ".ms",
                 "input_shape": {name: [dims]} (optional), "input_format": "NHWC" | "NCHW",
                 "config": a converter config file (optional: e.g. [registry] plugin_path)}}
    {"run": {"model": path.ms, "inputs": path.npz (arrays x0, x1, ...), "outputs": path.npz}}
results.json gets one entry per job: {"ok": true} or {"ok": false, "error": why} (an error
is what Lite raised; with GLOG_v=1 its log tells more). This file imports only numpy and
mindspore_lite, and runs under Python 3.7: it is not a test module and not mindlite.
"""
import json
import sys

import numpy as np


def convert(job):
    import mindspore_lite as mslite
    fmk = {"ONNX": mslite.FmkType.ONNX, "MINDIR": mslite.FmkType.MINDIR}[job["fmk"]]
    c = mslite.Converter()
    c.save_type = mslite.ModelType.MINDIR_LITE
    if job.get("input_shape"):
        c.input_shape = job["input_shape"]
    if job.get("input_format"):
        c.input_format = getattr(mslite.Format, job["input_format"])
    c.convert(fmk, job["model"], job["output"], config_file=job.get("config", ""))


def run(job):
    import mindspore_lite as mslite
    ctx = mslite.Context()
    ctx.target = ["cpu"]
    ctx.cpu.thread_num = 1
    model = mslite.Model()
    model.build_from_file(job["model"], mslite.ModelType.MINDIR_LITE, ctx)
    data = np.load(job["inputs"])
    inputs = model.get_inputs()
    for i, t in enumerate(inputs):
        t.set_data_from_numpy(np.ascontiguousarray(data["x%d" % i]))
    outputs = model.predict(inputs)
    np.savez(job["outputs"], **{"y%d" % i: o.get_data_to_numpy()
                                for i, o in enumerate(outputs)})


def main(jobs_path, results_path):
    with open(jobs_path) as f:
        jobs = json.load(f)
    results = []
    for job in jobs:
        (kind, args), = job.items()
        try:
            {"convert": convert, "run": run}[kind](args)
            results.append({"ok": True})
        except Exception as err:            # reported to the test, which decides
            results.append({"ok": False, "error": "%s: %s" % (type(err).__name__, err)})
    with open(results_path, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
