"""Which mindlite primitive a MindIR node names, and how its attributes travel.

MindSpore 2.x writes two kinds of primitive (PrimitiveProto.prim_type):
  PRIMITIVE           attributes on the PrimitiveProto (Conv2D, MaxPool, Switch, ...): matched
                      to the mindlite primitive's `__init__` arguments by name (ATTR_RENAMES for
                      the few that differ, e.g. MindSpore's "format" is mindlite's data_format);
  PRIMITIVE_FUNCTION  the op's arguments are node inputs, in the order of MindSpore's op
                      definition: tensor inputs and constructor arguments mixed (MatMul:
                      input, mat2, transpose_a, transpose_b). PRIM_FUNCTIONS below lists that
                      order for every op mindlite has; "name=" marks a constructor argument,
                      "name=family" one that MindSpore stores as an enum integer (ENUMS).

PRIM_FUNCTIONS was derived from MindSpore 2.10's generated primitive classes (each op's
`__init__` and `__call__` argument lists and arg handlers; BatchNorm, Shape and Tile from its
manually defined ones), restricted to the ops whose
constructor arguments match mindlite's (MS_DIFFERENT: those that do not); a dtype argument
travels as MindSpore's TypeId integer (the "dtype" family, DTYPE_INPUTS). reader.py and
writer.py use `decode_primitive` / `encode_primitive`.
"""
import inspect

from ...ops import operations as _ops
from ...ir.primitive import Primitive
from .values import TYPE_IDS, MindIRFormatError

ENUMS = {
    "format": {"NCHW": 0, "NHWC": 1, "NCDHW": 14, "NWC": 15, "NCW": 16, "NDHWC": 17, "ND": 20,
               "NC1HWC0": 21},
    "pad_mode": {"PAD": 0, "SAME": 1, "VALID": 2},
    "reduction": {"sum": 0, "mean": 1, "none": 2},
    "indexing": {"ij": 0, "xy": 1},
    "ctm": {"asymmetric": 0, "align_corners": 1, "half_pixel": 2},
    "dtype": TYPE_IDS,
}
# ops whose MindSpore 2.10 definition takes other arguments than mindlite's (not written)
MS_DIFFERENT = frozenset(("AvgPool2D", "CountNonZero", "GatherDGradV2", "Hardtanh", "Round",
                          "TensorScatterElements"))
# MindSpore-only constructor arguments and the value mindlite's behaviour corresponds to
MS_ONLY_DEFAULTS = {("ReduceSum", "skip_mode"): False}
# MindSpore inputs that mindlite's primitives may leave out, and MindSpore's default for them
MS_INPUT_DEFAULTS = {
    ("ReduceSum", "new_generated_axis"): (), ("ReduceMean", "new_generated_axis"): (),
    ("ReduceProd", "new_generated_axis"): (), ("ReduceMax", "axis"): (),
    ("ReduceMin", "axis"): (), ("ReduceAll", "axis"): (), ("ReduceAny", "axis"): (),
    ("BinaryCrossEntropy", "weight"): None, ("BCEWithLogitsLoss", "weight"): None,
    ("BCEWithLogitsLoss", "posWeight"): None,
}
# inputs that hold a dtype, written as MindSpore's TypeId integer: op -> input position
DTYPE_INPUTS = {"Cast": 1, "Zeros": 1, "Ones": 1, "Eye": 2}
ATTR_RENAMES = {"format": "data_format"}           # MindSpore attribute -> mindlite argument
ATTR_RENAMES_OUT = {"data_format": "format"}
# graph-structure primitives (no mindlite Primitive): handled by reader.py / writer.py
IR_OPS = frozenset(("MakeTuple", "TupleGetItem", "Switch", "Return", "Load", "UpdateState",
                    "Depend", "Partial"))
# mindlite kernels that are not MindSpore ops (graph_for_export never leaves them in a graph)
NOT_EXPORTABLE = frozenset(("FusedElemwise", "FusedMatMulBiasAdd", "HookBackward"))

PRIM_FUNCTIONS = {
    "Abs": "input",
    "AdamWeightDecay": "var m v lr beta1 beta2 epsilon decay gradient use_locking=",
    "AdaptiveMaxPool2D": "input output_size=",
    "Add": "input other",
    "AddN": "x",
    "ArgMaxWithValue": "input axis= keep_dims=",
    "ArgMinWithValue": "input axis= keep_dims=",
    "Assign": "variable value",
    "AssignAdd": "variable value",
    "AssignSub": "variable value",
    "AvgPool": "x kernel_size= strides= pad_mode=pad_mode data_format=format",
    "BCEWithLogitsLoss": "input target weight posWeight reduction=reduction",
    "BatchNorm": ("input_x scale bias mean variance is_training= epsilon= momentum= "
                  "data_format=format"),
    "BatchMatMul": "x y transpose_a= transpose_b=",
    "BiasAdd": "input_x bias data_format=format",
    "BiasAddGrad": "dout data_format=format",
    "BinaryCrossEntropy": "input target weight reduction=reduction",
    "BroadcastTo": "input shape=",
    "Cast": "input_x dtype",
    "Argmax": "input_x axis= output_type=dtype",
    "Argmin": "x axis= output_type=dtype",
    "Cdist": "x1 x2 p=",
    "CdistGrad": "grad input_x input_y cdist p=",
    "CeLU": "x alpha=",
    "Ceil": "input",
    "Concat": "tensors axis=",
    "Cos": "input",
    "Cross": "input other dim=",
    "CumProd": "x new_generated_axis exclusive= reverse=",
    "CumSum": "input new_generated_axis exclusive= reverse=",
    "Cummax": "input axis=",
    "Cummin": "input axis=",
    "Diag": "input",
    "Div": "input other",
    "Dropout": "x keep_prob= Seed0= Seed1=",
    "Elu": "input_x alpha=",
    "Equal": "input other",
    "Erf": "input",
    "Exp": "input",
    "ExpandDims": "input_x axis",
    "Eye": "n m dtype",
    "Flatten": "input_x",
    "Floor": "input",
    "FloorDiv": "input other",
    "FloorMod": "x y",
    "Gather": "input_params input_indices axis batch_dims=",
    "GatherD": "x dim index",
    "GatherNd": "input_x indices",
    "GeLU": "input",
    "Greater": "input other",
    "GreaterEqual": "input other",
    "HSigmoid": "input",
    "HSwish": "input",
    "IsClose": "input other rtol= atol= equal_nan=",
    "IsFinite": "input",
    "IsInf": "input",
    "LayerNorm": "input_x gamma beta begin_norm_axis= begin_params_axis= epsilon=",
    "Less": "input other",
    "LessEqual": "input other",
    "LinSpace": "start stop num",
    "Log": "input",
    "LogSigmoid": "input",
    "LogSoftmax": "logits axis=",
    "LogSoftmaxGrad": "logits grad axis=",
    "LogicalAnd": "x y",
    "LogicalNot": "input",
    "LogicalOr": "x y",
    "MaskedFill": "input_x mask value",
    "MaskedSelect": "input mask",
    "MaskedSelectGrad": "input mask grad",
    "MatMul": "input mat2 transpose_a= transpose_b=",
    "MatrixDeterminant": "input",
    "Maximum": "input other",
    "Meshgrid": "inputs indexing=indexing",
    "Minimum": "input other",
    "Mul": "input other",
    "NLLLoss": "logits labels weight reduction=reduction ignore_index=",
    "Neg": "input",
    "NonZero": "input",
    "NotEqual": "input other",
    "OneHot": "indices depth on_value off_value axis=",
    "Ones": "shape dtype",
    "OnesLike": "x",
    "PReLU": "input weight",
    "Pow": "input exponent",
    "Range": "start end step maxlen=",
    "ReLU": "input",
    "ReLU6": "x",
    "ReLU6Grad": "y_backprop x",
    "RealDiv": "x y",
    "Reciprocal": "input",
    "ReduceAll": "input axis keep_dims=",
    "ReduceAny": "x axis keep_dims=",
    "ReduceMax": "x axis keep_dims=",
    "ReduceMean": "x new_generated_axis keep_dims=",
    "ReduceMin": "x axis keep_dims=",
    "ReduceProd": "x new_generated_axis keep_dims=",
    "ReduceStd": "x axis= unbiased= keep_dims=",
    "ReduceSum": "x new_generated_axis keep_dims= skip_mode=",
    "ReluGrad": "y_backprop x",
    "Reshape": "input shape",
    "ResizeBilinearV2": "image new_generated_size align_corners= half_pixel_centers=",
    "ResizeLinear1D": "x new_generated_size coordinate_transformation_mode=ctm",
    "ResizeNearestNeighborV2": "image new_generated_size align_corners= half_pixel_centers=",
    "ReverseV2": "input axis=",
    "Roll": "input shifts= dims=",
    "Rsqrt": "input",
    "Select": "condition input other",
    "SiLU": "input",
    "Sigmoid": "input",
    "SigmoidGrad": "y dy",
    "Sign": "input",
    "Sin": "input",
    "Slice": "input begin size",
    "SmoothL1Loss": "prediction target beta= reduction=reduction",
    "Softmax": "input axis=",
    "Split": "input_x axis= output_num=",
    "Sqrt": "x",
    "SqrtGrad": "dy y",
    "Square": "input",
    "Squeeze": "input axis=",
    "StridedSlice": ("input_x new_generated_begin new_generated_end new_generated_strides "
                     "begin_mask= end_mask= ellipsis_mask= new_axis_mask= shrink_axis_mask="),
    "Sub": "input other",
    "Svd": "input full_matrices= compute_uv=",
    "Shape": "input_x",
    "Tanh": "input",
    "TanhGrad": "y dy",
    "TensorScatterAdd": "input_x indices updates",
    "Tile": "input_x multiples",
    "Trace": "input",
    "Transpose": "input dims",
    "Triu": "input diagonal=",
    "UnsortedSegmentSum": "input_x segment_ids num_segments",
    "Zeros": "size dtype",
    "ZerosLike": "x",
}


# MindSpore 2.x ops mindlite has under another name: op -> (mindlite op, argument words):
#   "name"        the input, passed on          "name>()"  the input, a None constant -> ()
#   "name=kw"     a constant, the mindlite constructor argument kw
#   "name:value"  a constant that must equal value (mindlite has no such argument)
LOWERINGS = {
    "Muls": ("Mul", "input other"),
    "Divs": ("Div", "input other"),
    "AddExt": ("Add", "input other alpha:1"),
    "SubExt": ("Sub", "input other alpha:1"),
    "AddScalar": ("Add", "input other alpha:1"),
    "SubScalar": ("Sub", "input other alpha:1"),
    "PowTensorScalar": ("Pow", "input exponent"),
    "SumExt": ("ReduceSum", "input dim>() keepdim=keep_dims dtype:None"),
    "MeanExt": ("ReduceMean", "input dim>() keepdim=keep_dims dtype:None"),
    "ProdExt": ("ReduceProd", "input dim>() keepdim=keep_dims dtype:None"),
    "Max": ("ReduceMax", "input"),
    "Min": ("ReduceMin", "input"),
    "BatchMatMulExt": ("BatchMatMul", "input mat2"),
    "ExpandDimsView": ("ExpandDims", "input dim"),
    "LeakyReLUExt": ("LeakyReLU", "input negative_slope=alpha"),
    "LogSoftmaxExt": ("LogSoftmax", "input dim=axis dtype:None"),
}


def decode_lowered(op, inputs, const_of, table=LOWERINGS):
    """(mindlite primitive, [input positions or (constant,)]) for an op of `table` (LOWERINGS,
    or another table in its format); `const_of(i)` is (True, value) for a constant input,
    else (False, None)."""
    target, spec = table[op]
    words = spec.split()
    if len(inputs) != len(words):
        raise MindIRFormatError(f"op '{op}' takes {len(words)} inputs ({spec}), the node has "
                                f"{len(inputs)}")
    kwargs, args = {}, []
    for i, word in enumerate(words):
        is_const, value = const_of(i)
        if "=" in word or ":" in word:
            name, sep, rest = word.partition("=") if "=" in word else word.partition(":")
            if not is_const:
                raise MindIRFormatError(f"op '{op}': argument '{name}' must be a constant")
            if sep == "=":
                kwargs[rest] = value
            elif repr(value) != rest:
                raise MindIRFormatError(f"op '{op}': argument '{name}' = {value!r} is not "
                                        f"supported by mindlite (only {rest})")
        elif word.endswith(">()"):
            args.append(((),) if is_const and value is None else i)
        else:
            args.append(i)
    return _build(primitive_class(target), op, kwargs), args


def _spec(op):
    """[(name, is_constructor_arg, enum family or None)] of a PRIMITIVE_FUNCTION op."""
    out = []
    for word in PRIM_FUNCTIONS[op].split():
        name, eq, family = word.partition("=")
        out.append((name, bool(eq), family or None))
    return out


def primitive_class(op):
    """The mindlite Primitive class named `op`, or None."""
    cls = getattr(_ops, op, None)
    if isinstance(cls, type) and issubclass(cls, Primitive) and op not in NOT_EXPORTABLE:
        return cls
    return None


def _init_params(cls):
    return [p for p in inspect.signature(cls.__init__).parameters][1:]


def _build(cls, op, kwargs):
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise MindIRFormatError(f"op '{op}': cannot build the primitive from the file's "
                                f"attributes {kwargs}: {e}") from None


def is_prim_function(op):
    return op in PRIM_FUNCTIONS


def _class_of(op):
    """mindlite's primitive class for MindSpore op `op` and its constructor's parameters."""
    cls = primitive_class(op)
    if cls is None:
        raise MindIRFormatError(f"unknown op '{op}': mindlite has no such primitive")
    return cls, _init_params(cls)


def _construct(cls, op, kwargs):
    """`cls(**kwargs)`; when the constructor refuses them, again with MindSpore's 4-axis
    pooling tuples cut to their spatial values, a MindIRFormatError if that fails too."""
    try:
        return cls(**kwargs)
    except (TypeError, ValueError):
        return _build(cls, op, _spatial(kwargs))


def decode_primitive(op, attrs):
    """A PRIMITIVE op from its attributes (dict name -> value)."""
    cls, params = _class_of(op)
    kwargs = {}
    for name, value in attrs.items():
        name = ATTR_RENAMES.get(name, name)
        if name in params:
            kwargs[name] = list(value) if isinstance(value, list) else value
    return _construct(cls, op, kwargs)


def _spatial(kwargs):
    """MindSpore stores pooling windows as 4-tuples over all axes ((1, 1, kh, kw) for NCHW,
    (1, kh, kw, 1) for NHWC); constructors take the two spatial values."""
    out = dict(kwargs)
    nhwc = out.get("data_format") == "NHWC"
    for key in ("kernel_size", "strides", "stride", "dilation"):
        v = out.get(key)
        if isinstance(v, (tuple, list)) and len(v) == 4:
            out[key] = tuple(v[1:3]) if nhwc else tuple(v[2:])
    return out


def split_prim_function(op, n_inputs):
    """For a PRIMITIVE_FUNCTION node with `n_inputs` inputs: (tensor input positions,
    {constructor argument: (position, enum family)})."""
    spec = _spec(op)
    if n_inputs != len(spec):
        raise MindIRFormatError(f"op '{op}' takes {len(spec)} inputs "
                                f"({' '.join(n for n, _, _ in spec)}), the node has {n_inputs}")
    tensors = [i for i, (_, init, _) in enumerate(spec) if not init]
    consts = {name: (i, fam) for i, (name, init, fam) in enumerate(spec) if init}
    return tensors, consts


def decode_prim_function(op, const_values):
    """A PRIMITIVE_FUNCTION op from its constructor arguments' values {name: (value, family)}."""
    cls, params = _class_of(op)
    kwargs = {}
    for name, (value, family) in const_values.items():
        if family is not None:
            names = {v: k for k, v in ENUMS[family].items()}
            if value not in names:
                raise MindIRFormatError(f"op '{op}': argument '{name}' = {value!r} is not a "
                                        f"{family} value ({sorted(names)})")
            value = names[value]
        if name in params:
            kwargs[name] = value
        elif MS_ONLY_DEFAULTS.get((op, name), value) != value:
            raise MindIRFormatError(f"op '{op}': argument '{name}' = {value!r} is not "
                                    f"supported by mindlite")
    return _construct(cls, op, kwargs)


def encode_primitive(prim):
    """(prim_type, attributes {name: value}, argument plan) for writing `prim`: the plan is
    None for a PRIMITIVE, else one entry per node input: None = the next CNode input,
    (value,) = a constant constructor argument, ("default", value) = the next CNode input if
    there is one left, else that constant (an input mindlite lets a call leave out)."""
    op = type(prim).__name__
    if primitive_class(op) is None:
        raise MindIRFormatError(f"op '{op}' cannot be written to MINDIR (not a MindSpore op)")
    if op in MS_DIFFERENT:
        raise MindIRFormatError(f"op '{op}' cannot be written to MINDIR: MindSpore 2.10 "
                                f"defines it with other arguments than mindlite")
    attrs = dict(getattr(prim, "attrs", {}))
    if op == "Custom":
        from .custom import encode_custom
        return "PRIMITIVE", encode_custom(prim), None
    if not is_prim_function(op):
        out = {ATTR_RENAMES_OUT.get(k, k): v for k, v in attrs.items()}
        if op in ("Conv2D", "Conv2DTranspose", "Conv2DBackpropInput"):
            out.setdefault("groups", attrs.get("group", 1))
            if attrs.get("pad_mode") in ("valid", "pad") and "pad_list" not in out:
                out["pad_list"] = tuple(attrs.get("pad", (0, 0, 0, 0))) \
                    if attrs.get("pad_mode") == "pad" else (0, 0, 0, 0)
        return "PRIMITIVE", out, None
    plan = []
    attrs = _spatial(attrs) if op in ("AvgPool", "MaxPool") else attrs
    for name, init, family in _spec(op):
        if not init:
            default = MS_INPUT_DEFAULTS.get((op, name), plan)
            plan.append(None if default is plan else ("default", default))
            continue
        if name in attrs:
            value = attrs[name]
        elif (op, name) in MS_ONLY_DEFAULTS:
            value = MS_ONLY_DEFAULTS[(op, name)]
        else:
            raise MindIRFormatError(f"op '{op}': no value for argument '{name}'")
        if family is not None:
            table = ENUMS[family]
            key = value if value in table else str(value).upper() if family == "pad_mode" \
                else value
            if key not in table:
                raise MindIRFormatError(f"op '{op}': argument '{name}' = {value!r} has no "
                                        f"MindIR {family} value")
            value = table[key]
        plan.append((value,))
    return "PRIMITIVE_FUNCTION", {}, plan
