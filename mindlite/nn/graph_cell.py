"""nn.GraphCell: run a loaded model graph (mindlite.load) as a Cell, as MindSpore's GraphCell.

`GraphCell(graph, params_init=None, obf_random_seed=None)`: `graph` is the FuncGraph that
mindlite.load returned; its parameters are the model inputs followed by the weights (those
with a default Parameter). The weights are the cell's parameters, by their names
("fc1.weight"), so `parameters_dict()`, checkpoints and `params_init` (a dict name ->
Tensor/Parameter whose values replace the loaded ones) work. A call checks the inputs
(count, Tensor, dtype, static dims; a Python scalar or list where MindSpore's file has a
`mutable` scalar or sequence input) against the graph's and runs it as @jit runs a compiled
graph: lowered to a kernel program when it can be (backend/program.program_for: a graph of
static shapes without control flow, the grad recorder off), else through the graph executor
(backend/interpreter.run_graph: every op through Primitive.__call__, so gradients are recorded in
PyNative); both give eager's results. Both modes alike: the graph is already compiled, so
GRAPH_MODE does not parse `construct`. A GraphCell called from graph code (a GRAPH_MODE
Cell's construct, a @jit function) has its graph inlined into the caller's graph
(jit/parse/graph_cell.py), so the holder compiles as one graph.
"""
from ..common.abstract import AbstractTensor
from ..common.tensor import Tensor
from ..ir.anf import FuncGraph
from .cell import Cell


class _Lowered:
    """What backend/program.program_for reads and caches its program on."""
    __slots__ = ("graph", "_program")

    def __init__(self, graph):
        self.graph = graph
        self._program = None


class GraphCell(Cell):
    """A Cell whose construct runs a loaded FuncGraph."""
    _graph_cell = True          # the graph-mode parser inlines the graph (jit/parse/graph_cell.py)

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        if not isinstance(graph, FuncGraph):
            raise TypeError(f"For 'GraphCell', the argument 'graph' must be a graph returned "
                            f"by mindlite.load, but got {type(graph).__name__}")
        if obf_random_seed is not None:
            raise ValueError("For 'GraphCell', 'obf_random_seed' (obfuscated models) is not "
                             "supported by mindlite")
        self.graph = graph
        self._inputs = [p for p in graph.parameters if p.default is None]
        weights = [p for p in graph.parameters if p.default is not None]
        if any(p.default is None for p in graph.parameters[len(self._inputs):]):
            raise ValueError("For 'GraphCell', the graph's inputs must come before its weights")
        for p in weights:
            self._params[p.default.name] = p.default
        static = all(isinstance(p.abstract, AbstractTensor) and not p.abstract.is_dynamic
                     for p in graph.parameters)
        self._lowered = _Lowered(graph) if static else None
        if params_init is not None:
            self._init_params(params_init)

    def _init_params(self, params_init):
        if not isinstance(params_init, dict):
            raise TypeError(f"For 'GraphCell', 'params_init' must be a dict, but got "
                            f"{type(params_init).__name__}")
        for name, value in params_init.items():
            param = self._params.get(name)
            if param is None:
                raise ValueError(f"For 'GraphCell', 'params_init' names '{name}', which is not "
                                 f"a parameter of the graph ({sorted(self._params)})")
            if not isinstance(value, Tensor):
                raise TypeError(f"For 'GraphCell', params_init['{name}'] must be a Tensor, but "
                                f"got {type(value).__name__}")
            if tuple(value.shape) != tuple(param.shape) or value.dtype != param.dtype:
                raise ValueError(f"For 'GraphCell', params_init['{name}'] must have shape "
                                 f"{list(param.shape)} and dtype {param.dtype}, but got "
                                 f"{list(value.shape)} and {value.dtype}")
            param.set_data(value)

    def _check_inputs(self, args):
        want = self._inputs
        if len(args) != len(want):
            raise ValueError(f"For 'GraphCell', the graph '{self.graph.name}' takes "
                             f"{len(want)} inputs, but got {len(args)}")
        for i, (a, p) in enumerate(zip(args, want)):
            abstract = p.abstract
            if not isinstance(abstract, AbstractTensor) and isinstance(
                    a, (Tensor, bool, int, float, tuple, list)):
                continue        # a MindSpore file's scalar or sequence input (`mutable`)
            if not isinstance(a, Tensor):
                kind = "a Tensor" if isinstance(abstract, AbstractTensor) else \
                    "a Tensor or a Python scalar or sequence"
                raise TypeError(f"For 'GraphCell', input {i} ('{p.name}') must be {kind}, but "
                                f"got {type(a).__name__}")
            if not isinstance(abstract, AbstractTensor):
                continue
            if a.dtype != abstract.dtype:
                raise TypeError(f"For 'GraphCell', input {i} ('{p.name}') must have dtype "
                                f"{abstract.dtype}, but got {a.dtype}")
            shape = tuple(a.shape)
            if len(shape) != len(abstract.shape) or any(
                    d >= 0 and d != s for d, s in zip(abstract.shape, shape)):
                raise ValueError(f"For 'GraphCell', input {i} ('{p.name}') must have shape "
                                 f"{list(abstract.shape)} (-1: any), but got {list(shape)}")

    def construct(self, *inputs):
        from ..backend.interpreter import run_graph
        from ..backend.program import program_for
        self._check_inputs(inputs)
        weights = [p.default for p in self.graph.parameters[len(self._inputs):]]
        values = list(inputs) + weights
        prog = None
        if self._lowerable():
            try:
                prog = program_for(self._lowered)
            except (TypeError, ValueError, RuntimeError):
                # NOTE: a graph the kernel runner cannot set up stays on the interpreter,
                # which runs any graph (GraphProgram itself records a step the C runner
                # refuses as its `reason`; this guards the lowering around it).
                self._lowered = None
        return prog(values) if prog is not None else run_graph(self.graph, values)

    def _lowerable(self):
        """A graph of static input shapes whose weights still have their loaded abstracts may
        run as a lowered program (kernel_graph.py; what cannot lower runs interpreted)."""
        if self._lowered is None:
            return False
        return all(p.default._abs is p.abstract for p in self.graph.parameters
                   if p.default is not None)

    def _call(self, args, kwargs, eager=False):
        if kwargs:
            raise TypeError(f"For 'GraphCell', inputs are positional, but got keyword "
                            f"arguments {sorted(kwargs)}")
        return self.construct(*args)
