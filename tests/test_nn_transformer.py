"""MultiheadAttention and the Transformer layers (nn/layer/transformer.py): outputs and
gradients equal PyTorch's (float64, same weights) with masks, batch_first, kdim/vdim, bias_kv,
zero attention and norm_first; an encoder and a decoder layer equal MindSpore 2.10's outputs
(tests/data/transformer_mindspore.json, written by `mindspore_case` run with mindspore)."""
import json
import os

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn

torch = pytest.importorskip("torch")


def copy_from(ours, theirs):
    """PyTorch's weights into our cell: linear1/2 -> dense1/2, norm weight/bias -> gamma/beta."""
    params = dict(ours.parameters_and_names())
    for name, p in theirs.named_parameters():
        n = name.replace("linear1", "dense1").replace("linear2", "dense2")
        parts = n.split(".")
        if len(parts) > 1 and parts[-2].startswith("norm"):
            n = n.replace(".weight", ".gamma").replace(".bias", ".beta")
        params[n].set_data(Tensor(p.detach().numpy().copy()))


def mindspore_case(nn, Tensor):  # noqa: N803  (the framework's nn and Tensor are passed in)
    """Seeded weights (set in sorted name order) and inputs through an encoder and a decoder."""
    r = np.random.default_rng(0)
    e, h, L, n = 8, 2, 5, 3
    enc = nn.TransformerEncoderLayer(e, h, 16, dropout=0.0, batch_first=True)
    dec = nn.TransformerDecoderLayer(e, h, 16, dropout=0.0, batch_first=True, norm_first=True)
    for cell in (enc, dec):
        for _, p in sorted(cell.parameters_and_names()):
            p.set_data(Tensor((r.standard_normal(p.shape) * 0.3).astype(np.float32)))
    x = Tensor(r.standard_normal((n, L, e)).astype(np.float32))
    mem = Tensor(r.standard_normal((n, L + 1, e)).astype(np.float32))
    am = Tensor(np.triu(np.ones((L, L), bool), 1))
    return {"enc": enc(x, am).asnumpy().tolist(), "dec": dec(x, mem, am).asnumpy().tolist()}


def test_encoder_and_decoder_layers_equal_mindspores():
    want = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                       "transformer_mindspore.json")))
    got = mindspore_case(nn, Tensor)
    for key in ("enc", "dec"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=2e-6, err_msg=key)


@pytest.mark.parametrize("kw, call", [
    ({}, {}),
    ({"kdim": 5, "vdim": 3}, {}),
    ({"add_bias_kv": True, "add_zero_attn": True}, {}),
    ({"batch_first": True}, {"average_attn_weights": False}),
    ({"has_bias": False}, {"float_mask": True}),
])
def test_multihead_attention_equals_torch(kw, call):
    e, h, L, s, n = 8, 2, 4, 5, 3
    ours = nn.MultiheadAttention(e, h, dtype=ms.float64, **kw)
    tkw = {("bias" if k == "has_bias" else k): v for k, v in kw.items()}
    theirs = torch.nn.MultiheadAttention(e, h, **tkw).double()
    copy_from(ours, theirs)
    r = np.random.default_rng(0)
    bf = kw.get("batch_first", False)
    q = r.standard_normal((n, L, e) if bf else (L, n, e))
    k = r.standard_normal((n, s, kw.get("kdim", e)) if bf else (s, n, kw.get("kdim", e)))
    v = r.standard_normal((n, s, kw.get("vdim", e)) if bf else (s, n, kw.get("vdim", e)))
    am = np.triu(np.ones((L, s), bool), 1)
    if call.pop("float_mask", False):
        am = np.where(am, -3.0, 0.5)
    kpm = np.zeros((n, s), bool)
    kpm[1, -2:] = True
    avg = call.get("average_attn_weights", True)

    def run(qq):
        return ours(qq, Tensor(k), Tensor(v), Tensor(kpm), True, Tensor(am), avg)
    out, w = run(Tensor(q))
    tq = torch.tensor(q, requires_grad=True)
    tout, tw = theirs(tq, torch.tensor(k), torch.tensor(v), key_padding_mask=torch.tensor(kpm),
                      attn_mask=torch.tensor(am), average_attn_weights=avg)
    np.testing.assert_allclose(out.asnumpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = ms.grad(lambda qq: (run(qq)[0] ** 2).sum())(Tensor(q))
    (tout ** 2).sum().backward()
    np.testing.assert_allclose(g.asnumpy(), tq.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("bf", [False, True])
def test_self_attention_packed_projection_equals_torch(bf):
    """query is key is value: one projection over the whole in_proj_weight, q's scale on the
    weight (head_dim 3: 1/sqrt(3) rounds); outputs and every gradient equal PyTorch's."""
    e, h, L, n = 12, 4, 5, 3
    ours = nn.MultiheadAttention(e, h, batch_first=bf, dtype=ms.float64)
    theirs = torch.nn.MultiheadAttention(e, h, batch_first=bf).double()
    copy_from(ours, theirs)
    r = np.random.default_rng(1)
    x = r.standard_normal((n, L, e) if bf else (L, n, e))
    kpm = np.zeros((n, L), bool)
    kpm[2, -2:] = True
    am = np.triu(np.ones((L, L), bool), 1)
    out, w = ours(Tensor(x), Tensor(x), Tensor(x), Tensor(kpm), True, Tensor(am))
    tx = torch.tensor(x, requires_grad=True)
    tout, tw = theirs(tx, tx, tx, key_padding_mask=torch.tensor(kpm), attn_mask=torch.tensor(am))
    np.testing.assert_allclose(out.asnumpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
    params = ours.trainable_params()
    gx, gw = ms.grad(lambda t: (ours(t, t, t, Tensor(kpm), True, Tensor(am))[0] ** 2).sum(),
                     0, params)(Tensor(x))
    (tout ** 2).sum().backward()
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    tgrads = {name: p.grad.numpy() for name, p in theirs.named_parameters()}
    for p, g in zip(params, gw):
        np.testing.assert_allclose(g.asnumpy(), tgrads[p.name], rtol=1e-9, atol=1e-12,
                                   err_msg=p.name)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_layers_and_stack_equal_torch(norm_first):
    e, h, L, s, n = 8, 2, 4, 5, 2
    r = np.random.default_rng(1)
    x, mem = r.standard_normal((L, n, e)), r.standard_normal((s, n, e))
    mask = np.triu(np.ones((L, L), bool), 1)
    enc = nn.TransformerEncoderLayer(e, h, 16, 0.0, "gelu", norm_first=norm_first,
                                     dtype=ms.float64)
    tenc = torch.nn.TransformerEncoderLayer(e, h, 16, 0.0, "gelu",
                                            norm_first=norm_first).double()
    copy_from(enc, tenc)
    # MindSpore's 'gelu' activation cell is the tanh approximation: compare with a tanh GELU
    tenc.activation = lambda t: torch.nn.functional.gelu(t, approximate="tanh")
    np.testing.assert_allclose(enc(Tensor(x), Tensor(mask)).asnumpy(),
                               tenc(torch.tensor(x), torch.tensor(mask)).detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    model = nn.Transformer(e, h, 2, 2, 16, 0.0, norm_first=norm_first, dtype=ms.float64)
    tmodel = torch.nn.Transformer(e, h, 2, 2, 16, 0.0, norm_first=norm_first).double()
    copy_from(model, tmodel)
    got = model(Tensor(mem), Tensor(x), tgt_mask=Tensor(mask))
    want = tmodel(torch.tensor(mem), torch.tensor(x), tgt_mask=torch.tensor(mask))
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-9, atol=1e-12)
    names = [p.name for p in model.trainable_params()]
    assert "encoder.layers.1.self_attn.in_proj_weight" in names
    assert "decoder.layers.0.multihead_attn.out_proj.weight" in names
    assert "encoder.norm.gamma" in names


def test_errors():
    with pytest.raises(ValueError, match="'embed_dim' must be divisible by 'num_heads'"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError, match="query's last dimension must be 8"):
        nn.MultiheadAttention(8, 2)(*(Tensor(np.ones((2, 1, 4), np.float32)),) * 3)
    with pytest.raises(TypeError, match="'activation' must be a str, a Cell or a function"):
        nn.TransformerEncoderLayer(8, 2, activation=3)
