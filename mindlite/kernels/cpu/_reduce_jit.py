"""numba loops behind kernels/cpu/reduce_numba.py, imported on its first launch (never at
`import mindlite`); softmax's loops reuse the row max from here.

Every reduction arrives canonicalised by the caller: `x` is the flat C-order data of an
(O, R, I) array (outer, reduced, inner) and `out` the flat (O * I) output, so each
function compiles once per dtype whatever the rank or the axes. R >= 1 here (empty
reductions are answered by the caller without a launch). Two loop shapes:
  I > 1   reduce over the middle axis: a row of I accumulators updated by every reduced
          row; the inner loop is elementwise over i, so LLVM vectorises it.
  I == 1  each output is a contiguous run of R values: a running sum/product (vectorised
          under 'reassoc'); any/all a block at a time with an early exit; max/min and
          argmax/argmin with LANES running extremes (the I > 1 loop over LANES-wide
          blocks) folded as a tree, argmax then finding the first index of the extreme.
"""
import numpy as np

from .._numba_jit import njit

_jit = njit(nogil=True, error_model="numpy")
# NOTE: 'reassoc' (and no other fast-math flag) lets LLVM vectorise a running sum or product
# by reordering it; NaN and inf still propagate. Used only for sum/mean/prod.
_jit_reassoc = njit(nogil=True, error_model="numpy", fastmath={"reassoc"})

# NOTE: loops index row views (`row = x[start:]`; `row[i]`, i from range) so LLVM can prove
# the index is non-negative: `x[base + i]` keeps numba's negative-index wraparound select in
# the loop and stops vectorisation (5-15x slower). Explicit loops only: numpy slice
# assignment and array methods (acc[:] = ..., np.full, .sum()) each add 0.2-2 s to a cold
# compile.


@_jit_reassoc
def _sum(x, out, O, R, I, acc, mean):
    acc[0] = 0
    zero = acc[0]
    if I == 1:
        for o in range(O):
            row = x[o * R:]
            s = zero
            for r in range(R):
                s += row[r]
            if mean:
                out[o] = s / R
            else:
                out[o] = s
        return
    for o in range(O):
        blk = x[o * R * I:]
        for i in range(I):
            acc[i] = zero
        for r in range(R):
            row = blk[r * I:]
            for i in range(I):
                acc[i] += row[i]
        dst = out[o * I:]
        if mean:
            for i in range(I):
                dst[i] = acc[i] / R
        else:
            for i in range(I):
                dst[i] = acc[i]


@_jit
def reduce_sum(x, out, O, R, I, mean):
    """sum (or mean when `mean`) over R with a float64 accumulator.

    NOTE: float32 sums and means accumulate in float64 (rounded once to float32): within
    float32 tolerance of numpy's pairwise float32 sum, and closer to the exact value.
    Integer means are float64 means truncated toward zero, as np.mean(x).astype(dtype).
    """
    _sum(x, out, O, R, I, np.empty(max(I, 1), np.float64), mean)


@_jit
def reduce_sum_int(x, out, O, R, I):
    """integer sum over R in int64; the store into int32 wraps like numpy's sum."""
    _sum(x, out, O, R, I, np.empty(max(I, 1), np.int64), False)


@_jit_reassoc
def reduce_prod(x, out, O, R, I):
    """product over R, in the input dtype (integers wrap like numpy's)."""
    if I == 1:
        for o in range(O):
            row = x[o * R:]
            p = row[0]
            for r in range(1, R):
                p *= row[r]
            out[o] = p
        return
    for o in range(O):
        blk = x[o * R * I:]
        dst = out[o * I:]
        for i in range(I):
            dst[i] = blk[i]
        for r in range(1, R):
            row = blk[r * I:]
            for i in range(I):
                dst[i] *= row[i]


LANES = 256   # max/min of a contiguous run: 256 running extremes, then a tree fold


@_jit
def _better(v, a, is_max):
    """v replaces the running extreme a: v beyond a, or v NaN (a NaN sticks, as np.max)."""
    # NOTE: bitwise `|`, not `or`: a branch in the loop stops vectorisation; isnan folds
    # away for integers.
    return (v > a if is_max else v < a) | np.isnan(v)


@_jit
def _row_extreme(row, R, acc, is_max):
    """max/min of row[:R], NaN-propagating; acc is LANES scratch."""
    nblk = R // LANES
    m = row[0]
    if nblk:
        for i in range(LANES):
            acc[i] = row[i]
        for b in range(1, nblk):
            blk = row[b * LANES:]
            for i in range(LANES):
                v = blk[i]
                a = acc[i]
                acc[i] = v if _better(v, a, is_max) else a
        h = LANES // 2
        while h:
            for i in range(h):
                v = acc[i + h]
                a = acc[i]
                acc[i] = v if _better(v, a, is_max) else a
            h //= 2
        m = acc[0]
    for r in range(nblk * LANES, R):
        v = row[r]
        m = v if _better(v, m, is_max) else m
    return m


@_jit
def reduce_extreme(x, out, O, R, I, is_max):
    """max (is_max) or min over R; NaN propagates like np.max / np.min."""
    if I == 1:
        acc = np.empty(LANES, x.dtype)
        for o in range(O):
            out[o] = _row_extreme(x[o * R:], R, acc, is_max)
        return
    for o in range(O):
        blk = x[o * R * I:]
        dst = out[o * I:]
        for i in range(I):
            dst[i] = blk[i]
        for r in range(1, R):
            row = blk[r * I:]
            for i in range(I):
                v = row[i]
                a = dst[i]
                dst[i] = v if _better(v, a, is_max) else a


@_jit
def _find_first(row, R, m):
    """index of the first m in row[:R] (of the first NaN when m is NaN); m is present.
    Scans LANES-wide blocks with a vectorised test, then the hit block element-wise."""
    isnan = np.isnan(m)
    start = (R // LANES) * LANES
    for b in range(R // LANES):
        blk = row[b * LANES:]
        hit = False
        if isnan:
            for i in range(LANES):
                hit |= np.isnan(blk[i])
        else:
            for i in range(LANES):
                hit |= blk[i] == m
        if hit:
            start = b * LANES
            break
    k = start
    while k < R - 1 and not (np.isnan(row[k]) if isnan else row[k] == m):
        k += 1
    return k


@_jit
def reduce_logical(x, out, O, R, I, is_all):
    """all (is_all) or any over R: looks for an element != is_all, stopping at the first
    LANES-wide block that has one."""
    if I == 1:
        nblk = R // LANES
        for o in range(O):
            row = x[o * R:]
            found = False
            for b in range(nblk):
                blk = row[b * LANES:]
                for i in range(LANES):
                    found |= blk[i] != is_all
                if found:
                    break
            if not found:
                for r in range(nblk * LANES, R):
                    found |= row[r] != is_all
            out[o] = found != is_all
        return
    for o in range(O):
        blk = x[o * R * I:]
        dst = out[o * I:]
        for i in range(I):
            dst[i] = False
        for r in range(R):
            row = blk[r * I:]
            for i in range(I):
                dst[i] |= row[i] != is_all
        for i in range(I):
            dst[i] = dst[i] != is_all


@_jit
def arg_extreme(x, idx, values, O, R, I, is_max, with_values):
    """index of the first max (is_max) or min over R into idx (the first NaN wins, as
    np.argmax); with_values: the extremes into values too (callers without values pass x
    itself, unused, so that Argmax and ArgMaxWithValue share one compile)."""
    if I == 1:
        acc = np.empty(LANES, x.dtype)
        for o in range(O):
            row = x[o * R:]
            m = _row_extreme(row, R, acc, is_max)
            idx[o] = _find_first(row, R, m)
            if with_values:
                values[o] = m
        return
    top = np.empty(I, x.dtype)
    for o in range(O):
        blk = x[o * R * I:]
        dst = idx[o * I:]
        for i in range(I):
            top[i] = blk[i]
            dst[i] = 0
        for r in range(1, R):
            row = blk[r * I:]
            for i in range(I):
                v = row[i]
                b = top[i]
                # strict comparison keeps the first extreme; the first NaN sticks
                if (v > b if is_max else v < b) | (np.isnan(v) & (not np.isnan(b))):
                    top[i] = v
                    dst[i] = r
        if with_values:
            vals = values[o * I:]
            for i in range(I):
                vals[i] = top[i]
