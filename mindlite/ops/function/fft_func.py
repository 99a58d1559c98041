"""Functional discrete Fourier transforms of MindSpore 2.10: fft / ifft / rfft / irfft / hfft /
ihfft, their 2-D and n-D forms (fft2 .. ihfftn), fftshift / ifftshift, fftfreq / rfftfreq and
stft. Every transform is made of the 1-D primitives of ops/operations/fft_ops.py (FFTC2C,
FFTR2C, FFTC2R), one per transformed dim, so gradients come from their bprops.

dtypes as 2.10: int16/32/64, float16 and float32 inputs transform in complex64 (real results
float32), float64 in complex128; bool raises TypeError. n-D forms: `s` sets the lengths of the
transformed dims (zero-padding or truncating), `dim` defaults to all dims, or the last len(s)
when only s is given (fft2 / rfft2 / ... default to (-2, -1)); norm "backward" / "ortho" /
"forward" scales by 1, 1/sqrt(N), 1/N forward (the reverse inverse) with N the product of the
lengths. hfft(n) = irfft(conj(x)) without the inverse's scaling, ihfft = conj(rfft) / n.
"""
import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import fft_ops as P
from ._typed_prims import typed_prim as _prim

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
           "fftshift", "ifftshift", "fftfreq", "rfftfreq", "stft"]

_NORMS = ("backward", "ortho", "forward")
_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
_TO_F32 = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8,
           mstype.float16, mstype.bfloat16)


def _F():
    from .. import functional as F
    return F


def _input(op, x, complex_ok=True):
    """x as a tensor the primitives take: ints and float16 as float32."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', 'input' must be a Tensor, but got {type(x).__name__}")
    dt = x.dtype
    if dt == mstype.bool_:
        raise TypeError(f"For '{op}', the type of 'input' must be one of int16, int32, int64, "
                        f"float16, float32, float64, complex64, complex128, but got {dt}")
    if dt in _TO_F32:
        return _F().cast(x, mstype.float32)
    if dt.kind == "c" and not complex_ok:
        raise TypeError(f"For '{op}', the type of 'input' must be one of int16, int32, int64, "
                        f"float16, float32, float64, but got {dt}")
    return x


def _norm(op, norm):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"For '{op}', 'norm' must be one of {list(_NORMS)}, but got {norm!r}")
    return norm


def _int(op, name, v):
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(v).__name__}")
    return int(v)


def _n(op, n):
    if n is None:
        return 0
    n = _int(op, "n", n)
    if n < 1:
        raise ValueError(f"For '{op}', the argument 'n' must be greater than 0, but got {n}.")
    return n


def _dim(op, x, d):
    d = _int(op, "dim", d)
    nd = len(x.shape)
    if not -nd <= d < nd:
        raise ValueError(f"For '{op}', the dim must be in [{-nd},{nd}), but got {d}.")
    return d % nd


def _c2c(x, n, dim, norm, forward):
    return _prim(P.FFTC2C, n, dim, norm, forward)(x)


def _r2c(x, n, dim, norm):
    return _prim(P.FFTR2C, n, dim, norm, True)(x)


def _c2r(x, n, dim, norm):
    return _prim(P.FFTC2R, n, dim, norm, False)(x)


# ---- 1-D -------------------------------------------------------------------------------
def fft(input, n=None, dim=-1, norm=None):
    """The length-n DFT of input along dim."""
    x = _input("fft", input)
    return _c2c(x, _n("fft", n), _dim("fft", x, dim), _norm("fft", norm), True)


def ifft(input, n=None, dim=-1, norm=None):
    """The length-n inverse DFT of input along dim."""
    x = _input("ifft", input)
    return _c2c(x, _n("ifft", n), _dim("ifft", x, dim), _norm("ifft", norm), False)


def rfft(input, n=None, dim=-1, norm=None):
    """The n // 2 + 1 non-negative-frequency bins of the real input's length-n DFT."""
    x = _input("rfft", input, complex_ok=False)
    return _r2c(x, _n("rfft", n), _dim("rfft", x, dim), _norm("rfft", norm))


def irfft(input, n=None, dim=-1, norm=None):
    """The n real values (default 2 (len - 1)) whose one-sided spectrum is input."""
    x = _input("irfft", input)
    return _c2r(x, _n("irfft", n), _dim("irfft", x, dim), _norm("irfft", norm))


def hfft(input, n=None, dim=-1, norm=None):
    """The real length-n DFT of the Hermitian-symmetric signal whose first half is input."""
    x = _input("hfft", input)
    d = _dim("hfft", x, dim)
    return _c2r(_F().conj(x), _n("hfft", n), d, _SWAP[_norm("hfft", norm)])


def ihfft(input, n=None, dim=-1, norm=None):
    """The first n // 2 + 1 bins of the real input's inverse DFT (Hermitian-symmetric)."""
    x = _input("ihfft", input, complex_ok=False)
    d = _dim("ihfft", x, dim)
    return _F().conj(_r2c(x, _n("ihfft", n), d, _SWAP[_norm("ihfft", norm)]))


# ---- n-D -------------------------------------------------------------------------------
def _plan(op, x, s, dim, default_dim=None):
    """(dims, lengths) of an n-D transform; lengths 0 keep the input's."""
    if s is not None:
        if isinstance(s, (int, np.integer)):
            s = (s,)
        s = [_int(op, "s", v) for v in s]
        for v in s:
            if v < 1 and v != -1:
                raise ValueError(f"For '{op}', the value of 's' must be greater than 0, but "
                                 f"got {v}.")
    if dim is None:
        dim = default_dim
    if dim is None:
        dims = list(range(len(x.shape))) if s is None else \
            list(range(len(x.shape) - len(s), len(x.shape)))
        if s is not None and len(s) > len(x.shape):
            raise ValueError(f"For '{op}', the length of 's' must not exceed the input's rank "
                             f"{len(x.shape)}, but got {len(s)}.")
    else:
        if isinstance(dim, (int, np.integer)):
            dim = (dim,)
        dims = [_dim(op, x, d) for d in dim]
    if len(set(dims)) != len(dims):
        raise ValueError(f"For '{op}', the value of 'dim' must be unique, but got {dims}.")
    if s is None:
        s = [0] * len(dims)
    elif len(s) != len(dims):
        raise ValueError("When givec, dim and s arguuments must have the same length.")
    return dims, [0 if v == -1 else v for v in s]


def _c2c_n(x, dims, lens, norm, forward):
    for d, n in zip(dims, lens):
        x = _c2c(x, n, d, norm, forward)
    return x


def fftn(input, s=None, dim=None, norm=None):
    """The n-dimensional DFT over dim (default all dims, or the last len(s))."""
    x = _input("fftn", input)
    dims, lens = _plan("fftn", x, s, dim)
    return _c2c_n(x, dims, lens, _norm("fftn", norm), True)


def ifftn(input, s=None, dim=None, norm=None):
    """The n-dimensional inverse DFT over dim."""
    x = _input("ifftn", input)
    dims, lens = _plan("ifftn", x, s, dim)
    return _c2c_n(x, dims, lens, _norm("ifftn", norm), False)


def rfftn(input, s=None, dim=None, norm=None):
    """The n-dimensional DFT of a real input, one-sided along the last transformed dim."""
    x = _input("rfftn", input, complex_ok=False)
    dims, lens = _plan("rfftn", x, s, dim)
    norm = _norm("rfftn", norm)
    x = _r2c(x, lens[-1], dims[-1], norm)
    return _c2c_n(x, dims[:-1], lens[:-1], norm, True)


def irfftn(input, s=None, dim=None, norm=None):
    """The real n-dimensional inverse of rfftn (last dim's length 2 (len - 1) by default)."""
    x = _input("irfftn", input)
    dims, lens = _plan("irfftn", x, s, dim)
    norm = _norm("irfftn", norm)
    x = _c2c_n(x, dims[:-1], lens[:-1], norm, False)
    return _c2r(x, lens[-1], dims[-1], norm)


def hfftn(input, s=None, dim=None, norm=None):
    """The real n-dimensional DFT of a Hermitian-symmetric signal given by its first half."""
    x = _input("hfftn", input)
    dims, lens = _plan("hfftn", x, s, dim)
    norm = _SWAP[_norm("hfftn", norm)]
    x = _c2c_n(_F().conj(x), dims[:-1], lens[:-1], norm, False)
    return _c2r(x, lens[-1], dims[-1], norm)


def ihfftn(input, s=None, dim=None, norm=None):
    """The one-sided n-dimensional inverse DFT of a real input (conj of rfftn, rescaled)."""
    x = _input("ihfftn", input, complex_ok=False)
    dims, lens = _plan("ihfftn", x, s, dim)
    norm = _SWAP[_norm("ihfftn", norm)]
    x = _r2c(x, lens[-1], dims[-1], norm)
    return _F().conj(_c2c_n(x, dims[:-1], lens[:-1], norm, True))


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """fftn over two dims (default the last two)."""
    return fftn(input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """ifftn over two dims (default the last two)."""
    return ifftn(input, s, dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """rfftn over two dims (default the last two)."""
    return rfftn(input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """irfftn over two dims (default the last two)."""
    return irfftn(input, s, dim, norm)


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """hfftn over two dims (default the last two)."""
    return hfftn(input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """ihfftn over two dims (default the last two)."""
    return ihfftn(input, s, dim, norm)


# ---- helpers ---------------------------------------------------------------------------
def _shift(op, input, dim, sign):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{op}', 'input' must be a Tensor, but got {type(input).__name__}")
    if dim is None:
        dims = tuple(range(len(input.shape)))
    else:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        dims = tuple(_dim(op, input, d) for d in dims)
    if not dims:
        return input
    shifts = tuple(sign * (input.shape[d] // 2) for d in dims)
    return _F().roll(input, shifts, dims)


def fftshift(input, dim=None):
    """input rolled by half its length along dim (all dims by default): zero frequency in
    the middle."""
    return _shift("fftshift", input, dim, 1)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shift("ifftshift", input, dim, -1)


def _freq_dtype(op, dtype):
    if dtype is None:
        return mstype.float32
    return dtype


def fftfreq(n, d=1.0, dtype=None):
    """[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n), float32 by default."""
    n = _int("fftfreq", "n", n)
    if n < 1:
        raise ValueError(f"For 'fftfreq', 'n' must be greater than 0, but got {n}.")
    dt = _freq_dtype("fftfreq", dtype)
    return Tensor(np.fft.fftfreq(n, float(d)).astype(dt.np))


def rfftfreq(n, d=1.0, dtype=None):
    """[0, 1, ..., n // 2] / (d n), float32 by default."""
    n = _int("rfftfreq", "n", n)
    if n < 1:
        raise ValueError(f"For 'rfftfreq', 'n' must be greater than 0, but got {n}.")
    dt = _freq_dtype("rfftfreq", dtype)
    return Tensor(np.fft.rfftfreq(n, float(d)).astype(dt.np))


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode='REFLECT', normalized=False, onesided=None, return_complex=None):
    """Short-time Fourier transform as 2.10 (and torch.stft): frames of n_fft samples every
    hop_length (n_fft // 4), times the window (ones of win_length, zero-padded to n_fft on both
    sides), each transformed; (*, N, T) complex, or (*, N, T, 2) real when return_complex is
    False (its default for real x and window); N = n_fft // 2 + 1 when onesided."""
    F = _F()
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'stft', 'x' must be a Tensor, but got {type(x).__name__}")
    if len(x.shape) not in (1, 2):
        raise ValueError(f"For 'stft', 'x' must be a 1-D or 2-D tensor, but got "
                         f"{len(x.shape)}-D")
    n_fft = _int("stft", "n_fft", n_fft)
    hop = n_fft // 4 if hop_length is None else _int("stft", "hop_length", hop_length)
    win = n_fft if win_length is None else _int("stft", "win_length", win_length)
    if n_fft < 1 or hop < 1 or not 0 < win <= n_fft:
        raise ValueError(f"For 'stft', expected 0 < n_fft, 0 < hop_length and 0 < win_length "
                         f"<= n_fft, but got n_fft={n_fft}, hop_length={hop}, "
                         f"win_length={win}")
    xs = _input("stft", x)
    is_complex = xs.dtype.kind == "c" or (window is not None and window.dtype.kind == "c")
    if onesided is None:
        onesided = not is_complex
    if return_complex is None:
        return_complex = is_complex
    batched = len(xs.shape) == 2
    if not batched:
        xs = F.expand_dims(xs, 0)
    if center:
        mode = str(pad_mode).lower()
        xs = F.squeeze(F.pad(F.expand_dims(xs, 1), (n_fft // 2, n_fft // 2), mode), 1)
    length = xs.shape[-1]
    if length < n_fft:
        raise ValueError(f"For 'stft', the padded input length {length} must be at least "
                         f"n_fft {n_fft}")
    frames = 1 + (length - n_fft) // hop
    idx = np.arange(frames)[:, None] * hop + np.arange(n_fft)[None, :]
    seg = F.gather(xs, Tensor(idx.astype(np.int64)), 1)            # (B, T, n_fft)
    if window is None and win == n_fft:
        w = None
    else:
        if window is None:
            window = F.ones((win,), mstype.float32)
        if window.shape[0] != win:
            raise ValueError(f"For 'stft', 'window' must have win_length {win} elements, "
                             f"but got {window.shape[0]}")
        left = (n_fft - win) // 2
        w = window
        if win < n_fft:
            w = F.pad(window, (left, n_fft - win - left))
    if w is not None:
        seg = F.mul(seg, w if w.dtype == seg.dtype or seg.dtype.kind == "c"
                    else F.cast(w, seg.dtype))
    norm = "ortho" if normalized else "backward"
    if onesided and seg.dtype.kind != "c":
        spec = _r2c(seg, 0, 2, norm)
    else:
        spec = _c2c(seg, 0, 2, norm, True)
    spec = F.transpose(spec, (0, 2, 1))                              # (B, N, T)
    if not batched:
        spec = F.squeeze(spec, 0)
    if return_complex:
        return spec
    return F.stack((F.real(spec), F.imag(spec)), -1)
