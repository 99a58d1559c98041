"""Constants in model files keep their values: the MINDIR writer and the `.ms` converter
write a tensor constant once per object, and a scalar becomes a fresh 0-d tensor per use;
keyed by id() alone, a freed temporary's id passed to the next one, which was then written
as the earlier constant (a fuzz run's `while c < 2: ... c = c + 1` read `c - 0.25`, a
constant of a comparison before it, and never ended). ONNX subgraphs' value infos likewise
(keyed by their node lists)."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn


class Chain(nn.Cell):
    def construct(self, x):
        y = x
        for k in range(40):                 # 80 scalar constants, each a 0-d tensor in a file
            y = y * 0.5 + (k + 0.25)
        return y


X = Tensor(np.array([1.0, 2.0], np.float32))


def test_mindir_scalar_constants_keep_their_values(tmp_path):
    net = Chain()
    ms.export(net, X, file_name=str(tmp_path / "m"), file_format="MINDIR")
    got = nn.GraphCell(ms.load(str(tmp_path / "m.mindir")))(X).asnumpy()
    np.testing.assert_allclose(got, net(X).asnumpy(), rtol=1e-6)


def test_lite_scalar_constants_keep_their_values():
    from mindlite.lite.api import Model
    from mindlite.lite.converter import convert
    net = Chain()
    model = Model()
    model.build_from_buffer(convert(net, X))
    ins = model.get_inputs()
    ins[0].set_data_from_numpy(X.asnumpy())
    got = model.predict(ins)[0].get_data_to_numpy()
    np.testing.assert_allclose(got, net(X).asnumpy(), rtol=1e-6)


def test_onnx_scalar_constants_keep_their_values(tmp_path):
    ort = pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")
    net = Chain()
    ms.export(net, X, file_name=str(tmp_path / "m"), file_format="ONNX")
    sess = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: X.asnumpy()})[0]
    np.testing.assert_allclose(got, net(X).asnumpy(), rtol=1e-6)
