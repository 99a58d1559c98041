"""Regenerate mind_ir_pb2.py from mind_ir.proto: `python -m mindlite.train.mindir.regenerate`.

protoc (grpcio-tools' `python -m grpc_tools.protoc`) parses mind_ir.proto into a
FileDescriptorProto; the module written holds those serialized bytes and builds the message
classes from them at import time in a private DescriptorPool. Unlike protoc's own
`--python_out`, whose gencode refuses runtimes older than the protoc that made it, this
works with every protobuf runtime >= 4.22 (message_factory.GetMessageClass), and the
private pool cannot clash with another library that registers "mind_ir.proto" (MindSpore).
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
serialized FileDescriptorProto below in a private DescriptorPool.
"""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_SERIALIZED = (
'''

FOOTER = ''')

_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(descriptor_pb2.FileDescriptorProto.FromString(_SERIALIZED))


def _cls(name):
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName("mind_ir." + name))


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
    classes = "\n".join(f'{m.name} = _cls("{m.name}")' for m in fd.message_type)
    return HEADER + lines + FOOTER.format(classes=classes)


def main():
    text = render(file_descriptor())
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
