"""The Lite runtime's kernels (MindSpore Lite's kernel::KernelExec and SubGraphKernel).

    LiteKernel        one compute node: prepare() builds its mindlite graph (kernels picked
                      from mindlite's registry: provider and Custom kernels included) and
                      infers its output shapes; execute(env) runs it alone
    SubGraphKernel    consecutive kernels of one arch: on "CPU" one program over all of them
                      (mindlite's fusions across kernel borders, buffers planned once);
                      a delegate's kernel (delegate.py) is its own arch
    PartialKernel     PartialFusion: binds a subgraph index to its input tensors
    SwitchKernel      Switch(cond, partial_true, partial_false): picks a partial
    CallKernel        Call(partial): runs the picked subgraph (LiteSession.run_subgraph)
    CallBackParam     what a KernelCallBack gets: node_name, node_type (MSCallBackParam)

Tensors live in `env`, a dict tensor index -> mindlite Tensor (a partial: a _Bound), one per
call (so calls in several threads never share one); env[CALLBACKS] holds the call's
(before, after) KernelCallBacks, env[DEPTH] how many non-tail Calls it runs inside.
"""
from .graph_build import GraphBuilder, LiteBuildError


CALLBACKS = "callbacks"
DEPTH = "depth"


class CallBackParam:
    """MindSpore Lite's MSCallBackParam: the kernel a callback is called around."""
    __slots__ = ("node_name", "node_type")

    def __init__(self, node_name, node_type):
        self.node_name, self.node_type = node_name, node_type

    def __repr__(self):
        return f"CallBackParam({self.node_name!r}, {self.node_type!r})"


class LiteKernel:
    arch = "CPU"

    def __init__(self, model, node, folded=None):
        self.model, self.node = model, node
        self.name, self.type = node.name, node.op_type
        self.in_tensors, self.out_tensors = list(node.inputs), list(node.outputs)
        self.folded = {} if folded is None else folded     # the scheduler's build-time values
        self.program = None
        self.out_abstracts = None
        self.constants = None

    def runtime_inputs(self):
        return [t for t in self.in_tensors
                if self.model.tensors[t].const is None and t not in self.folded]

    def prepare(self, abstracts):
        """Build and compile this node for the input abstracts; returns its output ones."""
        b = GraphBuilder(self.model, self.name, abstracts, self.folded)
        self.out_abstracts = b.add(self.node)
        self.constants = [b.constant(t) for t in self.out_tensors]
        try:
            self.program = b.compile(self.out_tensors)
        except (NotImplementedError, TypeError, ValueError, RuntimeError) as err:
            raise LiteBuildError(f"{self.model.path}: node {self.name!r} (op {self.type}): no "
                                 f"kernel can run it: {type(err).__name__}: {err}") from err
        return self.out_abstracts

    def fold(self):
        """The output Tensors when they are known at build (every input constant, or a rule
        that gives constants, as Shape's on a static shape), else None. Custom nodes are
        never folded: their kernel is the user's."""
        if self.type == "Custom":
            return None
        if all(c is not None for c in self.constants):
            return list(self.constants)
        if self.runtime_inputs():
            return None
        return list(self.program({}))

    @property
    def selected(self):
        """[(mindlite primitive name, kernel provider)] of the kernels this node runs."""
        if self.program.selected is None:
            return [(self.type, "interpreter")]
        return [(p.name, getattr(k, "provider", "eager")) for p, k in self.program.selected]

    def execute(self, env, session=None):
        for t, v in zip(self.out_tensors, self.program(env)):
            env[t] = v

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {self.type}, arch={self.arch})"


class SubGraphKernel:
    """Kernels of one arch run in order; a CPU one compiles them as one program."""

    def __init__(self, model, kernels, arch="CPU"):
        self.model, self.kernels, self.arch = model, list(kernels), arch
        self.name = f"{arch}SubGraph({kernels[0].name}..{kernels[-1].name})"
        self.type = "SubGraph"
        self.program = None
        produced = {t for k in kernels for t in k.out_tensors}
        self.in_tensors = list(dict.fromkeys(t for k in kernels for t in k.runtime_inputs()
                                             if t not in produced))
        self.out_tensors = [t for k in kernels for t in k.out_tensors]

    def prepare(self, abstracts, needed, folded=None):
        """Compile all kernels as one program giving the tensors in `needed` (used later)."""
        self.out_tensors = [t for t in self.out_tensors if t in needed]
        if self.arch != "CPU" or not self.out_tensors:
            return
        b = GraphBuilder(self.model, self.name, abstracts, folded)
        for k in self.kernels:
            b.add(k.node)
        self.program = b.compile(self.out_tensors)

    def execute(self, env, session=None, before=None, after=None):
        if before is None and after is None and self.program is not None:
            for t, v in zip(self.out_tensors, self.program(env)):
                env[t] = v
            return
        for k in self.kernels:
            info = CallBackParam(k.name, k.type)
            if before is not None:
                before([env[t] for t in k.runtime_inputs()], [], info)
            k.execute(env, session)
            if after is not None:
                after([env[t] for t in k.runtime_inputs()], [env[t] for t in k.out_tensors],
                      info)

    def __repr__(self):
        return f"SubGraphKernel({self.arch}, {[k.name for k in self.kernels]})"


class _Bound:
    """A PartialFusion's value: a subgraph index with its argument Tensors."""
    __slots__ = ("index", "args")

    def __init__(self, index, args):
        self.index, self.args = index, args


class ControlKernel(LiteKernel):
    arch = "Control"

    def prepare(self, abstracts):
        return None

    def runtime_inputs(self):
        return list(self.in_tensors)


class PartialKernel(ControlKernel):
    def runtime_inputs(self):
        return [t for t in self.in_tensors if self.model.tensors[t].const is None]

    def execute(self, env, session=None):
        tensors = self.model.tensors
        env[self.out_tensors[0]] = _Bound(self.node.attrs["sub_graph_index"], [
            tensors[t].const if tensors[t].const is not None else env[t]
            for t in self.in_tensors])


class SwitchKernel(ControlKernel):
    def execute(self, env, session=None):
        cond, yes, no = (env[t] for t in self.in_tensors)
        flag = cond.asnumpy()
        if flag.size != 1:
            raise ValueError(f"Switch {self.name!r}: the condition must have one element, but "
                             f"has shape {flag.shape}")
        env[self.out_tensors[0]] = yes if bool(flag.reshape(())) else no


class CallKernel(ControlKernel):
    def bound(self, env):
        bound = env[self.in_tensors[0]]
        if not isinstance(bound, _Bound):
            raise ValueError(f"Call {self.name!r}: its input is not a PartialFusion's value")
        return bound

    def check(self, outs):
        """The called subgraph's outputs against what scheduling assumed."""
        want = self.out_abstracts
        got = [(o._abs.dtype, tuple(o._abs.shape)) for o in outs]
        if len(outs) != len(self.out_tensors) or got != [(a.dtype, tuple(a.shape))
                                                         for a in want]:
            raise ValueError(f"Call {self.name!r}: the subgraph gives {got}, but the model "
                             f"declares {[(a.dtype, tuple(a.shape)) for a in want]}")

    def execute(self, env, session=None):
        bound = self.bound(env)
        outs = session.run_subgraph(bound.index, bound.args, env[CALLBACKS],
                                    env.get(DEPTH, 0) + 1)
        self.check(outs)
        for t, v in zip(self.out_tensors, outs):
            env[t] = v


CONTROL_KERNELS = {"PartialFusion": PartialKernel, "Switch": SwitchKernel, "Call": CallKernel}
