"""The executors' handles on the ground floor, as MindSpore's mindspore/common/api.py holds
`_pynative_executor` and `_cell_graph_executor`: slots that the executors above fill when they
are imported, so that Tensor, Primitive, the op families and nn reach them without importing
up (docs/architecture.md, the floors). Also MindSpore's `mindspore.common.api` path, where
MindSpore's own tests and older scripts import `jit` from: mindlite/__init__.py binds it.

    jit        mindlite.jit (the jit floor's function), bound by mindlite/__init__.py

    PYNATIVE   the eager executor (filled by pynative/executor.py)
      run_op(prim, name, args)    the first call of a signature (PynativeExecutor.real_run_op)
      select_kernel(prim, args)   the KernelDef a call would run
      prepare(prim, args)         a call's first-call steps 1-4 (cast, node, infer), for the
                                  graph lowering (backend/lowering.py)
      grad                        the grad recorder (pynative/grad.GRAD_EXECUTOR): bprops read
                                  the running backward, in-place writers the open tapes
      log_write(t, op), snapshot(t), adopt(t, result)
                                  in-place writes under the recorder (pynative/inplace.py)
    GRAPH      graph mode (filled by jit/cell_graph.py and jit/ad/entry.py)
      cell_call(cell, args)       a Cell's call under GRAPH_MODE
      run_eagerly(cell)           GRAPH_MODE leaves this cell's construct eager (amp)
      grad_entry                  jit/ad/entry: a grad function compiled with its forward,
                                  graph_step (Model's training step as one graph)
    DEVICES    the device registry (filled by device/registry.py)
      resolve_target(name)        the check of set_context(device_target=...)

Which module fills a slot is said by the package's face (mindlite/__init__.py, the top floor,
which imports everything anyway): `SLOT.provided_by(module name)`. The first use of an unfilled
slot imports that module, which fills it; after that a member is a plain attribute (no lookup
cost on the hot path), and `import mindlite` does not load the graph side or the devices.
"""
import importlib


class Slot:
    """Named members filled from above (`fill`), loaded on first use from `provided_by`'s module."""

    def __init__(self, name):
        self.__dict__["_name"] = name
        self.__dict__["_providers"] = []

    def provided_by(self, *modules):
        """The modules (absolute names) whose import fills this slot; imported at first use."""
        self._providers.extend(modules)

    def fill(self, **members):
        self.__dict__.update(members)

    def __getattr__(self, member):       # only while `member` is not filled yet
        if member.startswith("__"):
            raise AttributeError(member)
        for module in self._providers:
            importlib.import_module(module)
            if member in self.__dict__:
                return self.__dict__[member]
        raise AttributeError(f"mindlite.common.api.{self._name}.{member} is not filled (by "
                             f"{', '.join(self._providers) or 'no provider'})")

    def __setattr__(self, member, value):
        raise AttributeError(f"{self._name}.{member}: slots are filled with fill()")

    def __repr__(self):
        return f"Slot({self._name}: {sorted(k for k in self.__dict__ if k[0] != '_')})"


jit = None            # `from mindspore.common.api import jit`: set by mindlite/__init__.py

PYNATIVE = Slot("PYNATIVE")
GRAPH = Slot("GRAPH")
DEVICES = Slot("DEVICES")
