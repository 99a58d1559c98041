"""numpy kernels (pocketfft) for ops/operations/fft_ops.py: one 1-D transform along one
axis per call, the input zero-padded or truncated to n; float16 / float32 work in complex64,
float64 in complex128, as the output buffer's dtype says."""
import numpy as np

from ..registry import register_kernel


def _c2c(x, out, n, axis, norm, forward):
    fn = np.fft.fft if forward else np.fft.ifft
    out[...] = fn(x, n=n, axis=axis, norm=norm)


def _r2c(x, out, n, axis, norm, forward):
    if x.dtype == np.float16:
        x = x.astype(np.float32)
    out[...] = np.fft.rfft(x, n=n, axis=axis, norm=norm)


def _c2r(x, out, n, axis, norm, forward):
    out[...] = np.fft.irfft(x, n=n, axis=axis, norm=norm)


register_kernel("FFTC2C", provider="numpy")(_c2c)
register_kernel("FFTR2C", provider="numpy")(_r2c)
register_kernel("FFTC2R", provider="numpy")(_c2r)
