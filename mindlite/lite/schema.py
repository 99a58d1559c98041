"""The layout facts of MindSpore Lite's `.ms` files (MINDIR_LITE, FlatBuffers, schema MSL2)
that mindlite reads and writes: table field slots, the PrimitiveType union's type codes for
the ops mindlite maps, enums, and MindSpore's TypeId numbers. ms_file.py encodes and decodes
with these; ops_map.py maps mindlite primitives onto the op tables.

A FlatBuffers table field is addressed by its slot (its position in the schema's table); a
union is two fields (its type code, then the table). A field spec is (name, kind, default):
kinds "bool", "i8" (a byte enum), "i32" (int / Format), "u32", "i64" (long), "f32", "str",
"[i32]", "[u32]", "[i64]", "[f32]", "[u8]", "[Attribute]" (Custom's name/data pairs).
The op tables keep every field of MSL2's table in schema order, so files interchange with
MindSpore Lite's converter_lite / runtime for these ops; a type code not listed here is read
as an op mindlite cannot run (named in the error).
"""
import numpy as np

from ..train.mindir.values import CORE_TYPE_IDS

FILE_IDENTIFIER = b"MSL2"
VERSION = "MindSpore Lite 2.3.0"       # MetaGraph.version as the Lite 2.x tools write it
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
FORMAT_NCHW, FORMAT_NHWC = 0, 1
ACT = {"NO_ACTIVATION": 0, "RELU": 1, "SIGMOID": 2, "RELU6": 3, "ELU": 4, "LEAKY_RELU": 5,
       "ABS": 6, "SOFTPLUS": 9, "TANH": 10, "HSWISH": 12, "HSIGMOID": 13, "GELU": 19}
ACT_NAME = {v: k for k, v in ACT.items()}
PAD_MODE = {"PAD": 0, "SAME": 1, "VALID": 2}
PAD_MODE_NAME = {v: k for k, v in PAD_MODE.items()}
ROUND_FLOOR, ROUND_CEIL = 0, 1
REDUCE = {"ReduceMean": 0, "ReduceMax": 1, "ReduceMin": 2, "ReduceProd": 3, "ReduceSum": 4}
REDUCE_NAME = {v: k for k, v in REDUCE.items()}

# ---- MindSpore TypeId (Tensor.dataType) -----------------------------------------------------
TYPE_ID = {np.dtype(t.np): tid for t, tid in CORE_TYPE_IDS.items()}   # the MINDIR table
DTYPE_OF = {v: k for k, v in TYPE_ID.items()}

# ---- the PrimitiveType union: type code and table fields per op ----------------------------
_ACT = [("activation_type", "i8", 0)]
_POOL = [("kernel_size", "[i64]", None), ("strides", "[i64]", None), ("pad", "[i64]", None),
         ("pad_mode", "i8", 0), ("round_mode", "i8", 0), ("format", "i32", 0),
         ("global", "bool", False), ("activation_type", "i8", 0)]
_CONV = [("format", "i32", 0), ("kernel_size", "[i64]", None), ("stride", "[i64]", None),
         ("dilation", "[i64]", None), ("pad_mode", "i8", 0), ("pad_list", "[i64]", None),
         ("mode", "i64", 0), ("group", "i64", 0), ("in_channel", "i64", 0),
         ("out_channel", "i64", 0), ("activation_type", "i8", 0)]

OPS = {
    "Abs": (1, []),
    "Activation": (2, [("activation_type", "i8", 0), ("alpha", "f32", 0.0),
                       ("min_val", "f32", 0.0), ("max_val", "f32", 0.0),
                       ("approximate", "bool", False), ("beta", "f32", 0.0)]),
    "AddFusion": (5, _ACT),
    "AddN": (8, []),
    "AvgPoolFusion": (17, _POOL),
    "BiasAdd": (23, [("format", "i32", 0)]),
    "Cast": (28, []),
    "Concat": (31, [("axis", "i64", 0)]),
    "Conv2DFusion": (35, _CONV),
    "Cos": (37, []),
    "DivFusion": (47, _ACT),
    "Equal": (53, []),
    "ExpFusion": (55, [("base", "f32", -1.0), ("scale", "f32", 1.0), ("shift", "f32", 0.0)]),
    "ExpandDims": (56, []),
    "Flatten": (61, [("axis", "i64", 1)]),
    "Floor": (63, []),
    "FusedBatchNorm": (68, [("epsilon", "f32", 0.0001), ("momentum", "f32", 0.9),
                            ("mode", "i64", 0)]),
    "Greater": (71, []),
    "GreaterEqual": (72, []),
    "Less": (77, []),
    "LessEqual": (78, []),
    "Log": (79, []),
    "MatMulFusion": (89, [("transpose_a", "bool", False), ("transpose_b", "bool", False),
                          ("activation_type", "i8", 0)]),
    "Maximum": (90, []),
    "MaxPoolFusion": (92, _POOL),
    "Minimum": (96, []),
    "MulFusion": (99, _ACT),
    "Neg": (101, []),
    "NotEqual": (103, []),
    "PartialFusion": (108, [("sub_graph_index", "i64", 0)]),
    "RealDiv": (117, []),
    "ReduceFusion": (118, [("keep_dims", "bool", False), ("mode", "i8", 0),
                           ("reduce_to_end", "bool", False), ("coeff", "f32", 0.0)]),
    "Reshape": (119, []),
    "Rsqrt": (126, []),
    "Sin": (133, []),
    "Softmax": (138, [("axis", "[i64]", None)]),
    "Sqrt": (146, []),
    "Squeeze": (147, [("axis", "[i64]", None)]),
    "Square": (148, []),
    "SubFusion": (152, _ACT),
    "Switch": (154, []),
    "Erf": (178, []),
    "Transpose": (162, []),
    "LogSoftmax": (189, [("axis", "i64", 0)]),
    "Call": (190, [("is_tail_call", "bool", True)]),
    "Custom": (191, [("type", "str", None), ("attr", "[Attribute]", None)]),
}
OP_OF_CODE = {code: name for name, (code, _) in OPS.items()}
PRIMITIVE_TYPE_COUNT = 221              # MSL2's union members (codes 1..221; 0 is NONE)
