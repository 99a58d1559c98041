"""Kernels of RNNLayer / RNNLayerGrad (ops/operations/rnn_ops.py): a whole single-direction
recurrent layer forward, and its back-propagation through time, each one kernel launch.

The input projection of every step is one GEMM (x W_ih^T + b_ih for all T); each step then does
one GEMM for the recurrence (h W_hh^T) and the gate arithmetic in place on (N, G H) buffers. The
backward walks the steps in reverse with the saved `reserve` (see RESERVE_WIDTH) and ends with
one GEMM each for dx (left out, with its output, when need_dx is False) and dW_ih. Masked
steps (past a sequence's end) carry the state unchanged and output 0, in both directions of the
computation.
"""
import numpy as np

from ..registry import register_kernel


def _sigmoid(a, out=None):
    """1 / (1 + e^-a) in place of `out` (a new array if None): e^-a overflowing to inf gives
    the right 0, and nothing gives nan, so no branches (the caller silences the overflow).
    NOTE: not np.negative: numpy 2.4.6's float32 negative misreads a strided (N, 1) input
    written to a strided output (rec[:, 3H:] into the reserve for H = 1: it stepped by the
    inner stride), so the LSTM's o gate came out wrong; multiplying by -1 is exact."""
    out = np.multiply(a, -1, out=out)
    np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


def _split(reserve, h, k):
    return [reserve[..., j * h:(j + 1) * h] for j in range(k)]


@register_kernel("RNNLayer", provider="numpy", alloc="kernel")
def rnn_layer_numpy(x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask, mode):
    t_len, n, _ = x.shape
    hid = h0.shape[1]
    dt = x.dtype
    proj = (x.reshape(t_len * n, x.shape[2]) @ w_ih.T).reshape(t_len, n, w_ih.shape[0]) + b_ih
    y = np.empty((t_len, n, hid), dt)                   # every entry is written below
    width = {"LSTM": 7, "GRU": 5}.get(mode, 2)
    reserve = np.empty((t_len, n, width * hid), dt)
    h, c = h0.astype(dt, copy=True), c0.astype(dt, copy=True)
    all_valid = bool((mask > 0).all())
    with np.errstate(over="ignore", under="ignore"):
        for t in range(t_len):
            m = mask[t][:, None]
            saved = _split(reserve[t], hid, width)
            saved[0][...] = h
            rec = h @ w_hh.T + b_hh
            if mode == "LSTM":
                # the gates are computed straight into the reserve's i, f, g, o columns
                rec += proj[t]
                gates = reserve[t][:, 2 * hid:6 * hid]
                _sigmoid(rec[:, :2 * hid], out=gates[:, :2 * hid])
                np.tanh(rec[:, 2 * hid:3 * hid], out=gates[:, 2 * hid:3 * hid])
                _sigmoid(rec[:, 3 * hid:], out=gates[:, 3 * hid:])
                i, f, g, o = saved[2], saved[3], saved[4], saved[5]
                saved[1][...] = c
                c_new = np.multiply(f, c, out=saved[6])
                c_new += i * g
                h_new = o * np.tanh(c_new)
                c = c_new.copy() if all_valid else np.where(m > 0, c_new, c)
            elif mode == "GRU":
                r = _sigmoid(proj[t][:, :hid] + rec[:, :hid])
                z = _sigmoid(proj[t][:, hid:2 * hid] + rec[:, hid:2 * hid])
                hn = rec[:, 2 * hid:]
                nn_ = np.tanh(proj[t][:, 2 * hid:] + r * hn)
                h_new = (1 - z) * nn_ + z * h
                saved[1][...], saved[2][...], saved[3][...], saved[4][...] = r, z, nn_, hn
            else:
                pre = proj[t] + rec
                h_new = np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)
                saved[1][...] = h_new
            h = h_new if all_valid else np.where(m > 0, h_new, h)
            np.multiply(h_new, m, out=y[t])
    return y, h, c, reserve


def _masked(m, new, old):
    return np.where(m > 0, new, old)


@register_kernel("RNNLayerGrad", provider="numpy", alloc="kernel")
def rnn_layer_grad_numpy(x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask, reserve, dy, dh_n, dc_n,
                         mode, need_dx=True):
    t_len, n, _ = x.shape
    hid = h0.shape[1]
    dt = x.dtype
    width = {"LSTM": 7, "GRU": 5}.get(mode, 2)
    gh = w_hh.shape[0]
    d_in = np.zeros((t_len, n, gh), dt)        # gradient of the input projection per step
    dw_hh = np.zeros_like(w_hh)
    db_hh = np.zeros_like(b_hh)
    dh = dh_n.astype(dt, copy=True)
    dc = dc_n.astype(dt, copy=True)
    with np.errstate(over="ignore", under="ignore"):
        for t in range(t_len - 1, -1, -1):
            m = mask[t][:, None]
            saved = _split(reserve[t], hid, width)
            h_prev = saved[0]
            # the step's new state got dh (where valid) plus its output's gradient
            dh_new = _masked(m, dh + dy[t], 0.0)
            if mode == "LSTM":
                c_prev, i, f, g, o, c_new = saved[1:]
                tc = np.tanh(c_new)
                dc_new = _masked(m, dc, 0.0) + dh_new * o * (1 - tc * tc)
                dgates = np.concatenate([dc_new * g * i * (1 - i), dc_new * c_prev * f * (1 - f),
                                         dc_new * i * (1 - g * g), dh_new * tc * o * (1 - o)], 1)
                d_rec = dgates
                dc = _masked(m, dc_new * f, dc)
                d_in[t] = dgates
            elif mode == "GRU":
                r, z, nn_, hn = saved[1:]
                dn = dh_new * (1 - z) * (1 - nn_ * nn_)
                dz = dh_new * (h_prev - nn_) * z * (1 - z)
                dr = dn * hn * r * (1 - r)
                d_rec = np.concatenate([dr, dz, dn * r], 1)
                d_in[t] = np.concatenate([dr, dz, dn], 1)
            else:
                h_new = saved[1]
                dpre = dh_new * ((1 - h_new * h_new) if mode == "RNN_TANH" else (h_new > 0))
                d_rec = dpre
                d_in[t] = dpre
            if mode != "LSTM":                  # LSTM's d_rec is d_in[t]: one GEMM below
                dw_hh += d_rec.T @ h_prev
                db_hh += d_rec.sum(0)
            direct = dh_new * saved[2] if mode == "GRU" else 0.0     # h' = ... + z h
            dh = d_rec @ w_hh + direct + _masked(m, 0.0, dh)      # carried past the end
    flat = d_in.reshape(t_len * n, gh)
    if mode == "LSTM":
        dw_hh = (flat.T @ reserve[:, :, :hid].reshape(t_len * n, hid)).astype(dt)
        db_hh = flat.sum(0).astype(dt)
    dw_ih = flat.T @ x.reshape(t_len * n, x.shape[2])
    db_ih = flat.sum(0)
    grads = (dh, dc, dw_ih.astype(dt), dw_hh, db_ih.astype(dt), db_hh)
    return ((flat @ w_ih).reshape(x.shape),) + grads if need_dx else grads
