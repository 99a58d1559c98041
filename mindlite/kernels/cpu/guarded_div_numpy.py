"""numpy kernels of guarded_div_ops: Xdivy, Xlogy, DivNoNan, MulNoNan, TruncateMod, Inv with
MindSpore 2.10's CPU values at the edges (see guarded_div_ops.py)."""
import numpy as np

from ..registry import register_kernel


@register_kernel("Xdivy", provider="numpy")
def xdivy_numpy(x, y, out):
    with np.errstate(all="ignore"):
        np.true_divide(x, y, out=out)
    np.copyto(out, 0, where=np.broadcast_to(x == 0, out.shape))


@register_kernel("Xlogy", provider="numpy")
def xlogy_numpy(x, y, out):
    with np.errstate(all="ignore"):
        np.multiply(x, np.log(y), out=out)


@register_kernel("DivNoNan", provider="numpy")
def div_no_nan_numpy(x, y, out):
    with np.errstate(all="ignore"):
        np.true_divide(x, y, out=out)
    np.copyto(out, 0, where=np.broadcast_to(y == 0, out.shape))


@register_kernel("MulNoNan", provider="numpy")
def mul_no_nan_numpy(x, y, out):
    with np.errstate(all="ignore"):
        np.multiply(x, y, out=out)
    np.copyto(out, 0, where=np.broadcast_to(y == 0, out.shape))


@register_kernel("TruncateMod", provider="numpy")
def truncate_mod_numpy(x, y, out):
    with np.errstate(all="ignore"):
        np.fmod(x, y, out=out)                   # ints: x mod 0 = 0


@register_kernel("Inv", provider="numpy")
def inv_numpy(x, out):
    with np.errstate(all="ignore"):
        if out.dtype.kind not in "iu":
            np.true_divide(1, x, out=out)         # complex 1 / 0 = inf + nan j, as MindSpore
            return
        # C's int(1.0 / x): 1 and -1 stay, other nonzero x give 0; 1 / 0 converts inf the
        # way x86 does (the 32-bit or 64-bit "integer indefinite", then narrowed)
        x64 = x.astype(np.int64)
        q = np.where(np.abs(x64) == 1, x64, 0)
        indefinite = np.iinfo(np.int64 if out.dtype.itemsize == 8 else np.int32).min
        q = np.where(x64 == 0, indefinite, q)
        np.copyto(out, q.astype(out.dtype), casting="unsafe")
