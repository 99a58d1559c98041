"""numba loops behind kernels/cpu/reduce_numba.py (imported on the first launch, never at import).

Every reduction arrives canonicalised by the caller: `x` is the flat C-order data of a
(O, R, I) array (outer, reduced, inner) and `out` the flat (O * I) output, so each
function compiles once per dtype, whatever the rank or the axes. R >= 1 here (empty
reductions are answered by the caller without a launch).

Two loop shapes:
  I > 1   reduce over the middle axis: a row of I accumulators updated by every reduced
          row; the inner loop is elementwise over i, so LLVM vectorises it.
  I == 1  each output is a contiguous run of R values: folded LANES-wide into LANES
          accumulators (the same elementwise loop with I = LANES), then a scalar tail and
          a fold of the lanes. This vectorises sum/max/... without reassociation flags.
"""
import numba as nb
import numpy as np

LANES = 32

_jit = nb.njit(cache=True, nogil=True, error_model="numpy")

# NOTE: only scalar indexing and explicit loops below: numpy slice assignment and array
# methods (acc[:] = ..., np.full, .sum()) each add 0.2-2 s to a cold compile.


@_jit
def _fill(acc, n, value):
    for i in range(n):
        acc[i] = value


@_jit
def _store(out, start, acc, n):
    for i in range(n):
        out[start + i] = acc[i]


@_jit
def _sum_cols(x, base, nrows, width, acc):
    for r in range(nrows):
        off = base + r * width
        for i in range(width):
            acc[i] += x[off + i]


@_jit
def _sum(x, out, O, R, I, acc, mean):
    zero = acc[0] - acc[0]
    if I == 1:
        nblk = R // LANES
        for o in range(O):
            base = o * R
            _fill(acc, LANES, zero)
            _sum_cols(x, base, nblk, LANES, acc)
            s = zero
            for j in range(LANES):
                s += acc[j]
            for r in range(nblk * LANES, R):
                s += x[base + r]
            if mean:
                out[o] = s / R
            else:
                out[o] = s
    else:
        for o in range(O):
            _fill(acc, I, zero)
            _sum_cols(x, o * R * I, R, I, acc)
            if mean:
                for i in range(I):
                    out[o * I + i] = acc[i] / R
            else:
                _store(out, o * I, acc, I)


@_jit
def reduce_sum(x, out, O, R, I, mean):
    """sum (or mean when `mean`) over R with a float64 accumulator.

    NOTE: float32 sums and means accumulate in float64 (rounded once to float32): within
    float32 tolerance of numpy's pairwise float32 sum, and closer to the exact value.
    Integer means are float64 means truncated toward zero, as np.mean(x).astype(dtype).
    """
    acc = np.empty(max(I, LANES), np.float64)
    _sum(x, out, O, R, I, acc, mean)


@_jit
def reduce_sum_int(x, out, O, R, I):
    """integer sum over R in int64; the store into int32 wraps like numpy's sum."""
    acc = np.empty(max(I, LANES), np.int64)
    _sum(x, out, O, R, I, acc, False)


@_jit
def _prod_cols(x, base, nrows, width, acc):
    for r in range(nrows):
        off = base + r * width
        for i in range(width):
            acc[i] *= x[off + i]


@_jit
def reduce_prod(x, out, O, R, I):
    """product over R, in the input dtype (integers wrap like numpy's)."""
    acc = np.empty(max(I, LANES), x.dtype)
    for o in range(O):
        if I == 1:
            base = o * R
            nblk = R // LANES
            _fill(acc, LANES, 1)
            _prod_cols(x, base, nblk, LANES, acc)
            p = acc[0]
            for j in range(1, LANES):
                p *= acc[j]
            for r in range(nblk * LANES, R):
                p *= x[base + r]
            out[o] = p
        else:
            _fill(acc, I, 1)
            _prod_cols(x, o * R * I, R, I, acc)
            _store(out, o * I, acc, I)


@_jit
def _max_cols(x, base, nrows, width, acc):
    # NOTE: `v != v` makes a NaN stick (np.max propagates NaN); for integers it folds away.
    for r in range(nrows):
        off = base + r * width
        for i in range(width):
            v = x[off + i]
            a = acc[i]
            acc[i] = v if (v > a or v != v) else a


@_jit
def _min_cols(x, base, nrows, width, acc):
    for r in range(nrows):
        off = base + r * width
        for i in range(width):
            v = x[off + i]
            a = acc[i]
            acc[i] = v if (v < a or v != v) else a


@_jit
def reduce_max(x, out, O, R, I):
    """max over R; NaN propagates like np.max."""
    width = LANES if I == 1 else I
    acc = np.empty(width + 1, x.dtype)
    for o in range(O):
        base = o * R * I
        if I == 1:
            nblk = R // LANES
            _fill(acc, LANES + 1, x[base])
            _max_cols(x, base, nblk, LANES, acc)
            _max_cols(x, base + nblk * LANES, R - nblk * LANES, 1, acc[LANES:])
            _max_cols(acc, 0, LANES, 1, acc[LANES:])
            out[o] = acc[LANES]
        else:
            _store(acc, 0, x[base:], I)
            _max_cols(x, base, R, I, acc)
            _store(out, o * I, acc, I)


@_jit
def reduce_min(x, out, O, R, I):
    """min over R; NaN propagates like np.min."""
    width = LANES if I == 1 else I
    acc = np.empty(width + 1, x.dtype)
    for o in range(O):
        base = o * R * I
        if I == 1:
            nblk = R // LANES
            _fill(acc, LANES + 1, x[base])
            _min_cols(x, base, nblk, LANES, acc)
            _min_cols(x, base + nblk * LANES, R - nblk * LANES, 1, acc[LANES:])
            _min_cols(acc, 0, LANES, 1, acc[LANES:])
            out[o] = acc[LANES]
        else:
            _store(acc, 0, x[base:], I)
            _min_cols(x, base, R, I, acc)
            _store(out, o * I, acc, I)


@_jit
def _logical(x, out, O, R, I, is_all):
    acc = np.empty(max(I, LANES), np.bool_)
    for o in range(O):
        base = o * R * I
        if I == 1:
            nblk = R // LANES
            _fill(acc, LANES, is_all)
            _logic_cols(x, base, nblk, LANES, acc, is_all)
            b = is_all
            for j in range(LANES):
                b = (b and acc[j]) if is_all else (b or acc[j])
            for r in range(nblk * LANES, R):
                b = (b and x[base + r]) if is_all else (b or x[base + r])
            out[o] = b
        else:
            _fill(acc, I, is_all)
            _logic_cols(x, base, R, I, acc, is_all)
            _store(out, o * I, acc, I)


@_jit
def _logic_cols(x, base, nrows, width, acc, is_all):
    for r in range(nrows):
        off = base + r * width
        if is_all:
            for i in range(width):
                acc[i] &= x[off + i]
        else:
            for i in range(width):
                acc[i] |= x[off + i]


@_jit
def reduce_all(x, out, O, R, I):
    _logical(x, out, O, R, I, True)


@_jit
def reduce_any(x, out, O, R, I):
    _logical(x, out, O, R, I, False)


@_jit
def _arg_extreme(x, idx, O, R, I, is_max):
    # NOTE: strict comparisons keep the first extreme; the first NaN wins (as np.argmax).
    if I == 1:
        for o in range(O):
            base = o * R
            best = x[base]
            k = 0
            if best == best:
                for r in range(1, R):
                    v = x[base + r]
                    if v != v:
                        k = r
                        break
                    if (v > best) if is_max else (v < best):
                        best = v
                        k = r
            idx[o] = k
        return
    best = np.empty(I, x.dtype)
    for o in range(O):
        base = o * R * I
        _store(best, 0, x[base:], I)
        _fill(idx[o * I:], I, 0)
        for r in range(1, R):
            off = base + r * I
            for i in range(I):
                v = x[off + i]
                b = best[i]
                better = (v > b) if is_max else (v < b)
                if better or (v != v and b == b):
                    best[i] = v
                    idx[o * I + i] = r


@_jit
def argmax(x, idx, O, R, I):
    _arg_extreme(x, idx, O, R, I, True)


@_jit
def argmin(x, idx, O, R, I):
    _arg_extreme(x, idx, O, R, I, False)


@_jit
def argmax_with_value(x, idx, values, O, R, I):
    _arg_extreme(x, idx, O, R, I, True)
    for o in range(O):
        for i in range(I):
            values[o * I + i] = x[(o * R + idx[o * I + i]) * I + i]
