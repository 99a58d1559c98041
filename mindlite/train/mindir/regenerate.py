"""Regenerate mind_ir_pb2.py from mind_ir.proto: `python -m mindlite.train.mindir.regenerate`.

protoc (grpcio-tools' `python -m grpc_tools.protoc`) parses mind_ir.proto into a
FileDescriptorProto; the module written holds those serialized bytes and builds the message
classes from them at import time the way protoc's gencode does (the default pool and
protobuf's `builder`), without gencode's version guard, which refuses runtimes older than
the protoc that made it: so it works with every protobuf runtime >= 4.22. When another
library (MindSpore) already put a different "mind_ir.proto" in the default pool, the classes
are built in a private pool instead. (protobuf 4.22's upb runtime crashes on these recursive
messages when their classes come from message_factory in a pool of their own, so that is
only the fallback.)
"""
import os
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = "mind_ir.proto"
OUT = os.path.join(HERE, "mind_ir_pb2.py")

HEADER = '''"""Generated from mind_ir.proto (mindlite.train.mindir.regenerate): do not edit.

MindSpore's MindIR protobuf messages (package mind_ir), built at import time from the
serialized FileDescriptorProto below (see regenerate.py for how and why).
"""
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.internal import builder as _builder

_SERIALIZED = (
'''

FOOTER = ''')


def _build():
    """{{message name: class}}: built as protoc's own gencode does, in the default pool; in a
    private pool when another "mind_ir.proto" (MindSpore's) is already there."""
    try:
        file = descriptor_pool.Default().AddSerializedFile(_SERIALIZED)
    except (TypeError, ValueError):
        file = None
    if file is not None and file.serialized_pb == _SERIALIZED:
        out = {{}}
        _builder.BuildMessageAndEnumDescriptors(file, out)
        _builder.BuildTopDescriptorsAndMessages(file, __name__, out)
        return out
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(_SERIALIZED)
    return {{m: message_factory.GetMessageClass(pool.FindMessageTypeByName("mind_ir." + m))
            for m in _NAMES}}


_NAMES = (
{names})
_CLASSES = _build()
{classes}
'''


def file_descriptor():
    """Run protoc on mind_ir.proto and return its FileDescriptorProto."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "mind_ir.desc")
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{HERE}",
                        f"--descriptor_set_out={out}", PROTO], check=True)
        with open(out, "rb") as f:
            fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    (fd,) = fds.file
    return fd


def render(fd):
    """The text of mind_ir_pb2.py for `fd`."""
    data = fd.SerializeToString()
    lines = "".join(f"    {data[i:i + 20]!r}\n" for i in range(0, len(data), 20))
    names = [m.name for m in fd.message_type]
    classes = "\n".join(f'{n} = _CLASSES["{n}"]' for n in names)
    listed = "".join(f'    "{n}",\n' for n in names)
    return HEADER + lines + FOOTER.format(names=listed, classes=classes)


def main():
    text = render(file_descriptor())
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
