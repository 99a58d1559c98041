"""algebraic_simplify: rewrites as data (a primitive name and its rule, side by side), run
to a fixpoint. Each rule looks at one pure CNode and returns what replaces it, or None:

    Mul(x, 1), Mul(1, x), Add(x, 0), Add(0, x), Sub(x, 0), Div/RealDiv(x, 1)   -> x
        only when the result has x's dtype and shape (no promotion, no broadcast)
    Neg(Neg(x))                                  -> x
    Reshape(x, s) with s x's shape               -> x
    Reshape(Reshape(x, s1), s2)                  -> Reshape(x, s2)
    Transpose(x, identity)                       -> x
    Transpose(Transpose(x, p1), p2)              -> Transpose(x, p1[p2])   (-> x if identity)
    Cast(x, x's dtype)                           -> x
    TupleGetItem(MakeTuple(a0, a1, ...), i)      -> ai

NOTE: x + 0 -> x keeps a -0.0 input's sign where eager's addition gives +0.0 (MindSpore's
arithmetic simplification does the same); the values compare equal.
"""
from ...ir.anf import MAKE_TUPLE, TUPLE_GETITEM, CNode, ValueNode
from .common import MAX_ROUNDS, Editor, const_equals, is_pure, new_like, prim_of, same_abstract

RULES = {}


def rule(*names):
    def deco(fn):
        for n in names:
            RULES.setdefault(n, []).append(fn)
        return fn
    return deco


def _calls(node, name):
    """`node` is a pure CNode calling the primitive `name`."""
    if not isinstance(node, CNode) or not is_pure(node):
        return False
    prim = prim_of(node)
    return prim is not None and prim.name == name


@rule("Mul")
def _mul_one(node, x, y):
    return _identity_operand(node, ((x, y), (y, x)), 1)


@rule("Add")
def _add_zero(node, x, y):
    return _identity_operand(node, ((x, y), (y, x)), 0)


@rule("Sub")
def _sub_zero(node, x, y):
    return _identity_operand(node, ((x, y),), 0)


@rule("Div", "RealDiv")
def _div_one(node, x, y):
    return _identity_operand(node, ((x, y),), 1)


def _identity_operand(node, pairs, number):
    for keep, const in pairs:
        if const_equals(const, number) and same_abstract(node.abstract, keep.abstract):
            return keep
    return None


@rule("Neg")
def _neg_neg(node, x):
    if _calls(x, "Neg") and same_abstract(node.abstract, x.inputs[1].abstract):
        return x.inputs[1]
    return None


@rule("Reshape")
def _reshape(node, x, shape):
    if same_abstract(node.abstract, x.abstract) and sum(d < 0 for d in x.abstract.shape) < 2:
        return x                     # (two dynamic dims: (-1, -1) -> (-1, -1) may transpose)
    if _calls(x, "Reshape"):
        return new_like(node, [node.inputs[0], x.inputs[1], shape])
    return None


def _perm(node, n):
    if not isinstance(node, ValueNode) or not isinstance(node.value, (tuple, list)):
        return None
    perm = node.value
    if len(perm) != n or not all(isinstance(p, int) for p in perm):
        return None
    return tuple(p % n for p in perm) if n else ()


@rule("Transpose")
def _transpose(node, x, perm):
    n = len(node.abstract.shape)
    p2 = _perm(perm, n)
    if p2 is None:
        return None
    if p2 == tuple(range(n)):
        return x
    if _calls(x, "Transpose"):
        p1 = _perm(x.inputs[2], n)
        if p1 is None:
            return None
        composed = tuple(p1[j] for j in p2)
        inner = x.inputs[1]
        if composed == tuple(range(n)):
            return inner if same_abstract(node.abstract, inner.abstract) else None
        return new_like(node, [node.inputs[0], inner, ValueNode(composed, composed)])
    return None


@rule("Cast")
def _cast(node, x, dtype):
    return x if same_abstract(node.abstract, x.abstract) else None


def simplify(node):
    """What replaces `node`, or None."""
    if not is_pure(node):
        return None
    callee = node.inputs[0].value
    args = node.inputs[1:]
    if callee is TUPLE_GETITEM:
        seq, index = args
        if isinstance(seq, CNode) and isinstance(seq.inputs[0], ValueNode) and \
                seq.inputs[0].value is MAKE_TUPLE and isinstance(index, ValueNode) and \
                isinstance(index.value, int) and 0 <= index.value < len(seq.inputs) - 1:
            return seq.inputs[1 + index.value]
        return None
    prim = prim_of(node)
    if prim is None:
        return None
    for fn in RULES.get(prim.name, ()):
        try:
            out = fn(node, *args)
        except TypeError:            # a rule for another arity of the same name
            out = None
        if out is not None:
            return out
    return None


def run(root, manager):
    changed = False
    for _ in range(MAX_ROUNDS):
        editor = Editor(manager)
        swept = False
        for g in editor.graphs:
            order, replaced = [], False
            for node in g.order:
                new = simplify(node)
                fresh = isinstance(new, CNode) and new.graph is g and not _placed(new)
                if new is not None and editor.replace(node, new):
                    replaced = True
                    if fresh:
                        editor.add_uses(new)
                        order.append(new)
                    continue
                order.append(node)
            if replaced:
                g.order = order
            swept |= replaced
        if not swept:
            break
        changed = True
    return changed


def _placed(node):
    """A node made by a rule (new_like) is not yet in its graph's order; one that is has
    users or an order position already (found via its graph)."""
    return any(n is node for n in node.graph.order)
