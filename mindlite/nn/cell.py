"""nn.Cell: the building block of models (MindSpore's Cell), plus SequentialCell and CellList.

Parameters and sub-cells are registered by attribute assignment; parameter
names follow attribute paths (`seq.0.weight`). A cell that defines
`bprop(self, *inputs, out, dout)` is differentiated with it instead of through
its construct: while a gradient is being recorded, its construct runs
unrecorded and the grad recorder gets one node whose bprop calls the cell's.
"""
from collections import OrderedDict

from ..common.api import GRAPH
from ..common.parameter import Parameter, ParameterTuple
from ..common.tensor import Tensor
from ..context import CONTEXT, GRAPH_MODE
from ..ir.primitive import Primitive
from ..pynative.grad import GRAD_EXECUTOR
from ..ir.rules import BPROPS


def _register_tuple(cell, params, value):
    """MindSpore's rule for a ParameterTuple attribute: each Parameter joins the cell's
    parameters under its own name (`pos_embed.0`, not the attribute's path; an unnamed one
    becomes `Parameter$<n>`, n from 1); one name twice in the tuple is a ValueError. A Parameter the
    cell already holds (an optimizer's cloned states) keeps its entry."""
    held, names, seen = {id(p) for p in params.values()}, set(), set()
    for item in value:
        if id(item) in seen:
            continue
        seen.add(id(item))
        if not item._inited_name:
            count = cell.__dict__.get("_tuple_params", 1)
            object.__setattr__(cell, "_tuple_params", count + 1)
            item.name, item._inited_name = f"Parameter${count}", True
        if item.name in names:
            raise ValueError(f"For '{type(cell).__name__}', the ParameterTuple holds two "
                             f"Parameters named '{item.name}'; give each a unique name")
        names.add(item.name)
        if id(item) not in held:
            params[item.name] = item


class Cell:
    """Base class: subclasses define __init__ (layers, parameters) and construct(*inputs)."""

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "_bprop_prim", None)

    # ---- registration ----------------------------------------------------------------
    def __setattr__(self, name, value):
        if "_params" not in self.__dict__:
            if not isinstance(value, (Parameter, Cell)):    # MindSpore's: a plain attribute
                object.__setattr__(self, name, value)     # may come before super().__init__
                return
            raise AttributeError(f"For '{type(self).__name__}', call super().__init__() before "
                                 f"assigning '{name}'")
        params, cells = self.__dict__["_params"], self.__dict__["_cells"]
        if isinstance(value, Parameter):
            if not value._inited_name:
                value.name = name
                value._inited_name = True
            params[name] = value
            cells.pop(name, None)
            self.__dict__.pop(name, None)
        elif isinstance(value, ParameterTuple):
            _register_tuple(self, params, value)
            object.__setattr__(self, name, value)
        elif isinstance(value, Cell):
            if self._auto_prefix:
                for pname, p in value.parameters_and_names():
                    p.name = f"{name}.{pname}"
            cells[name] = value
            params.pop(name, None)
            self.__dict__.pop(name, None)
        else:
            if name in params and isinstance(value, Tensor):
                params[name].set_data(value)     # MindSpore's: `self.p += 1` updates p
                return
            if name in params and value is not None:
                raise TypeError(f"For '{type(self).__name__}', '{name}' is a Parameter; assign a "
                                f"Parameter, not {type(value).__name__}")
            params.pop(name, None)
            cells.pop(name, None)
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        if "_params" in d and name in d["_params"]:
            if "_mp_dtype" in d:                 # mixed precision (nn/cell_mixed.py)
                from .cell_mixed import cast_param
                return cast_param(self, d["_params"][name])
            return d["_params"][name]
        if "_cells" in d and name in d["_cells"]:
            return d["_cells"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        if name in self._params:
            del self._params[name]
        elif name in self._cells:
            del self._cells[name]
        else:
            object.__delattr__(self, name)

    def insert_child_to_cell(self, child_name, child_cell):
        setattr(self, child_name, child_cell)

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        setattr(self, param_name, param)

    # ---- calling -----------------------------------------------------------------------
    def construct(self, *inputs):
        raise NotImplementedError(f"'{type(self).__name__}' must define construct()")

    _hooks = None          # {kind: {id: fn}} once a hook is registered (nn/cell_hooks.py)
    _mp_dtype = None       # compute dtype set by to_float (nn/cell_mixed.py)
    _mp_output = None      # its output dtype, where to_float was given one

    def __call__(self, *args, **kwargs):
        if self._mp_dtype is not None or "_mp_output" in self.__dict__:
            from .cell_mixed import mixed_call
            return mixed_call(self, args, kwargs)
        if self._hooks is not None:
            from .cell_hooks import hooked_call
            return hooked_call(self, args, kwargs)
        return self._call(args, kwargs)

    def _call(self, args, kwargs, eager=False):
        if GRAD_EXECUTOR.recording and hasattr(type(self), "bprop"):
            return self._call_with_custom_bprop(args, kwargs)
        if CONTEXT.values["mode"] == GRAPH_MODE and not eager:
            return _graph_call(self, args, kwargs)
        return self.construct(*args, **kwargs)

    def register_forward_pre_hook(self, hook_fn):
        """hook_fn(cell, inputs) -> None or new inputs, before construct (PyNative)."""
        from .cell_hooks import register
        return register(self, "forward_pre", hook_fn)

    def register_forward_hook(self, hook_fn):
        """hook_fn(cell, inputs, output) -> None or a new output, after construct."""
        from .cell_hooks import register
        return register(self, "forward", hook_fn)

    def register_backward_pre_hook(self, hook_fn):
        """hook_fn(cell, grad_output) -> None or a new grad_output, in the backward pass."""
        from .cell_hooks import register
        return register(self, "backward_pre", hook_fn)

    def register_backward_hook(self, hook_fn):
        """hook_fn(cell, grad_input, grad_output) -> None or new grad_input (a tuple)."""
        from .cell_hooks import register
        return register(self, "backward", hook_fn)

    def _call_with_custom_bprop(self, args, kwargs):
        GRAD_EXECUTOR.recording = False
        try:
            out = self.construct(*args, **kwargs)
        finally:
            GRAD_EXECUTOR.recording = bool(GRAD_EXECUTOR.tapes)
        if self._bprop_prim is None:
            object.__setattr__(self, "_bprop_prim", CellBprop(self))
        GRAD_EXECUTOR.record(self._bprop_prim, args, out)
        return out

    def set_inputs(self, *inputs):
        """The inputs construct is compiled for under GRAPH_MODE, as MindSpore's: Tensors
        with None dimensions (Tensor(shape=[None, 3], dtype=...)) compile one graph for any
        size there; calls are checked against them (jit/dynamic.py)."""
        if not inputs:
            raise ValueError(f"For '{type(self).__name__}.set_inputs', at least one input is "
                             f"required")
        object.__setattr__(self, "_dynamic_shape_inputs", tuple(inputs))

    def get_inputs(self):
        """The inputs given to set_inputs, or None."""
        return self.__dict__.get("_dynamic_shape_inputs")

    # ---- parameters and cells ------------------------------------------------------------
    def parameters_and_names(self, name_prefix="", expand=True):
        seen = set()
        for cell_name, cell in (self.cells_and_names(name_prefix) if expand
                                else [(name_prefix, self)]):
            for pname, p in cell._params.items():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{cell_name}.{pname}" if cell_name else pname), p

    def get_parameters(self, expand=True):
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        return [p for p in self.get_parameters(recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        return OrderedDict(self.parameters_and_names(expand=recurse))

    def cells_and_names(self, cell=None, name_prefix=""):
        if isinstance(cell, str):
            cell, name_prefix = None, cell
        seen = set()
        stack = [(name_prefix, self)]
        while stack:
            name, c = stack.pop(0)
            if id(c) in seen:
                continue
            seen.add(id(c))
            yield name, c
            stack[0:0] = [(f"{name}.{k}" if name else k, v) for k, v in c._cells.items()]

    def cells(self):
        return list(self._cells.values())

    def name_cells(self):
        return OrderedDict(self._cells)

    def init_parameters_data(self, auto_parallel_mode=False):
        """MindSpore's: materialise every lazily initialised Parameter and return {old: new};
        mindlite materialises a Parameter in place (Tensor.init_data), so each maps to
        itself."""
        return {p: p.init_data() for p in self.get_parameters()}

    def set_train(self, mode=True):
        for _, c in self.cells_and_names():
            object.__setattr__(c, "training", bool(mode))
        return self

    def set_grad(self, requires_grad=True):
        return self

    def to_float(self, dst_type):
        """Run this cell and its sub-cells in dst_type: inputs and Parameters are cast at use,
        the Parameters themselves keep their dtype (nn/cell_mixed.py)."""
        from .cell_mixed import mark
        return mark(self, dst_type)

    # ---- repr --------------------------------------------------------------------------
    def extend_repr(self):
        return ""

    def __repr__(self):
        lines = [f"  ({k}): " + repr(v).replace("\n", "\n  ") for k, v in self._cells.items()]
        head = f"{type(self).__name__}({self.extend_repr()}"
        if not lines:
            return head + ")"
        return head + "\n" + "\n".join(lines) + "\n)"


class CellBprop(Primitive):
    """The grad recorder's node for a Cell with a user-defined bprop."""

    def __init__(self, cell):
        super().__init__(f"{type(cell).__name__}.bprop")
        self.cell = cell


def _cell_bprop(prim, *args):
    *inputs, out, dout = args
    grads = prim.cell.bprop(*inputs, out, dout)
    if not isinstance(grads, tuple):
        grads = (grads,)
    if len(grads) != len(inputs):
        raise ValueError(f"For '{prim.name}', bprop must return {len(inputs)} gradients (one per "
                         f"input), but returned {len(grads)}")
    return grads


BPROPS[CellBprop] = _cell_bprop


def _graph_call(cell, args, kwargs):
    """GRAPH_MODE: construct runs as a compiled graph (mindlite/jit/cell_graph.py, through its slot
    common/api.GRAPH: graph mode sits above nn)."""
    return GRAPH.cell_call(cell, args, kwargs)


class SequentialCell(Cell):
    """Cells applied in order; indexable; `append` adds one."""

    def __init__(self, *args):
        super().__init__()
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, OrderedDict)) else args
        items = cells.items() if isinstance(cells, OrderedDict) else enumerate(cells)
        for k, c in items:
            if not isinstance(c, Cell):
                raise TypeError(f"For 'SequentialCell', every element must be a Cell, but got "
                                f"{type(c).__name__}")
            setattr(self, str(k), c)

    def __getitem__(self, i):
        cells = list(self._cells.values())
        if isinstance(i, slice):
            return SequentialCell(cells[i])
        return cells[i]

    def __len__(self):
        return len(self._cells)

    def append(self, cell):
        if not isinstance(cell, Cell):
            raise TypeError(f"For 'SequentialCell', elements must be Cells, but got "
                            f"{type(cell).__name__}")
        _add_to_list(self, cell, _list_prefix(self._cells))
        return self

    def construct(self, x):
        for c in self._cells.values():
            x = c(x)
        return x


class CellList(Cell):
    """A list of cells registered as children (no construct of its own)."""

    def __init__(self, cells=(), auto_prefix=True):
        super().__init__(auto_prefix)
        self.extend(list(cells))

    def __getitem__(self, i):
        return list(self._cells.values())[i]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def append(self, cell):
        return self.extend([cell])

    def extend(self, cells):
        prefix = _list_prefix(self._cells)        # once, before the first: MindSpore's
        for c in cells:
            if not isinstance(c, Cell):
                raise TypeError(f"For 'CellList', elements must be Cells, but got "
                                f"{type(c).__name__}")
            _add_to_list(self, c, prefix)
        return self


def _add_to_list(container, cell, prefix):
    """Append `cell` under the next index; its parameters are named prefix + index + path,
    as MindSpore's containers name them (not the container's own path: a list assigned to
    its parent while empty gives its later elements' parameters no parent prefix)."""
    key = str(len(container._cells))
    if container._auto_prefix:
        for pname, p in cell.parameters_and_names():
            p.name = f"{prefix}{key}.{pname}"
    container._cells[key] = cell


def _list_prefix(cells):
    """MindSpore 2.10's prefix for a list container's next element (its
    container._get_prefix_and_index): read off the name of the first element's first
    Parameter, the path up to the component equal to that element's key (the last such
    component, unless the second element's parameter name agrees at an earlier one)."""
    first = second = None
    for key, cell in cells.items():
        param = next(cell.parameters_and_names(), (None, None))[1]
        if param is None:
            continue
        if first is None:
            first = (key, param)
            continue
        second = (key, param)
        break
    if first is None:
        return ""
    prefix, parts = "", first[1].name.split(".")
    for idx, part in enumerate(parts):
        if part == first[0]:
            prefix = ".".join(parts[:idx])
            prefix = prefix + "." if prefix else prefix
            other = second[1].name.split(".") if second is not None else []
            if idx < len(other) and other[idx] == second[0]:
                break
    return prefix
