"""Conv2D epilogue fusion for the large convolutions: `Conv2D(x, w)` followed by any of
`BiasAdd(., bias)`, `Add(., residual)` and `ReLU` / `ReLU6` / `Minimum(Maximum(., lo), hi)`
(ONNX's Clip as imported; lo and hi stay inputs, read at run time), in that order (what a
Lite model's Conv2DFusion / AddFusion nodes, nn.Conv2d + nn.ReLU6 and ResNet's
`relu(bn(conv(x)) + x)` with the BatchNorm folded come to), becomes one CNode calling
FusedConvAct (conv_fused_ops.py), whose kernel applies the bias, the residual and the
activation in the convolution engine's output loop: one pass over the output instead of up
to four, and no intermediate tensors.

    run(graph, manager) -> bool      (the pass interface; True when the graph changed)

This covers the Conv2D nodes eager runs through the convolution engine or the depthwise kernel
(kernels/cpu/conv_engine_cpp.py, conv_depthwise_cpp.py); LeNet-size ones are
conv_biasadd_fusion's (fuse_conv.py), which runs first. Fused when: every value but the last
has that one user and no graph returns it, each op is the framework's own primitive with only
built-in kernels, the dtype is float32 / float64 and the shapes static, BiasAdd is NCHW with a
1-D bias of the output's dtype, the residual has the output's shape and dtype (no
broadcasting), and no side-effect node lies between the Conv2D and the last fused node. The
fused kernel computes bit for bit what the unfused kernels give.
"""
from ...ir.anf import CNode, ValueNode
from ...ops.operations.conv_fused_ops import FLOAT_DTYPES, FusedConvAct
from .fusion import bias_add_step, calls, run_fusion, single_user
from .fusion import value_abstract as _abstract


def _engine_selected(x, w):
    from ...kernels import registry
    from ...kernels.cpu._cext import _C
    try:
        kdef = registry.select_kernel("Conv2D", "CPU", x.dtype, input_abstracts=(x, w))
    except (TypeError, NotImplementedError, ValueError):
        return False
    return kdef.fn in (_C.conv_forward, _C.conv_depthwise_forward)


def _conv(node):
    """FusedConvAct's geometry attributes of `node` when it is a plain float Conv2D call that
    eager runs through the engine or the depthwise kernel, else None."""
    if not isinstance(node, CNode) or node.side_effect or len(node.inputs) != 3:
        return None
    prim = node.inputs[0].value if isinstance(node.inputs[0], ValueNode) else None
    from ...kernels import registry
    from ...ops.operations.conv_ops import Conv2D
    if type(prim) is not Conv2D:
        return None
    a = prim.attrs
    pad = a["pad"] if a["pad_mode"] == "pad" else 0
    attrs = (a["out_channel"], a["kernel_size"], a["pad_mode"], pad, a["stride"],
             a["dilation"], a["group"])
    if prim != Conv2D(attrs[0], attrs[1], 1, *attrs[2:]) or any(
            not k.builtin for k in registry.kernels_for("Conv2D")):
        return None
    x, w = _abstract(node.inputs[1]), _abstract(node.inputs[2])
    if getattr(node.abstract, "dtype", None) not in FLOAT_DTYPES or not _engine_selected(x, w):
        return None
    return attrs


_BIAS_NCHW = bias_add_step(("NCHW",))


def _next(node, ctx, same):
    """The single user of `node` (read as its first argument) in `node`'s epoch, or None."""
    user = single_user(node, ctx)
    return user if user is not None and ctx.epoch[user.id] == same else None


def _residual_add(node, ctx, same):
    """(Add node, residual input) when the one user of `node` is an Add of it (either side)
    and a tensor of its shape and dtype, else (None, None)."""
    us = ctx.users.get(node, ())
    if len(us) != 1 or node.id in ctx.outputs:
        return None, None
    add, index = us[0]
    if add.graph is not node.graph or index not in (1, 2) or len(add.inputs) != 3 or \
            not calls(add, "Add") or add.inputs[1] is add.inputs[2] or ctx.epoch[add.id] != same:
        return None, None
    other = add.inputs[3 - index]
    mine, theirs = node.abstract, _abstract(other)
    if getattr(theirs, "dtype", None) is not mine.dtype or \
            tuple(getattr(theirs, "shape", ())) != tuple(mine.shape):
        return None, None
    return add, other


def _scalar_like(node, dtype):
    """A Python number, or a tensor of one element of `dtype` (a Clip bound)."""
    if isinstance(node, ValueNode) and type(node.value) in (int, float):
        return True
    ab = _abstract(node)
    return getattr(ab, "dtype", None) is dtype and tuple(getattr(ab, "shape", (0,))) in ((), (1,))


def _clip(last, ctx, same):
    """(Maximum node, Minimum node, lo, hi) when `last`'s one user is Maximum(last, lo) and
    that one's is Minimum(., hi), lo / hi scalars (ONNX's Clip as imported), else None."""
    mx = _next(last, ctx, same)
    if mx is None or not calls(mx, "Maximum") or len(mx.inputs) != 3:
        return None
    mn = _next(mx, ctx, same)
    if mn is None or not calls(mn, "Minimum") or len(mn.inputs) != 3:
        return None
    lo, hi, dtype = mx.inputs[2], mn.inputs[2], last.abstract.dtype
    if lo is last or hi is mx or not (_scalar_like(lo, dtype) and _scalar_like(hi, dtype)):
        return None
    return mx, mn, lo, hi


def _chain(conv, ctx, claimed):
    """(bias, BiasAdd, Add, residual, activation nodes, activation name, clip bounds) after
    `conv`; the parts that do not apply are None / (). An Add another chain took already (a
    ResNet block's sum of two convolutions) ends this one before it."""
    same = ctx.epoch[conv.id]
    bias_add = _next(conv, ctx, same)
    if bias_add is not None and not _BIAS_NCHW(bias_add, conv, None, {}):
        bias_add = None
    bias = bias_add.inputs[2] if bias_add is not None else None
    add, residual = _residual_add(bias_add or conv, ctx, same)
    if add is not None and add.id in claimed:
        return bias, bias_add, None, None, (), "none", ()
    last = add or bias_add or conv
    act = _next(last, ctx, same)
    for op, attr in (("ReLU", "relu"), ("ReLU6", "relu6")):
        if act is not None and calls(act, op):
            return bias, bias_add, add, residual, (act,), attr, ()
    clip = _clip(last, ctx, same)
    if clip is not None:
        return bias, bias_add, add, residual, clip[:2], "clip", clip[2:]
    return bias, bias_add, add, residual, (), "none", ()


def _find(g, ctx):
    fused = {}                                   # last node id -> (fused node, dropped ids)
    claimed = set()                              # ids of the nodes a chain took
    for conv in g.order:
        attrs = _conv(conv)
        if attrs is None:
            continue
        bias, bias_add, add, residual, acts, name, bounds = _chain(conv, ctx, claimed)
        last = acts[-1] if acts else add or bias_add
        if last is None:
            continue
        claimed.update(n.id for n in (conv, bias_add, add, *acts) if n is not None)
        prim = FusedConvAct(*attrs, bias is not None, residual is not None, name)
        inputs = [ValueNode(prim, prim), conv.inputs[1], conv.inputs[2]]
        inputs += [n for n in (bias, residual) if n is not None] + list(bounds)
        node = CNode(g, inputs, last.abstract, last.debug, last.name)
        drop = {n.id for n in (conv, bias_add, add, *acts) if n is not None} - {last.id}
        fused[last.id] = (node, drop, last)
    return fused


def run(graph, manager):
    """Fuse every engine-sized Conv2D -> BiasAdd / Add / ReLU(6) / Clip chain reachable from
    `graph` (fusion.py's walk; the residual Add may read the chain on either side, which a
    Pattern's single-user steps do not allow)."""
    return run_fusion(graph, manager, _find)
