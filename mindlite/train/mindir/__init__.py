"""MINDIR, MindSpore's protobuf model file: read and write FuncGraphs in MindSpore 2.x's format.

    mind_ir.proto / mind_ir_pb2.py   the schema and its message classes (regenerate.py)
    values.py      tensors and constants <-> TensorProto / AttributeProto
    op_table.py    MindSpore op name <-> mindlite Primitive, attribute conventions
    writer.py      FuncGraph -> ModelProto         reader.py    ModelProto -> FuncGraph
    files.py       save_mindir / load_mindir, external weight files for large models

The public API is mindlite.export / mindlite.load (train/export_api.py) and nn.GraphCell.
Importing this package imports protobuf, so `import mindlite` does not import it.
"""
from .files import load_mindir, save_mindir  # noqa: F401
