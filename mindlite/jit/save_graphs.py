"""save_graphs: the graph of each compile written after parsing and after every pass, as
MindSpore's `set_context(save_graphs=..., save_graphs_path=...)` (MS_DEV_SAVE_GRAPHS) does.

File names follow MindSpore 2.10's `NN_<stage>_CCCC.ir`: NN numbers the stages of one
compile from 00 (`00_parse`, then each pass of the pipeline in order, user passes under
their registered names), CCCC is a process-wide dump counter shared by every file written,
so files sort in the order they were written across compiles:

    00_parse_0000.ir  01_inline_0001.ir  02_constant_folding_0002.ir  ...

Levels: 0 / False nothing; 1 / True and 2 the `.ir` text of every stage (ir/dump.py); 3 also
the `.dot` of every stage, numbered by the same counter right after its `.ir`
(`00_parse_0000.ir`, `00_parse_0001.dot`, `01_inline_0002.ir`, ...), as MindSpore's docs
list them. Files go straight into save_graphs_path (created if missing).
"""
import itertools
import os

_COUNTER = itertools.count()


def _level():
    from ..context import CONTEXT
    value = CONTEXT.values.get("save_graphs", 0)
    return int(value)


class GraphDumper:
    """Writes one compile's stages; `GraphDumper.from_context()` is None when dumps are off."""

    def __init__(self, level, path):
        self.level = level
        self.path = os.fspath(path)
        self.stage = 0
        self.written = []

    @classmethod
    def from_context(cls):
        level = _level()
        if level <= 0:
            return None
        from ..context import CONTEXT
        return cls(level, CONTEXT.values.get("save_graphs_path", "."))

    def dump(self, stage_name, root):
        from ..ir.dot import to_dot
        from ..ir.dump import dump_ir
        os.makedirs(self.path, exist_ok=True)
        prefix = f"{self.stage:02d}_{stage_name}"
        self._write(f"{prefix}_{next(_COUNTER):04d}.ir", dump_ir(root))
        if self.level >= 3:
            self._write(f"{prefix}_{next(_COUNTER):04d}.dot", to_dot(root))
        self.stage += 1

    def _write(self, name, text):
        file = os.path.join(self.path, name)
        with open(file, "w", encoding="utf-8") as f:
            f.write(text)
        self.written.append(file)
