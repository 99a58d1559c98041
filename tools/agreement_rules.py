"""What tools/api_agreement.py treats specially when it compares a call with MindSpore 2.10:
the names whose generated call is repeated on float64 / float16 / int64 / bool inputs
(DTYPE_SWEEP), names not called (SKIP), results compared by shape and dtype only
(NONDETERMINISTIC), and MindSpore's CPU defects mindlite does not reproduce (MS_DEFECTS).
agreement_templates.py re-exports them beside the hand-written calls."""


DTYPE_SWEEP = {f"{mod}.{n}" for mod in ("ops", "mint") for n in (
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "erf",
    "erfc", "erfinv", "exp", "exp2", "expm1", "floor", "frac", "log", "log10", "log1p", "log2",
    "neg", "reciprocal", "rsqrt", "sigmoid", "sign", "sin", "sinc", "sinh", "sqrt", "square",
    "tan", "tanh", "trunc", "lgamma", "digamma", "i0", "isnan", "isinf", "isfinite", "logical_not",
    "deg2rad", "rad2deg", "signbit", "isneginf", "isposinf", "sgn", "relu", "softsign",
    "nan_to_num", "positive", "bitwise_not", "invert")} | {
    f"Tensor.{n}" for n in ("abs", "acos", "ceil", "cos", "erf", "exp", "floor", "log", "neg",
                            "reciprocal", "sqrt", "square", "tan", "trunc", "sign", "float",
                            "int", "long", "bool", "half", "double", "isnan")}

# not called: they block, need a launched job or crash MindSpore's process outside one
SKIP = set()

# compared by shape and dtype only (addresses, uninitialized memory)
NONDETERMINISTIC = {"Tensor.data_ptr", "mint.empty", "mint.empty_like", "Tensor.new_empty"}

# MindSpore 2.10 CPU results that are defects mindlite does not reproduce (kept working as
# MindSpore documents them): (call prefixes, reason). Listed in the report; the in-place
# entries (RESULT_ONLY) still compare the returned value, the others are not compared.
MS_DEFECTS = [
    (("x.add_(", "x.sub_(", "x.mul_(", "x.div_(", "x.exp_(", "x.floor_divide_(",
      "x.remainder_(", "x.log_(", "x.fill_(", "x.zero_(", "y.copy_(", "x.clamp_(",
      "x.masked_fill_(", "x.index_fill_(", "x.index_add_(", "x.index_copy_(", "x.index_put_(",
      "x.scatter_(", "x.scatter_add_(", "x.put_(", "x.fill_diagonal_(", "x.masked_scatter_(",
      "m45.addmm_(", "x.sigmoid_(", "x.tanh_(", "x.sign_(", "x.floor_(", "x.erfinv_("),
     "in-place Tensor methods on CPU return the result but leave the tensor unchanged "
     "(x.add_(y) then x: the old values)"),
    (("x.nansum(dim", "x.nansum(keepdim", "mint.nansum(x, dim", "mint.nansum(x, keepdim"),
     "the dim / keepdim form of nansum (documented) raises 'deprecated_tensor_nansum() got an "
     "unexpected keyword argument'"),
    (("ops.full((2, 3), 1.5)",),
     "ops.full with a float fill_value and no dtype gives int64, truncating the value "
     "(mindlite: float32, as mint.full and the documented inference)"),
    (("i.any(1)",),
     "Tensor.any(axis) of an int tensor drops nonzero rows (i.any(1) of [[1, 2, 3], [4, 5, "
     "6]] gives [True, False])"),
    (("x.max(initial=",),
     "Tensor.max(initial=...) over all elements ignores `initial`"),
    (("ops.sinc(b)", "mint.sinc(b)"),
     "sinc of a bool tensor gives NaN at False (0/0) instead of 1"),
    (("ops.searchsorted(sv, v, out_int32=True)",),
     "SearchSorted with a 1-D sequence and out_int32 raises a dimension error"),
    (("ops.rfft(ops.fft(", "ops.ihfft(ops.fft("),
     "rfft / ihfft of a complex tensor reads its memory as floats (documented: TypeError)"),
    (("ops.jvp(ops.mul, (x, y)",),
     "jvp with a tuple of inputs fails to compile ('Type Join Failed')"),
    (("ops.top_k(i, 3, False)",),
     "the order of an unsorted top-k is unspecified (MindSpore keeps the input order when k is "
     "the dim's size; mindlite returns them sorted)"),
    (("ops.scalar_to_array(", "ops.tail(", "ops.zip_operation("),
     "graph-compiler helpers that PyNative cannot run (no __infer__) or that return None there; "
     "mindlite evaluates them as Python (tail: the tuple without its first element)"),
    (("ops.digamma(d)", "mint.digamma(d)"),
     "digamma of a float64 tensor is only float32-accurate (digamma(-1.1033458334980237) = "
     "9.8212022..., mpmath: 9.8212055...)"),
    (("ops.eig(",),
     "eigenvectors are defined up to a phase (MindSpore's Eigen ComplexEigenSolver vs "
     "LAPACK); the eigenvalues come in MindSpore's order (by modulus) and ops.eigvals is "
     "compared"),
    (("x.init_data(",),
     "Tensor.init_data() on a tensor that already holds data raises TypeError; mindlite "
     "returns the tensor (its own callers materialize tensors and parameters alike)"),
]
RESULT_ONLY = MS_DEFECTS[0][1]


def ms_defect(call):
    for prefixes, reason in MS_DEFECTS:
        if call.startswith(prefixes):
            return reason
    return None
