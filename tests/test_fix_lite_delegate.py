"""The onnxruntime delegate claims every primitive the ONNX exporter converts
(mindlite.onnx.exportable_primitives, export_ops_extra included), also in a fresh process
where nothing imported export_ops_extra yet: a Square (converted there) between MatMuls
runs in the same onnxruntime kernel; Custom ops stay unclaimed."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")
pytest.importorskip("onnx", reason="the onnxruntime delegate builds ONNX models")
pytest.importorskip("onnxruntime", reason="the onnxruntime delegate runs onnxruntime")

TESTS = os.path.dirname(os.path.abspath(__file__))

SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
import numpy as np
import mindlite as ms
from mindlite import nn, ops, lite as mslite
from mindlite.lite.converter import convert
from lite_models import build, rand, run
assert "mindlite.onnx.export_ops_activation" not in sys.modules


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 4)
        self.fc2 = nn.Dense(4, 3)

    def construct(self, x):
        return self.fc2(ops.square(self.fc1(ops.square(x))))


net, x = Net(), rand(2, 4)
ctx = mslite.Context()
ctx.delegate = mslite.OnnxRuntimeDelegate()
model = build(convert(net, ms.Tensor(x)), ctx)
units = model._session.main.units
print([(type(u).__name__, [k.type for k in getattr(u, "kernels", [u])]) for u in units])
np.testing.assert_allclose(run(model, x)[0], net(ms.Tensor(x)).asnumpy(), rtol=1e-5,
                           atol=1e-6)
"""


def test_delegate_claims_export_ops_extra_primitives_in_a_fresh_process(tmp_path):
    script = tmp_path / "run_delegate.py"          # graph mode reads construct's source
    script.write_text(SCRIPT.format(tests=TESTS))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=240, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    want = "[('OnnxRuntimeKernel', ['Square', 'MatMulFusion', 'Square', 'MatMulFusion'])]"
    assert proc.stdout.strip().splitlines()[-1] == want


def test_exportable_primitives_covers_extra_not_custom():
    from mindlite.onnx import exportable_primitives
    names = exportable_primitives()
    assert {"Square", "Einsum", "HSwish", "MatMul", "Conv2D"} <= names
    assert "Custom" not in names
