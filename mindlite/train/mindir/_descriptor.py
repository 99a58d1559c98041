"""The import-time half of mind_ir_pb2.py (written by regenerate.py): message classes built
from a serialized FileDescriptorProto the way protoc's own gencode does (the default pool and
protobuf's `builder`), without gencode's version guard, which refuses runtimes older than the
protoc that made it. When another library (MindSpore) already put a different file of the
same name in the default pool, the classes are built in a private pool instead (protobuf
4.22's upb runtime crashes on recursive messages built that way, so it is only the fallback).
"""
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.internal import builder as _builder


def build_classes(serialized, package, names, module):
    """{message name: class} for the messages `names` of package `package` in the serialized
    FileDescriptorProto `serialized`; `module` is the name the classes report."""
    try:
        file = descriptor_pool.Default().AddSerializedFile(serialized)
    except (TypeError, ValueError):
        file = None
    if file is not None and file.serialized_pb == serialized:
        out = {}
        _builder.BuildMessageAndEnumDescriptors(file, out)
        _builder.BuildTopDescriptorsAndMessages(file, module, out)
        return out
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(serialized)
    return {m: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{m}"))
            for m in names}
