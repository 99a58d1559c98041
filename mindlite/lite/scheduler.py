"""The Lite scheduler (MindSpore Lite's Scheduler::Schedule): one subgraph of the model, for
given input shapes, into a list of runnable units.

    Scheduler(session).schedule(index, abstracts) -> CompiledSubGraph

Steps, as Lite's:
  1. topological sort of the subgraph's nodes (by tensor availability, file order kept
     among ready nodes); a node whose input nothing computes is an error naming it
  2. one kernel per node: control nodes (PartialFusion, Switch, Call) get control kernels,
     every other node a LiteKernel, prepared for its input shapes (kernel selection through
     mindlite's registry, output shape inference); a Call's subgraphs are scheduled for the
     partial's argument shapes to learn its output shapes
  3. the context's delegate (delegate.py) may replace runs of kernels with its own kernels;
     a delegate that fails to build is skipped with a warning
  4. consecutive kernels of one arch become a SubGraphKernel; CPU ones compile into one
     program with preplanned buffers (graph_build.py)
"""
import warnings

from .kernel import (CALLBACKS, CONTROL_KERNELS, DEPTH, CallBackParam, CallKernel,
                     LiteKernel, SubGraphKernel)


class CompiledSubGraph:
    """Units to run in order, the subgraph's input/output tensor indices and output shapes."""

    def __init__(self, index, units, inputs, outputs, out_abstracts, consts=None, folded=None):
        self.index, self.units = index, units
        self.consts = consts or {}          # outputs that are constant tensors
        self.folded = folded or {}          # tensors computed at build, read by control units
        self.inputs, self.outputs, self.out_abstracts = inputs, outputs, out_abstracts

    @property
    def kernels(self):
        return [k for u in self.units for k in getattr(u, "kernels", [u])]

    def run(self, env, session, before=None, after=None):
        """Run the units; a Call in tail position (its outputs are the subgraph's) continues
        in the called subgraph without recursion, so a loop runs any number of times."""
        sub = self
        while True:
            if sub.folded:
                env.update(sub.folded)
            units = sub.units
            tail = bool(units) and isinstance(units[-1], CallKernel) and \
                units[-1].out_tensors == sub.outputs
            for u in (units[:-1] if tail else units):
                _step(u, env, session, before, after)
            if not tail:
                outs = [sub.consts[t] if t in sub.consts else env[t] for t in sub.outputs]
                if sub is not self:        # after tail calls: what self's Call expects
                    self.units[-1].check(outs)
                return outs
            call = units[-1]
            if before is not None:
                before([], [], CallBackParam(call.name, call.type))
            bound = call.bound(env)
            nxt = session.compiled(bound.index, [a._abs for a in bound.args])
            env = {CALLBACKS: env[CALLBACKS], DEPTH: env.get(DEPTH, 0),
                   **dict(zip(nxt.inputs, bound.args))}
            sub = nxt


def _step(u, env, session, before, after):
    if isinstance(u, SubGraphKernel) and u.arch == "CPU":
        u.execute(env, session, before, after)
        return
    info = CallBackParam(u.name, u.type)
    if before is not None:
        before([env[t] for t in u.runtime_inputs()], [], info)
    u.execute(env, session)
    if after is not None:
        after([env[t] for t in u.runtime_inputs()],
              [env[t] for t in u.out_tensors if t in env], info)


class Scheduler:
    def __init__(self, session):
        self.session = session
        self.model = session.model

    def sort(self, sub):
        """Nodes of subgraph `sub` in a topological order."""
        model = self.model
        ready = set(sub.inputs) | {t for t, lt in enumerate(model.tensors) if lt.const is not None}
        pending = list(sub.nodes)
        order = []
        while pending:
            rest = []
            for n in pending:
                node = model.nodes[n]
                if all(t in ready for t in node.inputs):
                    order.append(node)
                    ready.update(node.outputs)
                else:
                    rest.append(n)
            if len(rest) == len(pending):
                node = model.nodes[rest[0]]
                missing = [model.tensors[t].name for t in node.inputs if t not in ready]
                raise ValueError(f"{model.path}: subgraph {sub.name!r}: node {node.name!r} "
                                 f"(op {node.op_type}) has inputs {missing} that no node "
                                 "computes (a cycle or a dangling tensor)")
            pending = rest
        return order

    def schedule(self, index, abstracts):
        sub = self.model.subgraphs[index]
        abstracts = dict(abstracts)
        kernels, folded = [], {}
        for node in self.sort(sub):
            cls = CONTROL_KERNELS.get(node.op_type)
            if cls is None:
                k = LiteKernel(self.model, node, folded)
                outs = k.prepare(abstracts)
                values = k.fold()
                if values is not None:        # known at build: its users take constants
                    folded.update(zip(node.outputs, values))
                    abstracts.update(zip(node.outputs, outs))
                    continue
            else:
                k = cls(self.model, node)
                outs = self._control_abstracts(k, abstracts)
            abstracts.update(zip(node.outputs, outs))
            kernels.append(k)
        kernels = self._delegate(kernels, abstracts, sub.outputs, folded)
        units = self._group(kernels)
        needed = set(sub.outputs)
        for u in reversed(units):
            if isinstance(u, SubGraphKernel):
                u.prepare(abstracts, needed, folded)
            needed.update(u.in_tensors if isinstance(u, SubGraphKernel) else u.runtime_inputs())
        consts = {t: self.model.tensors[t].const for t in sub.outputs if t not in abstracts
                  and self.model.tensors[t].const is not None}   # a constant output (x, 5)
        consts.update((t, folded[t]) for t in sub.outputs if t in folded)
        abstracts.update((t, c._abs) for t, c in consts.items())
        missing = [t for t in sub.outputs if t not in abstracts]
        if missing:
            raise ValueError(f"{self.model.path}: subgraph {sub.name!r} outputs tensors {missing} "
                             "that no node computes")
        return CompiledSubGraph(index, units, list(sub.inputs), list(sub.outputs),
                                [abstracts[t] for t in sub.outputs], consts,
                                {t: v for t, v in folded.items() if t in needed})

    def _control_abstracts(self, k, abstracts):
        node = k.node
        consts = self.model.tensors
        ins = [consts[t].const._abs if consts[t].const is not None else abstracts[t]
               for t in node.inputs]
        handles = [isinstance(a, tuple) for a in ins]
        n_out = {"PartialFusion": 1, "Switch": 1}.get(node.op_type, len(node.outputs))
        shape_ok = {"PartialFusion": not any(handles),
                    "Switch": handles == [False, True, True],
                    "Call": handles == [True] and len(node.outputs) > 0}[node.op_type]
        if not shape_ok or len(node.outputs) != n_out:
            raise ValueError(f"{self.model.path}: node {node.name!r} (op {node.op_type}) has "
                             f"{len(ins)} inputs ({sum(handles)} partials) and "
                             f"{len(node.outputs)} outputs, which is not a valid "
                             f"{node.op_type}")
        if node.op_type == "PartialFusion":
            k.arg_abstracts = ins
            return [("partial", node.attrs["sub_graph_index"], ins)]
        if node.op_type == "Switch":
            return [("switch",) + tuple(ins[1:])]
        handle = ins[0]
        partials = handle[1:] if handle[0] == "switch" else (handle,)
        compiled = [self.session.compiled(p[1], p[2]) for p in partials]
        results = [c.out_abstracts for c in compiled if c is not None]
        if not results:               # only a subgraph being scheduled: a loop's recursion
            results = [self._declared(node)]
        first = results[0]
        for other in results[1:]:
            if [(a.dtype, tuple(a.shape)) for a in other] != \
                    [(a.dtype, tuple(a.shape)) for a in first]:
                raise ValueError(f"{self.model.path}: node {node.name!r} (Call): the branches "
                                 f"give different outputs: {first} vs {other}")
        if len(first) != len(node.outputs):
            raise ValueError(f"{self.model.path}: node {node.name!r} (Call) has "
                             f"{len(node.outputs)} outputs, its subgraph gives {len(first)}")
        k.out_abstracts = first
        return first

    def _declared(self, node):
        """The output abstracts a recursive Call's tensors declare in the file (a loop keeps
        its shapes; CallKernel checks them at run time)."""
        from .session import _abstract
        outs = []
        for t in node.outputs:
            lt = self.model.tensors[t]
            if any(d < 0 for d in lt.dims):
                raise ValueError(f"{self.model.path}: node {node.name!r} (Call) calls a "
                                 f"subgraph recursively, and its output {lt.name!r} has no "
                                 f"static shape ({lt.dims})")
            outs.append(_abstract(lt.dtype, lt.dims))
        return outs

    def _delegate(self, kernels, abstracts, outputs, folded):
        delegate = self.session.context.delegate
        if delegate is None:
            return kernels
        from .delegate import DelegateModel
        dm = DelegateModel(self.model, kernels, abstracts, outputs, folded)
        try:
            if delegate.init() is False:
                raise RuntimeError("init() returned False")
            delegate.build(dm)
        except Exception as err:          # a delegate's failure must not lose the model
            warnings.warn(f"MindSpore Lite delegate {type(delegate).__name__} failed to build "
                          f"({type(err).__name__}: {err}); mindlite's kernels run the whole "
                          "graph instead", RuntimeWarning, stacklevel=4)
            return kernels
        return dm.kernels

    @staticmethod
    def _group(kernels):
        units, run = [], []
        for k in kernels:
            if k.arch == "CPU":
                run.append(k)
                continue
            if run:
                units.append(SubGraphKernel(run[0].model, run))
                run = []
            units.append(k)
        if run:
            units.append(SubGraphKernel(run[0].model, run))
        return units
