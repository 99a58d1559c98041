"""LiteModel (the model built from a .ms file) and LiteSession (compile and run), as
MindSpore Lite's LiteModel::ConstructModel and LiteSession::CompileGraph / RunGraph.

    LiteModel.construct_model(data, path) -> LiteModel   read_ms, then ConvertTensors (const
                                                         tensors become mindlite Tensors once)
                                                         and ConvertNodes (every op checked:
                                                         an op mindlite cannot run is an error
                                                         naming the file, the node and the op)
    LiteSession(context).compile_graph(model)            schedules subgraph 0 (scheduler.py)
    session.run(inputs, before, after) -> outputs        env of Tensors through the units, with
                                                         the context's cpu.thread_num forced on
                                                         mindlite's parallel launches and BLAS
    a model whose inputs have dynamic dims (-1) is scheduled once Model.resize gives shapes

Subgraphs called by PartialFusion/Call are scheduled on first call per argument signature.
A main subgraph that is one CPU SubGraph kernel on the C graph runner (no delegate, no
control flow) also gets a DirectRun: the runner's argument list prepared once, so a run
without callbacks is one C call and an output copy (the general path builds an env dict,
walks the units and hands the arena's output buffers off: ~3 us of Python more at batch 1,
measured on LeNet and the 10x256 MLP). A context's thread_num is set around it as around the
general path.
NOTE: the hand-off also costs the next run a fresh buffer for each escaping slot, and a
slot is as large as the largest value planned into it: MobileNetV2's logits share a 1.6 MB
slot with its stem's output, so every general-path predict wrote the stem's output to memory
not touched since two predicts before (the previous result holds the old buffer). Runs with
thread_num (benchmarks/real_models.py sets it) took that path until the direct run took them.
"""
import threading

import numpy as np

from .. import _C
from ..common.abstract import AbstractTensor, abstract_tensor
from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..backend.memory_plan import POOL_ARENAS, Arena
from .graph_build import const_parameter
from .kernel import CALLBACKS, CONTROL_KERNELS, DEPTH
from .ms_file import MsFileError, read_ms
from .ops_map import IMPORT
from .scheduler import Scheduler


class LiteTensor:
    """A model tensor: name, dtype, dims, format, and for a constant its mindlite Tensor."""
    __slots__ = ("name", "dtype", "dims", "format", "const")

    def __init__(self, ms_tensor):
        self.name, self.dtype = ms_tensor.name, ms_tensor.dtype
        self.dims, self.format = list(ms_tensor.dims), ms_tensor.format
        arr = ms_tensor.array()
        self.const = None if arr is None else const_parameter(arr, self.name)


class LiteModel:
    def __init__(self, ms_model, path):
        self.path, self.ms = path, ms_model
        self.name, self.version = ms_model.name, ms_model.version
        self.tensors = [LiteTensor(t) for t in ms_model.tensors]
        self.nodes = ms_model.nodes
        self.subgraphs = ms_model.subgraphs
        self.inputs, self.outputs = ms_model.inputs, ms_model.outputs

    @classmethod
    def construct_model(cls, data, path="<buffer>"):
        ms_model = read_ms(data, path)
        for n in ms_model.nodes:
            if n.op_type not in IMPORT and n.op_type not in CONTROL_KERNELS:
                raise MsFileError(f"{path}: node {n.name!r}: op {n.op_type} is not supported by "
                                  "mindlite's Lite runtime")
        if not ms_model.inputs:
            raise MsFileError(f"{path}: the model has no inputs")
        for t in ms_model.inputs:
            mt = ms_model.tensors[t]
            if mt.data is not None:
                raise MsFileError(f"{path}: input tensor {mt.name!r} is a constant")
        return cls(ms_model, path)


class LiteSession:
    def __init__(self, context):
        self.context = context
        self.model = None
        self.main = None
        self.direct = None
        self._compiled = {}

    def compile_graph(self, model, shapes=None):
        """Schedule the main subgraph for the model's input shapes (or `shapes`)."""
        self.model = model
        self._compiled = {}
        self.direct = None
        self.scheduler = Scheduler(self)
        abstracts = {}
        self.main = None
        self.input_dims = [list(shapes[i]) if shapes is not None else list(model.tensors[t].dims)
                           for i, t in enumerate(model.inputs)]
        if any(d < 0 for dims in self.input_dims for d in dims):
            return None                  # dynamic dims: scheduled by Model.resize
        for i, t in enumerate(model.inputs):
            lt = model.tensors[t]
            dims = self.input_dims[i]
            try:
                abstracts[t] = _abstract(lt.dtype, dims)
            except (TypeError, ValueError) as err:
                raise ValueError(f"{model.path}: input {lt.name!r}: {err}") from None
        self.input_abstracts = [abstracts[t] for t in model.inputs]
        sub = model.subgraphs[0]
        missing = [t for t in sub.inputs if t not in abstracts]
        if missing:
            raise ValueError(f"{model.path}: the main subgraph's inputs {missing} are not model "
                             "inputs")
        self._depth = 0
        self._compiled[(0, _key([abstracts[t] for t in sub.inputs]))] = None
        self.main = self.scheduler.schedule(0, abstracts)
        self._compiled[(0, _key([abstracts[t] for t in sub.inputs]))] = self.main
        self.direct = DirectRun.of(self.main, model.inputs)
        return self.main

    def compiled(self, index, abstracts):
        """The CompiledSubGraph of subgraph `index` for argument abstracts (cached); None
        while that subgraph is being scheduled (a loop calling itself)."""
        key = (index, _key(abstracts))
        hit = self._compiled.get(key, _ABSENT)
        if hit is _ABSENT:
            sub = self.model.subgraphs[index]
            if len(sub.inputs) != len(abstracts):
                raise ValueError(f"{self.model.path}: subgraph {sub.name!r} takes "
                                 f"{len(sub.inputs)} inputs, the PartialFusion passes "
                                 f"{len(abstracts)}")
            if self._depth >= MAX_NESTING:
                raise ValueError(f"{self.model.path}: subgraphs nest more than {MAX_NESTING} "
                                 "deep (recursive control flow is not supported)")
            self._compiled[key] = None                    # recursion guard
            self._depth += 1
            try:
                hit = self.scheduler.schedule(index, dict(zip(sub.inputs, abstracts)))
            finally:
                self._depth -= 1
            self._compiled[key] = hit
        return hit

    def run_subgraph(self, index, args, callbacks=(None, None), depth=1):
        """Run subgraph `index` on `args` for a Call that is not in tail position; `depth`
        counts such calls inside each other (bounded: MAX_CALL_DEPTH)."""
        if depth > MAX_CALL_DEPTH:
            raise ValueError(f"{self.model.path}: subgraph calls nest more than "
                             f"{MAX_CALL_DEPTH} deep (a recursion that is not a loop's tail "
                             "call)")
        compiled = self.compiled(index, [a._abs for a in args])
        if compiled is None:
            raise ValueError(f"{self.model.path}: subgraph {index} runs while it is being "
                             "scheduled")
        env = dict(zip(compiled.inputs, args))
        env[CALLBACKS], env[DEPTH] = callbacks, depth
        return compiled.run(env, self, *callbacks)

    def _direct(self, before=None, after=None):
        """The DirectRun a run takes, or None: a run with callbacks takes the general path."""
        if before is None and after is None:
            return self.direct
        return None

    def _run_direct(self, run, inputs):
        """run(inputs) (a DirectRun's), with the context's thread count for its launches."""
        threads = self.context.cpu.thread_num
        if not threads:
            return run(inputs)
        _thread_override_enter(threads)
        try:
            return run(inputs)
        finally:
            _thread_override_exit()

    def run_arrays(self, inputs, before=None, after=None):
        """run, with the outputs as fresh numpy arrays (Model.predict's)."""
        direct = self._direct(before, after)
        if direct is not None:
            return self._run_direct(direct.arrays, inputs)
        return [o.asnumpy() for o in self.run(inputs, before, after)]

    def run(self, inputs, before=None, after=None):
        """Run the main graph on input Tensors; returns the output Tensors."""
        if self.main is None:
            raise ValueError(f"{self.model.path}: the model's inputs have dynamic dims "
                             f"{self.input_dims}: call Model.resize(inputs, shapes) first")
        direct = self._direct(before, after)
        if direct is not None:
            return self._run_direct(direct, inputs)
        threads = self.context.cpu.thread_num
        env = dict(zip(self.model.inputs, inputs))
        env[CALLBACKS] = (before, after)
        if threads:                  # the context's thread count, for this call's launches
            _thread_override_enter(threads)
        try:
            return self.main.run(env, self, before, after)
        finally:
            if threads:
                _thread_override_exit()


def _copy_tensor(t):
    return _C.wrap(t.asnumpy().copy(), t._abs)


def _copy_array(t):
    return t.asnumpy().copy()


class DirectRun:
    """The main subgraph's one C program called straight from the model's inputs: the
    program's argument list (constants in place, model inputs at their positions) is built
    once; a call copies it, drops the inputs in, runs the C graph runner on an arena of its
    own and copies the outputs out (`picks`: the program output of each model output). What
    the general path does besides (env dict, units, callbacks, the thread override) is not
    needed there.

    NOTE: GraphProgram.__call__ hands the output slots' buffers to the results and refills
    them (a fresh buffer, a view per value sharing the slot) before the next run: ~2-3 us of
    Python a predict. A Lite model's outputs are small next to its weights (10 or 256 floats
    a row here), so copying them out costs less and the arena stays whole between runs. An
    arena is taken from the pool for one call, so threads never share one."""
    __slots__ = ("runner", "kg", "plan", "pool", "args", "slots", "picks")

    def __init__(self, program, args, slots, picks):
        gp = program.prog
        self.runner, self.kg, self.plan = gp.runner, gp.kg, gp.plan
        self.pool = []
        self.args, self.slots, self.picks = args, slots, picks

    @classmethod
    def of(cls, compiled, model_inputs):
        """A DirectRun for `compiled`, or None where it has more than one unit, a unit not on
        the C runner, a constant output or an output the program does not compute."""
        if len(compiled.units) != 1 or compiled.consts:
            return None
        unit = compiled.units[0]
        program = getattr(unit, "program", None)
        if getattr(unit, "arch", None) != "CPU" or program is None or program.prog is None \
                or any(t not in program.outputs for t in compiled.outputs):
            return None
        position = {t: i for i, t in enumerate(model_inputs)}
        args, slots = [], []
        for k, src in enumerate(program.sources):
            if isinstance(src, Tensor):
                args.append(src)
            elif src in position:
                args.append(None)
                slots.append((k, position[src]))
            else:
                return None
        picks = tuple(program.outputs.index(t) for t in compiled.outputs)
        return cls(program, args, tuple(slots), picks)

    def __call__(self, inputs):
        return self.run(inputs, _copy_tensor)

    def arrays(self, inputs):
        """The model outputs as fresh numpy arrays (what Model.predict hands out: no Tensor
        wrapped around them on the way)."""
        return self.run(inputs, _copy_array)

    def run(self, inputs, copy_out):
        args = self.args.copy()
        for k, i in self.slots:
            args[k] = inputs[i]
        pool = self.pool
        try:
            arena = pool.pop()
        except IndexError:
            arena = Arena(self.kg, self.plan)
        try:       # the outputs live in the arena: copied out before it goes back
            outs = self.runner(tuple(args), arena.values)
            return [copy_out(outs[i]) for i in self.picks]
        finally:
            if len(pool) < POOL_ARENAS:
                pool.append(arena)


# NOTE: mindlite's pool size and OpenBLAS's thread count are process-wide: runs that set
# `thread_num` (from several threads at once) share one override, counted, so the first in
# saves the process's settings and the last out restores them (a save/restore per run would
# interleave and could leave the override in place for good).
_OVERRIDE_LOCK = threading.Lock()
_OVERRIDE = {"depth": 0, "saved": None}


def _thread_override_enter(threads):
    with _OVERRIDE_LOCK:
        prev, prev_blas = _C.get_num_threads(), _C.blas_threads_local(threads)
        if _OVERRIDE["depth"] == 0:
            _OVERRIDE["saved"] = (prev, prev_blas)
        _OVERRIDE["depth"] += 1
        _C.set_num_threads(threads)


def _thread_override_exit():
    with _OVERRIDE_LOCK:
        _OVERRIDE["depth"] -= 1
        if _OVERRIDE["depth"] == 0:
            prev, prev_blas = _OVERRIDE["saved"]
            _C.set_num_threads(prev)
            _C.blas_threads_local(max(prev_blas, 0))


_ABSENT = object()
MAX_CALL_DEPTH = 100           # non-tail Calls running inside each other
MAX_NESTING = 64               # subgraph calls scheduled inside each other
MAX_ELEMENTS = 1 << 34          # a larger input is a damaged file, not a model to allocate


def _abstract(dtype, dims):
    dims = tuple(int(d) for d in dims)
    if int(np.prod(dims, dtype=np.float64)) > MAX_ELEMENTS:
        raise ValueError(f"input shape {list(dims)} has more than {MAX_ELEMENTS} elements")
    return abstract_tensor(mstype.to_type(np.dtype(dtype)), dims)


def _key(abstracts):
    return tuple((a.dtype, tuple(a.shape)) if isinstance(a, AbstractTensor) else repr(a)
                 for a in abstracts)
