"""The layout facts of MindSpore Lite's `.ms` files (MINDIR_LITE, FlatBuffers, schema MSL2)
that mindlite reads and writes: table field slots, the PrimitiveType union's type codes for
the ops mindlite maps, enums, and MindSpore's TypeId numbers. ms_file.py encodes and decodes
with these; ops_map.py maps mindlite primitives onto the op tables.

A FlatBuffers table field is addressed by its slot (its position in the schema's table); a
union is two fields (its type code, then the table). A field spec is (name, kind, default):
kinds "bool", "i8" (a byte enum), "i32" (int / Format), "u32", "i64" (long), "f32", "str",
"[i32]", "[u32]", "[i64]", "[f32]", "[u8]", "[Attribute]" (Custom's name/data pairs),
"Vec2D" (PadFusion's paddings: a list of [long] rows).
The op tables keep every field of MSL2's table in schema order, so files interchange with
MindSpore Lite's converter_lite / runtime for these ops. PRIMITIVE_TYPES names every member of
the union (code = position + 1), so a node of an op mindlite has no table for is named in the
error that refuses it.
"""
import numpy as np

from ..train.mindir.values import CORE_TYPE_IDS

FILE_IDENTIFIER = b"MSL2"
VERSION = "MindSpore Lite 2.0.0"       # MetaGraph.version mindlite writes: the Lite it targets
KNOWN_VERSIONS = ("MindSpore Lite 2.",)   # versions read without a warning (and none at all)
KNOWN_IDENTIFIERS = {b"MSL0": "MSL0 (MindSpore Lite 0.x/1.0)",
                     b"MSL1": "MSL1 (MindSpore Lite 1.x)"}

# ---- containers -----------------------------------------------------------------------------
TENSOR = [("nodeType", "i32", 0), ("dataType", "i32", 0), ("dims", "[i32]", None),
          ("format", "i32", 0), ("refCount", "i32", 0), ("offset", "i32", 0),
          ("data", "[u8]", None), ("quantParams", "skip", None),
          ("quantClusters", "[f32]", None), ("name", "str", None),
          ("enableHuffmanCode", "bool", False), ("weightQuantCompressType", "i32", 0),
          ("externalData", "skip", None)]
CNODE = [("name", "str", None), ("nodeType", "i32", 0), ("primitive", "table", None),
         ("inputIndex", "[u32]", None), ("outputIndex", "[u32]", None),
         ("quantType", "i32", 0), ("deviceType", "i32", -1)]
SUBGRAPH = [("name", "str", None), ("inputIndices", "[u32]", None),
            ("outputIndices", "[u32]", None), ("nodeIndices", "[u32]", None),
            ("tensorIndices", "[u32]", None)]
METAGRAPH = [("name", "str", None), ("version", "str", None), ("fmkType", "i32", 0),
             ("inputIndex", "[u32]", None), ("outputIndex", "[u32]", None),
             ("mempoolSize", "u32", 0), ("nodes", "[table]", None),
             ("allTensors", "[table]", None), ("subGraph", "[table]", None),
             ("obfuscate", "bool", False), ("obfMetaData", "[u8]", None)]
PRIMITIVE_SLOTS = 2                     # Primitive { value: PrimitiveType } = type + table
ATTRIBUTE = [("name", "str", None), ("data", "[u8]", None)]

# Tensor.nodeType as the Lite converter writes it
NODE_VALUE, NODE_PARAMETER, NODE_CNODE = 0, 1, 2
FMK = {"TF": 0, "CAFFE": 1, "ONNX": 2, "MINDIR": 3, "TFLITE": 4}

# ---- enums (ops_types) ----------------------------------------------------------------------
FORMAT_NCHW, FORMAT_NHWC, FORMAT_KHWC = 0, 1, 7
FORMAT_NAME = {0: "NCHW", 1: "NHWC", 2: "NHWC4", 3: "HWKC", 4: "HWCK", 5: "KCHW", 6: "CKHW",
               7: "KHWC", 8: "CHWK", 9: "HW", 10: "HW4", 11: "NC", 12: "NC4", 13: "NC4HW4"}
ACT = {"NO_ACTIVATION": 0, "RELU": 1, "SIGMOID": 2, "RELU6": 3, "ELU": 4, "LEAKY_RELU": 5,
       "ABS": 6, "RELU1": 7, "SOFTSIGN": 8, "SOFTPLUS": 9, "TANH": 10, "SELU": 11,
       "HSWISH": 12, "HSIGMOID": 13, "THRESHOLDRELU": 14, "LINEAR": 15, "HARD_TANH": 16,
       "SIGN": 17, "SWISH": 18, "GELU": 19, "FAST_GELU": 20, "CELU": 27}
ACT_NAME = {v: k for k, v in ACT.items()}
PAD_MODE = {"PAD": 0, "SAME": 1, "VALID": 2}
PAD_MODE_NAME = {v: k for k, v in PAD_MODE.items()}
ROUND_FLOOR, ROUND_CEIL = 0, 1
PADDING_MODE = {"CONSTANT": 0, "REFLECT": 1, "SYMMETRIC": 2}
PADDING_MODE_NAME = {v: k for k, v in PADDING_MODE.items()}
RESIZE_METHOD = {"LINEAR": 0, "NEAREST": 1, "CUBIC": 2}
RESIZE_METHOD_NAME = {v: k for k, v in RESIZE_METHOD.items()}
COORDINATE = {"ASYMMETRIC": 0, "ALIGN_CORNERS": 1, "HALF_PIXEL": 2}
COORDINATE_NAME = {v: k for k, v in COORDINATE.items()}
NEAREST = {"NORMAL": 0, "ROUND_HALF_DOWN": 1, "ROUND_HALF_UP": 2, "FLOOR": 3, "CEIL": 4}
NEAREST_NAME = {v: k for k, v in NEAREST.items()}
REDUCE = {"ReduceMean": 0, "ReduceMax": 1, "ReduceMin": 2, "ReduceProd": 3, "ReduceSum": 4,
          "ReduceSumSquare": 5, "ReduceASum": 6, "ReduceAll": 7, "ReduceL2": 8}
REDUCE_NAME = {v: k for k, v in REDUCE.items()}

# ---- MindSpore TypeId (Tensor.dataType) -----------------------------------------------------
TYPE_ID = {np.dtype(t.np): tid for t, tid in CORE_TYPE_IDS.items()}   # the MINDIR table
DTYPE_OF = {v: k for k, v in TYPE_ID.items()}

# ---- the PrimitiveType union: every member, in schema order (type code = position + 1) ---
PRIMITIVE_TYPES = """
Abs Activation ActivationGrad Adam AddFusion AdderFusion AddGrad AddN All ApplyMomentum
ArgMaxFusion ArgMinFusion Assert Assign AssignAdd AudioSpectrogram AvgPoolFusion AvgPoolGrad
BatchNorm BatchNormGrad BatchToSpace BatchToSpaceND BiasAdd BinaryCrossEntropy
BinaryCrossEntropyGrad BiasAddGrad BroadcastTo Cast Ceil Clip Concat Attention
Conv2DBackpropFilterFusion Conv2DBackpropInputFusion Conv2DFusion Conv2dTransposeFusion Cos
ConstantOfShape Crop CustomExtractFeatures CustomNormalize CustomPredict DeConv2DGradFilter
Depend DepthToSpace DetectionPostProcess DivFusion DivGrad Dropout DropoutGrad Elu Eltwise
Equal EmbeddingLookupFusion ExpFusion ExpandDims FakeQuantWithMinMaxVars
FakeQuantWithMinMaxVarsPerChannel FftReal FftImag Flatten FlattenGrad Floor FloorDiv FloorMod
Fill FullConnection FusedBatchNorm Gather GatherNd Greater GreaterEqual HashtableLookup
InstanceNorm LayerNormFusion LeakyRelu Less LessEqual Log LogGrad LogicalAnd LogicalNot
LogicalOr LpNormalization LRN LshProjection LSTM L2NormalizeFusion MatMulFusion Maximum
MaximumGrad MaxPoolFusion MaxPoolGrad SwitchLayer Mfcc Minimum MinimumGrad Mod MulFusion
MulGrad Neg NegGrad NotEqual NonMaxSuppression OneHot OnesLike PadFusion PartialFusion
PowerGrad PowFusion PriorBox PReLUFusion QuantDTypeCast Rank Range Reciprocal RealDiv
ReduceFusion Reshape Resize ReverseSequence ReverseV2 Rfft ROIPooling Round Rsqrt ScaleFusion
ScatterNd SGD Shape SigmoidCrossEntropyWithLogits SigmoidCrossEntropyWithLogitsGrad Sin
SkipGram SliceFusion SmoothL1Loss SmoothL1LossGrad Softmax SoftmaxCrossEntropyWithLogits
SpaceToBatch SpaceToBatchND SpaceToDepth SparseSoftmaxCrossEntropyWithLogits SparseToDense
Split Sqrt Squeeze Square SquaredDifference Stack StridedSlice SubFusion SubGrad Switch
TensorListFromTensor TensorListGetItem TensorListReserve TensorListSetItem TensorListStack
TileFusion TopKFusion Transpose Unique UnsortedSegmentSum Unsqueeze Unstack LSTMGrad Where
ZerosLike Select ScatterNdUpdate GRU NonZero InvertPermutation Size RandomStandardNormal
CropAndResize Erf StridedSliceGrad IsFinite LinSpace UniformReal AbsGrad RsqrtGrad SqrtGrad
LayerNormGrad ResizeGrad Splice LogSoftmax Call Custom CumSum SplitWithOverlap GenOP
RaggedRange GLU TensorArray TensorArrayRead TensorArrayWrite Affine AllGather ReduceScatter
DynamicQuant LSTMGradData LSTMGradWeight RandomNormal NLLLoss NLLLossGrad FormatTranspose
GatherD GroupNormFusion Log1p TensorScatterAdd SparseFillEmptyRows SparseReshape
SparseSegmentSum ScatterElements Triu Tril AdamWeightDecay FillV2
""".split()
CODE = {name: i + 1 for i, name in enumerate(PRIMITIVE_TYPES)}
PRIMITIVE_TYPE_COUNT = len(PRIMITIVE_TYPES)     # codes 1..221; 0 is NONE

# ---- the op tables mindlite reads and writes: their fields, in schema order ----------------
_ACT = [("activation_type", "i8", 0)]
_POOL = [("kernel_size", "[i64]", None), ("strides", "[i64]", None), ("pad", "[i64]", None),
         ("pad_mode", "i8", 0), ("round_mode", "i8", 0), ("format", "i32", 0),
         ("global", "bool", False), ("activation_type", "i8", 0)]
_CONV = [("format", "i32", 0), ("kernel_size", "[i64]", None), ("stride", "[i64]", None),
         ("dilation", "[i64]", None), ("pad_mode", "i8", 0), ("pad_list", "[i64]", None),
         ("mode", "i64", 0), ("group", "i64", 0), ("in_channel", "i64", 0),
         ("out_channel", "i64", 0), ("activation_type", "i8", 0)]
_CONV_T = _CONV[:5] + [("pad", "[i64]", None)] + _CONV[5:] + [("output_paddings", "[i64]", None)]
_ARG = [("axis", "i64", 0), ("top_k", "i64", 1), ("keep_dims", "bool", False),
        ("out_max_value", "bool", False)]

TABLES = {
    "Activation": [("activation_type", "i8", 0), ("alpha", "f32", 0.0), ("min_val", "f32", 0.0),
                   ("max_val", "f32", 0.0), ("approximate", "bool", False), ("beta", "f32", 0.0)],
    "AddFusion": _ACT, "ArgMaxFusion": _ARG, "ArgMinFusion": _ARG, "AvgPoolFusion": _POOL,
    "BatchNorm": [("epsilon", "f32", 0.0), ("format", "i32", 0), ("is_training", "bool", False)],
    "BiasAdd": [("format", "i32", 0)],
    "BroadcastTo": [("shape", "[i64]", None)],
    "Clip": [("max", "f32", 0.0), ("min", "f32", 0.0)],
    "Concat": [("axis", "i64", 0)],
    "Conv2DFusion": _CONV, "Conv2dTransposeFusion": _CONV_T,
    "ConstantOfShape": [("data_type", "i64", 0), ("value", "[f32]", None)],
    "DivFusion": _ACT,
    "Elu": [("alpha", "f32", 0.0)],
    "ExpFusion": [("base", "f32", -1.0), ("scale", "f32", 1.0), ("shift", "f32", 0.0)],
    "Flatten": [("axis", "i64", 1)],
    "FullConnection": [("has_bias", "bool", False), ("use_axis", "bool", False),
                       ("axis", "i64", 0), ("activation_type", "i8", 0)],
    "FusedBatchNorm": [("epsilon", "f32", 0.0001), ("momentum", "f32", 0.9), ("mode", "i64", 0)],
    "InstanceNorm": [("epsilon", "f32", 0.0)],
    "LayerNormFusion": [("begin_norm_axis", "i64", 0), ("epsilon", "f32", 0.00001),
                        ("elementwise_affine", "bool", False), ("begin_params_axis", "i64", 0)],
    "LeakyRelu": [("negative_slope", "f32", 0.0)],
    "MatMulFusion": [("transpose_a", "bool", False), ("transpose_b", "bool", False),
                     ("activation_type", "i8", 0)],
    "MaxPoolFusion": _POOL, "MulFusion": _ACT,
    "OneHot": [("axis", "i64", 0)],
    "PadFusion": [("paddings", "Vec2D", None), ("padding_mode", "i8", 0),
                  ("constant_value", "f32", 0.0)],
    "PartialFusion": [("sub_graph_index", "i64", 0)],
    "PowFusion": [("scale", "f32", 1.0), ("shift", "f32", 0.0)],
    "PReLUFusion": [("channel_shared", "bool", False)],
    "Range": [("d_type", "i64", 0), ("start", "i64", 0), ("limit", "i64", 0),
              ("delta", "i64", 1)],
    "ReduceFusion": [("keep_dims", "bool", False), ("mode", "i8", 0),
                     ("reduce_to_end", "bool", False), ("coeff", "f32", 0.0)],
    "Resize": [("format", "i32", 0), ("method", "i8", 0), ("new_height", "i64", 0),
               ("new_width", "i64", 0), ("preserve_aspect_ratio", "bool", False),
               ("coordinate_transform_mode", "i8", 0), ("cubic_coeff", "f32", 0.0),
               ("exclude_outside", "i64", 0), ("extrapolation_value", "f32", 0.0),
               ("nearest_mode", "i8", 0)],
    "ScaleFusion": [("axis", "i64", 0), ("activation_type", "i8", 0)],
    "SliceFusion": [("axes", "[i64]", None)],
    "Softmax": [("axis", "[i64]", None)],
    "Split": [("output_num", "i64", 0), ("size_splits", "[i64]", None), ("axis", "i64", 0)],
    "Squeeze": [("axis", "[i64]", None)],
    "Stack": [("axis", "i64", 0)],
    "StridedSlice": [("begin_mask", "i64", 0), ("end_mask", "i64", 0),
                     ("ellipsis_mask", "i64", 0), ("new_axis_mask", "i64", 0),
                     ("shrink_axis_mask", "i64", 0)],
    "SubFusion": _ACT,
    "TileFusion": [("dims", "[i64]", None)],
    "Unsqueeze": [("axis", "[i64]", None)],
    "Unstack": [("axis", "i64", 0)],
    "LogSoftmax": [("axis", "i64", 0)],
    "Call": [("is_tail_call", "bool", True)],
    "Custom": [("type", "str", None), ("attr", "[Attribute]", None)],
}
# ops whose table has no fields, that mindlite reads and writes
_EMPTY = """Abs AddN Cast Ceil Cos Equal Erf ExpandDims Floor FloorDiv FloorMod Gather
Greater GreaterEqual Less LessEqual Log LogicalAnd LogicalNot LogicalOr Maximum Minimum Mod Neg
NotEqual Reciprocal RealDiv Reshape Round Rsqrt Select Shape Sin Sqrt Square SquaredDifference
Switch Transpose Where""".split()
OPS = {name: (CODE[name], TABLES.get(name, [])) for name in sorted(set(TABLES) | set(_EMPTY))}
OP_OF_CODE = {code: name for name, (code, _) in OPS.items()}
