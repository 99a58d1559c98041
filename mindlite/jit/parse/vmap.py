"""ops.vmap met by the graph-mode parser (a vmap'd function called in graph code, or given to
jit): the same transform as eager's (jit/vmap.py), made of graph nodes.

The mapped function is parsed once for one example, at compile time (jit/vmap._parse, on
zero Tensors of the example abstracts); its primitive calls are replayed through the same
batch rules (vmap_rules.apply), which the parser parses and inlines like any Python code,
so each rule's primitive calls on batched values become nodes of the graph being built.
The batch axis is moved first and the results placed where out_axes asks, as eager does.
"""
from ...common.abstract import AbstractTensor, abstract_tensor


def call_vmap(parser, spec, args, kwargs):
    from ...ops.function import vmap_rules
    from ..ad.transform import zeros_of
    fn, in_axes, out_axes = spec.fn, spec.in_axes, spec.out_axes
    api = "vmap"
    if kwargs:
        raise parser.error(TypeError(f"For '{api}', the vmapped function takes positional "
                                     f"arguments only, but got {sorted(kwargs)}"))
    try:
        axes = spec.axes_tree(api, in_axes, args)
    except ValueError as err:
        raise parser.error(err) from None
    examples, values, sizes = [], [], set()
    for a, ax in zip(args, axes):
        ab = parser.abstract_of(a)
        if not isinstance(ab, AbstractTensor):
            examples.append(a)
            values.append(None)
            continue
        if ax is None:                         # unmapped: a stand-in of its own abstract
            examples.append(zeros_of(ab))
            values.append(None)
            continue
        nd = len(ab.shape)
        if not -nd <= ax < nd:
            raise parser.error(ValueError(f"For '{api}', in_axes {ax} is out of range for an "
                                          f"argument of shape {tuple(ab.shape)}"))
        ax %= nd
        if ab.shape[ax] < 0:
            raise parser.unsupported("vmap over a dynamic dimension")
        moved = parser.call_function(vmap_rules.move_to_front, (a, ax), {})
        examples.append(zeros_of(abstract_tensor(
            ab.dtype, tuple(d for i, d in enumerate(ab.shape) if i != ax))))
        values.append(moved)
        sizes.add(ab.shape[ax])
    if len(sizes) != 1:
        raise parser.error(ValueError(
            f"For '{api}', the mapped axes must have one size and at least one argument must "
            f"be mapped, but got sizes {sorted(sizes)}"))
    try:
        graph, template = spec.parse(fn, examples)
    except (TypeError, ValueError, NotImplementedError) as err:
        raise parser.error(err) from None
    env = {}
    it = iter(zip(args, values))
    for p in graph.parameters:
        if p.default is not None:                # a Parameter read by fn: not mapped
            env[p.id] = (parser.param_node(p.default), None)
            continue
        arg, moved = next(it)
        while not isinstance(parser.abstract_of(arg), AbstractTensor):
            arg, moved = next(it)
        env[p.id] = (moved, 0) if moved is not None else (arg, None)

    def apply(prim, pairs):
        return parser.call_function(vmap_rules.apply, (prim, list(pairs)), {})

    def place(value, bdim, axis, size=None):
        return parser.call_function(vmap_rules.place, (value, bdim, axis, size), {})
    try:
        out = spec.run(graph, env, apply)
        return spec.place(api, out, template, out_axes, sizes.pop(), place)
    except NotImplementedError as err:
        raise parser.unsupported(str(err)) from None

