"""nn.LSTM / GRU / RNN and the one-step cells (nn/layer/rnn.py over the fused RNNLayer
primitive): outputs, final states and every gradient equal PyTorch's (float64, same weights)
for multi-layer, bidirectional, batch_first and per-sample seq_length (PyTorch's packed
sequences); MindSpore 2.10's own outputs for a bidirectional 2-layer net with seq_length
(tests/data/rnn_mindspore.json); parameter names; errors."""
import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, nn

torch = pytest.importorskip("torch")


def _pair(mode, i, h, **kw):
    nonlin = {"nonlinearity": kw.pop("nonlinearity")} if "nonlinearity" in kw else {}
    ours = getattr(nn, mode)(i, h, dtype=ms.float64, **kw, **nonlin)
    theirs = getattr(torch.nn, mode)(i, h, **kw, **nonlin).double()
    for name, p in theirs.named_parameters():
        getattr(ours, name).set_data(Tensor(p.detach().numpy().copy()))
    return ours, theirs


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["LSTM", "GRU", "RNN", "RNN_relu"]), st.integers(1, 2), st.booleans(),
       st.booleans(), st.integers(1, 5), st.integers(1, 3), st.booleans(),
       st.integers(0, 2**31 - 1))
def test_forward_and_gradients_equal_torch(mode, layers, bi, batch_first, t, n, packed, seed):
    kw = {"num_layers": layers, "bidirectional": bi, "batch_first": batch_first}
    if mode == "RNN_relu":
        mode, kw["nonlinearity"] = "RNN", "relu"
    ours, theirs = _pair(mode, 3, 4, **kw)
    r = np.random.default_rng(seed)
    x = r.standard_normal((n, t, 3) if batch_first else (t, n, 3))
    lens = r.integers(1, t + 1, n) if packed else np.full(n, t)
    h0 = r.standard_normal((layers * (2 if bi else 1), n, 4))
    hx = (Tensor(h0), Tensor(h0 * 0.5)) if mode == "LSTM" else Tensor(h0)
    thx = (torch.tensor(h0), torch.tensor(h0 * 0.5)) if mode == "LSTM" else torch.tensor(h0)

    def loss(xt, hxt):
        y, state = ours(xt, hxt, Tensor(lens) if packed else None)
        h = state[0] if mode == "LSTM" else state
        return (y * y).sum() + (h * 3.0).sum()
    params = ours.trainable_params()
    value, (gx, gp) = ms.value_and_grad(loss, 0, params)(Tensor(x), hx)
    xt = torch.tensor(x, requires_grad=True)
    inp = xt
    if packed:
        inp = torch.nn.utils.rnn.pack_padded_sequence(xt, lens, batch_first=batch_first,
                                                      enforce_sorted=False)
    y, state = theirs(inp, thx)
    if packed:
        y, _ = torch.nn.utils.rnn.pad_packed_sequence(y, batch_first=batch_first,
                                                      total_length=t)
    h = state[0] if mode == "LSTM" else state
    want = (y * y).sum() + (h * 3.0).sum()
    want.backward()
    np.testing.assert_allclose(float(value.asnumpy()), want.item(), rtol=1e-10)
    np.testing.assert_allclose(gx.asnumpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-10)
    named = dict(theirs.named_parameters())
    for g, p in zip(gp, params):
        np.testing.assert_allclose(g.asnumpy(), named[p.name].grad.numpy(), rtol=1e-8,
                                   atol=1e-10, err_msg=p.name)


def test_outputs_equal_mindspores():
    data = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                       "rnn_mindspore.json")))
    for mode, v in data.items():
        net = getattr(nn, mode)(4, 6, num_layers=2, bidirectional=True)
        for p in net.get_parameters():
            p.set_data(Tensor(np.array(v["w"][p.name], np.float32)))
        y, state = net(Tensor(np.array(v["x"], np.float32)), seq_length=Tensor(np.array([5, 2, 4])))
        h = state[0] if mode == "LSTM" else state
        np.testing.assert_allclose(y.asnumpy(), v["y"], rtol=1e-4, atol=2e-5, err_msg=mode)
        np.testing.assert_allclose(h.asnumpy(), v["h"], rtol=1e-4, atol=2e-5, err_msg=mode)


@pytest.mark.parametrize("mode", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_equal_torch(mode):
    ours = getattr(nn, mode)(3, 5, dtype=ms.float64)
    theirs = getattr(torch.nn, mode)(3, 5).double()
    for name, p in theirs.named_parameters():
        getattr(ours, name).set_data(Tensor(p.detach().numpy().copy()))
    assert sorted(p.name for p in ours.get_parameters()) == \
        sorted(n for n, _ in theirs.named_parameters())
    r = np.random.default_rng(1)
    x, h = r.standard_normal((2, 3)), r.standard_normal((2, 5))
    hx = (Tensor(h), Tensor(h * 2)) if mode == "LSTMCell" else Tensor(h)
    thx = (torch.tensor(h), torch.tensor(h * 2)) if mode == "LSTMCell" else torch.tensor(h)
    got, want = ours(Tensor(x), hx), theirs(torch.tensor(x), thx)
    for a, b in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(a.asnumpy(), b.detach().numpy(), rtol=1e-12)
    one = ours(Tensor(x[0]), tuple(s[0] for s in hx) if isinstance(hx, tuple) else hx[0])
    first = one[0] if isinstance(one, tuple) else one
    assert first.shape == (5,)


def test_parameter_names_as_mindspore_and_errors():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    assert {p.name for p in lstm.get_parameters()} == {
        f"{kind}_l{k}{sfx}" for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        for k in (0, 1) for sfx in ("", "_reverse")}
    assert lstm.weight_ih_l1.shape == (16, 8)
    assert len(nn.GRU(3, 4, has_bias=False).trainable_params()) == 2
    with pytest.raises(ValueError, match="'x' must be a 3-D Tensor with 3 features"):
        lstm(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="each initial state must have shape \\(4, 2, 4\\)"):
        lstm(Tensor(np.ones((5, 2, 3), np.float32)),
             (Tensor(np.ones((1, 2, 4), np.float32)),) * 2)
    with pytest.raises(ValueError, match="'seq_length' must hold 2 lengths in \\[0, 5\\]"):
        lstm(Tensor(np.ones((5, 2, 3), np.float32)), seq_length=Tensor(np.array([6, 1])))
    with pytest.raises(ValueError, match="'nonlinearity' must be 'tanh' or 'relu'"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="'dropout' must be in \\[0, 1\\)"):
        nn.GRU(3, 4, dropout=1.0)
