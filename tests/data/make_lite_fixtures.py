"""Write the real MindSpore Lite fixtures of tests/test_lite_fixtures.py: `.ms` files that
MindSpore Lite 2.0.0's own converter wrote, with its runtime's outputs, so that mindlite's
reader and runtime are checked against real Lite's files where Lite itself is absent (CI).

    cd <repository> && PYTHONPATH=$PWD python tests/data/make_lite_fixtures.py tests/data

Needs PyTorch and onnx in this Python, and a Python with `mindspore_lite` 2.0.0 (found as
tests/lite_real.py finds it: $MINDLITE_LITE_PYTHON, build/litevenv from `make test`, or
/opt/litevenv). PyTorch exports three small models to ONNX (opset 11; LayerNormalization at
opset 17): lite_cnn (tests/torch_nets.py TinyCNN, BatchNorm randomized), lite_encoder (a
transformer encoder block, d=16, 2 heads, static input shape) and lite_zoo (the op zoo).
Lite's Converter (save_type MINDIR_LITE, its default NHWC input format) writes
lite_<name>.ms; Lite's runtime (1 thread) runs each on a fixed input. lite_fixtures.npz holds,
per model, `<name>_x` (the NHWC / as-fed input) and `<name>_y<i>` (real Lite's outputs).
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from lite_nets import onnx_file  # noqa: E402
from lite_real import LiteJobs, lite_python, outputs  # noqa: E402
from torch_nets import Encoder, TinyCNN, Zoo, randomize_bn  # noqa: E402


def main(out_dir):
    out_dir = os.path.abspath(out_dir)
    if lite_python() is None:
        sys.exit("no Python with mindspore_lite 2.0.0 found (see tests/lite_real.py)")
    rng = np.random.default_rng(7)
    models = {"cnn": (randomize_bn(TinyCNN()).eval(), rng.standard_normal((1, 3, 12, 12)), 11,
                      None),
              "encoder": (Encoder(d=16, heads=2).eval(), rng.standard_normal((1, 4, 16)), 17,
                          {"x": [1, 4, 16]}),
              "zoo": (Zoo().eval(), rng.standard_normal((1, 4, 8, 8)), 11, None)}
    arrays = {}
    with tempfile.TemporaryDirectory() as tmp:
        jobs = LiteJobs(tmp)
        for name, (net, x, opset, shape) in models.items():
            x = x.astype(np.float32)
            src = os.path.join(tmp, f"{name}.onnx")
            onnx_file(net, x, src, opset)
            dst = os.path.join(out_dir, f"lite_{name}")
            jobs.convert("ONNX", src, dst, input_shape=shape)
            fed = np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if x.ndim == 4 else x
            jobs.run(dst + ".ms", [fed], os.path.join(tmp, f"{name}_out.npz"))
            arrays[f"{name}_x"] = fed
        for res in jobs.go():
            if not res["ok"]:
                sys.exit(f"MindSpore Lite failed: {res['error']}")
        for name in models:
            os.chmod(os.path.join(out_dir, f"lite_{name}.ms"), 0o644)   # Lite writes 0400
            for i, y in enumerate(outputs(os.path.join(tmp, f"{name}_out.npz"))):
                arrays[f"{name}_y{i}"] = y
    np.savez(os.path.join(out_dir, "lite_fixtures.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
