"""The MindSpore 2.10 behaviours issue 30 names (Tensor overloads, ops fixes, mint), run in real
MindSpore (the side venv /opt/msvenv) and in mindlite by tools/api_agreement.py's runners,
result by result. Skipped, with the reason, where that venv is absent (CI). The full
generated comparison of every name is tools/api_agreement.py, outside the test run."""
import os
import pickle
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(os.path.dirname(HERE), "tools")
MS_PYTHON = "/opt/msvenv/bin/python"

pytestmark = pytest.mark.skipif(not os.path.exists(MS_PYTHON),
                                reason=f"MindSpore 2.10's side venv ({MS_PYTHON}) is absent")

CALLS = {
    "Tensor.transpose": ["x.transpose(0, 1)", "x.transpose()", "x.transpose((1, 0))",
                         "x3.transpose(0, 2)", "x3.transpose(2, 0, 1)"],
    "Tensor.max": ["x.max()", "x.max(1)", "x.max(1, True)", "x.max(axis=1)",
                   "x.max(dim=0, keepdim=True)"],
    "Tensor.min": ["x.min(0)", "x.min(axis=0)"],
    "Tensor.flatten": ["x3.flatten()", "x3.flatten(0, 1)", "x3.flatten('F')"],
    "Tensor.gather": ["x.gather(1, g)", "x.gather(ri, 1)"],
    "Tensor.scatter_add": ["x.scatter_add(rows, rupd)"],
    "Tensor.squeeze": ["x.squeeze(0)", "x[:1].squeeze(0)"],
    "Tensor.all": ["i.all()", "x.all(1)"], "Tensor.any": ["x.any(0)"],
    "Tensor.logical_and": ["x.logical_and(i)"], "Tensor.set_dtype": ["x.set_dtype(ms.int32)"],
    "Tensor.to": ["x.to(ms.int32)", "x.to(i)", "x.to()"],
    "Tensor.float": ["i.float()"], "Tensor.long": ["x.long()"], "Tensor.eq": ["x.eq(y)"],
    "Tensor.amax": ["x.amax(1)"], "Tensor.sum": ["x.sum(1, keepdim=True)", "x.sum(1, ms.float64)"],
    "ops.unique": ["ops.unique(dup)"], "ops.stack": ["ops.stack(x)"],
    "ops.addn": ["ops.addn([x, y])", "ops.addn(x)"], "ops.relu": ["ops.relu(x, 0)"],
    "ops.log1p": ["ops.log1p(x)", "ops.log1p(i)"], "ops.atan2": ["ops.atan2(x, y)"],
    "ops.erfinv": ["ops.erfinv(u)"], "ops.remainder": ["ops.remainder(x, 0.7)"],
    "ops.addcmul": ["ops.addcmul(x, y, z, 0.5)"], "ops.tensor_split": ["ops.tensor_split(x, 3, 1)"],
    "ops.diagonal": ["ops.diagonal(x, 1)"], "ops.movedim": ["ops.movedim(x3, 0, 2)"],
    "ops.scatter_nd": ["ops.scatter_nd(nd, upd, (3, 4))"],
    "mint.max": ["mint.max(x)", "mint.max(x, 1)", "mint.max(x, y)"],
    "mint.transpose": ["mint.transpose(x, 0, 1)"], "mint.gather": ["mint.gather(x, 1, g)"],
    "mint.sum": ["mint.sum(x, 1, True)"], "mint.cumsum": ["mint.cumsum(x, 1)"],
    "Tensor.prod": ["x.prod(1, keepdim=True)", "x.prod(1, keep_dims=True)"],
    "Tensor.sort": ["x.sort(0, True, True)", "x.sort(axis=1)"],
    "Tensor.count_nonzero": ["i.count_nonzero()", "i.count_nonzero(axis=1)"],
    "Tensor.trace": ["x.trace(1)"], "Tensor.resize": ["x.resize(2, 7)"],
    "ops.fft": ["ops.fft(x)", "ops.fft(i, 6, 0, 'ortho')"], "ops.irfft": ["ops.irfft(x)"],
    "ops.fftn": ["ops.fftn(x3, (2, 5))"], "ops.stft": ["ops.stft(ops.reshape(x, (12,)), 4)"],
    "ops.unsorted_segment_max": ["ops.unsorted_segment_max(x, seg, 3)"],
    "ops.unsorted_segment_prod": ["ops.unsorted_segment_prod(i, seg, 2)"],
    "ops.batch_dot": ["ops.batch_dot(bb1, bb2)"], "ops.pdist": ["ops.pdist(x, 3.0)"],
    "ops.matrix_set_diag": ["ops.matrix_set_diag(x, r, 1)"],
    "ops.reverse_sequence": ["ops.reverse_sequence(x, k1, 1)"],
    "ops.iou": ["ops.iou(boxes, boxes[:2])"], "ops.lrn": ["ops.lrn(img, 1, 2.0, 0.5, 0.75)"],
    "ops.jacrev": ["ops.jacrev(ops.square)(v)"], "ops.vjp": ["ops.vjp(ops.mul, x, y)[1](z)"],
    "ops.geqrf": ["ops.geqrf(m34)"], "ops.space_to_batch_nd": ["ops.space_to_batch_nd(img, 2, "
                                                               "[[0, 0], [0, 0]])"],
}


def test_named_behaviours_agree_with_mindspore(tmp_path):
    sys.path.insert(0, TOOLS)
    try:
        import api_agreement as A
    finally:
        sys.path.remove(TOOLS)
    calls_path = os.path.join(tmp_path, "calls.pkl")
    with open(calls_path, "wb") as f:
        pickle.dump({"calls": CALLS}, f)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["GLOG_v"] = "3"
    ms_results, _ = A.run_side(MS_PYTHON, "ms", calls_path, os.path.join(tmp_path, "ms.pkl"),
                               env)
    ml_results, present = A.run_side(sys.executable, "ml", calls_path,
                                     os.path.join(tmp_path, "ml.pkl"),
                                     dict(os.environ, PYTHONPATH=A.ROOT))
    assert all(present.values()), [q for q, p in present.items() if not p]
    bad = []
    for qual, calls in CALLS.items():
        for call in calls:
            if A._unsupported_on_cpu(ms_results[call]):      # MindSpore's CPU build cannot
                assert ml_results[call][0] != "E", call     # run it: mindlite must
                continue
            ok, why = A.same(ms_results[call], ml_results[call])
            if not ok:
                bad.append(f"{call}: {why}")
    assert not bad, bad
