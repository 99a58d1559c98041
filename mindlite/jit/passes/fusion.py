"""The skeleton of the fusion passes: a fusion is data (a Pattern, or a group finder) and this
module runs it over every graph, as tinygrad's rewrite rules and torch.fx's subgraph rewriter
keep the pattern apart from the walk.

    run_patterns(graph, manager, patterns)   chains: an anchor node and the single users
                                             after it (fuse_conv.py, fuse_matmul.py)
    run_fusion(graph, manager, find)         the walk any fusion uses: find(g, ctx) gives
                                             {last node id: (fused node, dropped ids, last)}
                                             per graph (fuse_elementwise.py's groups)
    prim_of, calls, bias_add_step, relu_step the tests the patterns share

A Pattern: `anchor(node)` -> the anchor's facts (None: not an anchor), then `steps` in order,
each a Step(name, test(user, anchor, facts, chain), optional): the single user of the last node
matched so far (the anchor's value, then each step's) must call what `test` accepts; an
optional step that does not match is skipped, a required one ends the match. A node is never
moved past a side-effect node: the chain stops at the first step in another epoch (epochs),
and a match whose required steps are not all there, or that matched no step, is dropped.
`build(g, anchor, facts, chain)` makes the fused CNode (chain: step name -> node).

Every fused node takes the place of the last node of what it replaces (its users then read
it) and the other nodes are dropped: the walk guarantees their values have no other users and
no graph returns them (output_ids).
"""
from ...ir.anf import CNode, FuncGraph, ValueNode
from ...ir.primitive import Primitive
from ...kernels import registry
from ...ops.operations.fused_ops import component

_DATA_FORMATS = ("NCHW", "NHWC")


class Step:
    """One op after the anchor: its name in the chain, the test of the user node, optional."""
    __slots__ = ("name", "test", "optional")

    def __init__(self, name, test, optional=False):
        self.name, self.test, self.optional = name, test, optional


class Pattern:
    """anchor -> steps -> build (see the module docstring)."""
    __slots__ = ("anchor", "steps", "build")

    def __init__(self, anchor, steps, build):
        self.anchor, self.steps, self.build = anchor, tuple(steps), build


class Context:
    """What a finder reads about the graphs: users index, returned node ids, epochs of `g`."""
    __slots__ = ("users", "outputs", "epoch")

    def __init__(self, users, outputs):
        self.users, self.outputs, self.epoch = users, outputs, None


def output_ids(manager):
    """Ids of the nodes some graph returns (a use the users index does not hold)."""
    return {g.output.id for g in manager.graphs() if g.output is not None}


def epochs(graph):
    """node id -> how many side-effect nodes (graph calls included) precede it in
    `graph.order`. A node moved later (into a fused node at its user's place) must not cross
    one: an in-place write (Assign, an optimizer update) in between changes what it reads."""
    out, k = {}, 0
    for n in graph.order:
        callee = n.inputs[0]
        if n.side_effect or isinstance(callee, CNode) or (   # calls of graphs count too
                isinstance(callee, ValueNode) and isinstance(callee.value, FuncGraph)):
            k += 1
        out[n.id] = k
    return out


def single_user(node, ctx):
    """The one user of `node`'s value when it reads it as its first argument in the same graph
    and no graph returns `node`; else None."""
    us = ctx.users.get(node, ())
    if len(us) != 1 or node.id in ctx.outputs:
        return None
    user, index = us[0]
    if index != 1 or user.graph is not node.graph:
        return None
    return user


def value_abstract(node):
    """A node's abstract; a constant tensor's own abstract for a ValueNode holding one."""
    if isinstance(node, ValueNode) and hasattr(node.value, "_abs"):
        return node.value._abs
    return node.abstract


def prim_of(node, names):
    """The name of the framework primitive `node` calls, if it is one of `names` exactly as
    the framework builds it and only built-in kernels are registered for it; else None."""
    if not isinstance(node, CNode) or node.side_effect:
        return None
    callee = node.inputs[0]
    prim = callee.value if isinstance(callee, ValueNode) else None
    if not isinstance(prim, Primitive):
        return None
    name = type(prim).__name__
    if name not in names or prim != component(name):
        return None
    if any(not k.builtin for k in registry.kernels_for(name)):
        return None
    return name



def calls(node, name):
    """`node` calls the framework's own primitive `name` (BiasAdd: in either data format),
    with only built-in kernels registered for it."""
    if name != "BiasAdd":
        return prim_of(node, {name: 0}) == name
    from ...ops.operations.nn_ops import BiasAdd
    callee = node.inputs[0]
    prim = callee.value if isinstance(callee, ValueNode) else None
    if type(prim) is not BiasAdd or node.side_effect:
        return False
    fmt = prim.attrs.get("data_format")
    return (fmt in _DATA_FORMATS and prim == BiasAdd(fmt)
            and all(k.builtin for k in registry.kernels_for("BiasAdd")))


def bias_add_step(formats=_DATA_FORMATS):
    """Step test: a BiasAdd in one of `formats` adding a 1-D bias of the anchor's dtype."""
    def test(node, anchor, facts, chain):
        if not calls(node, "BiasAdd") or len(node.inputs) != 3 \
                or node.inputs[0].value.attrs.get("data_format") not in formats:
            return False
        ab = value_abstract(node.inputs[2])
        return (getattr(ab, "dtype", None) is anchor.abstract.dtype
                and len(getattr(ab, "shape", ())) == 1)
    return test


def relu_step(node, anchor, facts, chain):
    """Step test: a ReLU."""
    return calls(node, "ReLU")


def match_chain(pattern, anchor, facts, ctx):
    """{step name: node} of the chain after `anchor`, or None (see the module docstring)."""
    chain, last = {}, anchor
    for step in pattern.steps:
        user = single_user(last, ctx)
        if user is not None and step.test(user, anchor, facts, chain):
            if ctx.epoch[user.id] != ctx.epoch[anchor.id]:
                break                              # never moved past an in-place write
            chain[step.name] = last = user
        elif not step.optional:
            return None
    required = {s.name for s in pattern.steps if not s.optional}
    if not chain or not required <= set(chain):
        return None
    return chain


def _chain_finder(patterns):
    def find(g, ctx):
        fused = {}
        for node in g.order:
            for pattern in patterns:
                facts = pattern.anchor(node)
                if facts is None:
                    continue
                chain = match_chain(pattern, node, facts, ctx)
                if chain is None:
                    continue
                last = list(chain.values())[-1]
                fused_node = pattern.build(g, node, facts, chain)
                fused[last.id] = (fused_node, {node.id} | {n.id for n in chain.values()}
                                  - {last.id}, last)
                break
        return fused
    return find


def run_patterns(graph, manager, patterns):
    """Fuse every chain matching one of `patterns` in the graphs reachable from `graph`."""
    return run_fusion(graph, manager, _chain_finder(patterns))


def run_fusion(graph, manager, find):
    """The fusion walk: per graph reachable from `graph`, `find(g, ctx)` names what to fuse;
    the fused nodes replace it. True when a graph changed (the pass interface)."""
    changed = False
    ctx = Context(manager.users, output_ids(manager))
    for g in manager.graphs():
        ctx.epoch = epochs(g)
        changed = replace_fused(g, manager, find(g, ctx)) or changed
    if changed:
        manager.rebuild()
    return changed


def replace_fused(g, manager, fused):
    """Put each fused node in place of what it replaces in `g`: `fused` maps the last node's
    id to (fused node, ids of the other nodes, last node). True when it changed g."""
    if not fused:
        return False
    drop = set().union(*(d for _, d, _ in fused.values()))
    g.order = [fused[n.id][0] if n.id in fused else n for n in g.order if n.id not in drop]
    manager.rebuild()                     # index the fused nodes' inputs (other lasts too)
    for node, _, last in fused.values():
        manager.replace(last, node)
    return True
