"""The real MindSpore Lite 2.0.0 column of benchmarks/real_models.py, run by the Python 3.7 venv
that holds `mindspore_lite` (/opt/litevenv/bin/python): numpy and mindspore_lite only.

    python _mslite_child.py convert MODEL.onnx OUT_PREFIX       -> writes OUT_PREFIX.ms
    python _mslite_child.py serve MODEL.ms INPUT.npy THREADS

serve: builds the model with `THREADS` CPU threads, runs it once on the input and prints the
output as one JSON line (the parent compares it with the other engines'); then, for every JSON
line `seconds` on stdin, runs predict() for that long and prints the per-call microseconds.
"""
import json
import sys
import time

import numpy as np
import mindspore_lite as mslite


def convert(onnx_path, out_prefix):
    conv = mslite.Converter()
    conv.save_type = mslite.ModelType.MINDIR_LITE      # a .ms file (2.0.0's default: .mindir)
    conv.convert(mslite.FmkType.ONNX, onnx_path, out_prefix)


def serve(ms_path, input_path, threads):
    ctx = mslite.Context()
    ctx.target = ["cpu"]
    ctx.cpu.thread_num = threads
    model = mslite.Model()
    model.build_from_file(ms_path, mslite.ModelType.MINDIR_LITE, ctx)
    inputs = model.get_inputs()
    x = np.load(input_path)
    shape = [int(d) for d in inputs[0].shape]
    if x.ndim == 4 and list(x.shape) != shape and shape == [x.shape[i] for i in (0, 2, 3, 1)]:
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))      # its converter's NHWC input

    def call():
        inputs[0].set_data_from_numpy(x)
        return model.predict(inputs)[0].get_data_to_numpy()
    out = call()
    print(json.dumps(out.reshape(-1).astype(float).tolist()), flush=True)
    for line in sys.stdin:
        end = time.perf_counter() + json.loads(line)
        times = []
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            call()
            times.append((time.perf_counter() - t0) * 1e6)
        print(json.dumps(times), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "convert":
        convert(sys.argv[2], sys.argv[3])
    else:
        serve(sys.argv[2], sys.argv[3], int(sys.argv[4]))
