"""Regenerate mind_ir_pb2.py from mind_ir.proto: `python -m mindlite.train.mindir.regenerate`.

protoc (grpcio-tools' `python -m grpc_tools.protoc`) parses mind_ir.proto into a
FileDescriptorProto; the module written holds those serialized bytes, from which
_descriptor.build_classes makes the message classes at import time as protoc's gencode
does, but without its version guard: so it works with every protobuf runtime >= 4.22.
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
serialized FileDescriptorProto below by _descriptor.build_classes (see regenerate.py).
"""
from ._descriptor import build_classes

_SERIALIZED = (
'''

FOOTER = ''')

_NAMES = (
{names})
_CLASSES = build_classes(_SERIALIZED, "mind_ir", _NAMES, __name__)
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
