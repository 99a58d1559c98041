"""MINDIR two-way compatibility with real MindSpore 2.x (a side venv at /opt/msvenv, run in a
subprocess; skipped where it is not installed): files mindlite writes load and run in
MindSpore (mindspore.load + nn.GraphCell) with mindlite's outputs, and files MindSpore writes
now (including its split `_graph.mindir` + `_variables/` layout, forced by lowering its
threshold) load and run in mindlite with MindSpore's outputs."""
import os
import subprocess
import textwrap

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn

pytest.importorskip("mindlite.train.mindir.mind_ir_pb2", reason="protobuf is required")
from mindlite.train.mindir import files  # noqa: E402
from test_mindir import (MLP, ArgIndex, Attention, Branch, Capture, LeNet, Loop,  # noqa: E402
                         Ops)

MS_PYTHON = "/opt/msvenv/bin/python"
pytestmark = pytest.mark.skipif(not os.path.exists(MS_PYTHON),
                                reason="MindSpore 2.x side venv (/opt/msvenv) not installed")

RUN_IN_MINDSPORE = """
import sys, numpy as np, mindspore as ms
from mindspore import Tensor, nn
for name in sys.argv[1:]:
    data = np.load(name + "_in.npz")
    cell = nn.GraphCell(ms.load(name))
    ins = [Tensor(data[k]) for k in sorted(data.files)]
    out = cell(*ins)
    outs = out if isinstance(out, (tuple, list)) else [out]
    np.savez(name + "_ms.npz", *[o.asnumpy() for o in outs])
"""

EXPORT_IN_MINDSPORE = """
import numpy as np, mindspore as ms
import mindspore.train.serialization as serialization
from mindspore import Tensor, nn, ops
ms.set_seed(2)
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, pad_mode="same")
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 4 * 4, 5)
        self.relu = nn.ReLU()
    def construct(self, x):
        return self.fc(self.flatten(self.pool(self.relu(self.conv(x)))))
net = Net()
x = np.random.default_rng(5).standard_normal((3, 2, 8, 8)).astype(np.float32)
ms.export(net, Tensor(x), file_name="ms_net", file_format="MINDIR")
serialization.TOTAL_SAVE = 0          # force MindSpore's split (large model) layout
ms.export(net, Tensor(x), file_name="ms_split", file_format="MINDIR")
np.savez("ms_net.npz", x=x, y=net(Tensor(x)).asnumpy())
"""


def _run_ms(tmp_path, script, *args):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(script))
    proc = subprocess.run([MS_PYTHON, str(path), *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_mindlite_files_run_in_mindspore(tmp_path, monkeypatch):
    ms.set_seed(2)                 # the same weights whichever tests ran before
    rng = np.random.default_rng(4)
    x2 = Tensor(rng.standard_normal((2, 8)).astype(np.float32))
    img = Tensor(rng.standard_normal((2, 1, 32, 32)).astype(np.float32))
    a = Tensor(np.array([1.0, -2.0], np.float32))
    b = Tensor(np.array([0.5, 4.0], np.float32))
    cases = {"mlp": (MLP((8, 16, 16, 4)), [x2]), "lenet": (LeNet(), [img]),
             "branch_pos": (Branch(), [a, b]), "branch_neg": (Branch(), [-a * 3, b]),
             "loop": (Loop(), [a, Tensor(4, ms.int32)]),
             "ops": (Ops(), [Tensor(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))])}
    cases["ops"][0].set_train(False)
    cases["capture"] = (Capture(), [-a, b])
    cases["attention"] = (Attention(), [Tensor(np.array([[1, 2, 3, 4], [5, 6, 7, 19]],
                                                        np.int32))])
    cases["arg_index"] = (ArgIndex(), [x2[:, :4], Tensor(np.arange(3, dtype=np.float32))])
    same = nn.SequentialCell(nn.Conv2d(2, 3, 3, stride=2, pad_mode="same"),
                             nn.MaxPool2d(3, 2, pad_mode="same"), nn.Flatten())
    cases["same_dynamic"] = (same, [Tensor(rng.standard_normal((3, 2, 9, 9))
                                           .astype(np.float32))])
    placeholders = {"same_dynamic": [Tensor(shape=[None, 2, 9, 9], dtype=ms.float32)]}
    names, want = [], {}
    for name, (net, inputs) in cases.items():
        ms.export(net, *placeholders.get(name, inputs), file_name=str(tmp_path / name),
                  file_format="MINDIR")
        out = net(*inputs)
        want[name] = [o.asnumpy() for o in (out if isinstance(out, tuple) else [out])]
        names.append(f"{name}.mindir")
    monkeypatch.setattr(files, "SPLIT_BYTES", 64)
    net = MLP((8, 16, 4))
    ms.export(net, x2, file_name=str(tmp_path / "split"), file_format="MINDIR")
    want["split_graph"] = [net(x2).asnumpy()]
    names.append("split_graph.mindir")
    inputs = {n: cases[n][1] if n in cases else [x2] for n in want}
    for name in want:
        np.savez(tmp_path / f"{name}.mindir_in.npz",
                 **{f"in{i}": t.asnumpy() for i, t in enumerate(inputs[name])})
    _run_ms(tmp_path, RUN_IN_MINDSPORE, *names)
    for name, expected in want.items():
        got = np.load(tmp_path / f"{name}.mindir_ms.npz")
        assert len(got.files) == len(expected), name
        for i, w in enumerate(expected):
            # a float16 output is a rounding of float32 values the two frameworks may compute
            # one float32 ulp apart (LayerNorm, GeLU): the cast can then land one float16 ulp
            # apart (seen: 0.89941 against 0.89893)
            rtol = 2.0 ** -10 if w.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(got[f"arr_{i}"].astype(np.float64), w, rtol=rtol,
                                       atol=1e-5, err_msg=name)
            assert got[f"arr_{i}"].dtype == w.dtype, name


def test_mindspore_files_run_in_mindlite(tmp_path):
    _run_ms(tmp_path, EXPORT_IN_MINDSPORE)
    data = np.load(tmp_path / "ms_net.npz")
    for path in ("ms_net.mindir", "ms_split_graph.mindir"):
        cell = nn.GraphCell(ms.load(str(tmp_path / path)))
        np.testing.assert_allclose(cell(Tensor(data["x"])).asnumpy(), data["y"], rtol=1e-5,
                                   atol=1e-6, err_msg=path)
    assert os.path.exists(tmp_path / "ms_split_variables" / "data_0")
