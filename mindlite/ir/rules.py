"""The rule registries of primitives, keyed by primitive class, below every executor: eager's
grad recorder (pynative/grad.py), graph autodiff (jit/ad) and the graph passes read them; the
op families (ops/operations/*) fill them next to each primitive's definition.

    BPROPS              class -> bprop(prim, *inputs, out, dout) -> input grads   (@bprop_for)
    NON_DIFFERENTIABLE  classes whose outputs carry no gradient          (non_differentiable)
    SIDE_EFFECTS        names of primitives that write their inputs in place or draw random
                        numbers; has_side_effect(prim) also reads the primitive's own marks
"""
BPROPS = {}                 # primitive class -> bprop(prim, *inputs, out, dout) -> tuple
NON_DIFFERENTIABLE = set()  # primitive classes whose outputs carry no gradient


def bprop_for(*prim_classes):
    """Decorator: register the bprop rule of one or more primitive classes."""
    def deco(fn):
        for cls in prim_classes:
            BPROPS[cls] = fn
        return fn
    return deco


def non_differentiable(*prim_classes):
    """Mark primitives whose outputs have no gradient (comparisons, Argmax, Shape, ...)."""
    NON_DIFFERENTIABLE.update(prim_classes)


# Primitives that write their inputs in place or draw random numbers: never computed at
# compile time, never removed as dead (their effect is the point), kept in statement order.
SIDE_EFFECTS = frozenset(("Dropout", "Assign", "AssignAdd", "AssignSub", "ApplyMomentum", "SGD",
                          "Adam", "AdamWeightDecay", "BatchNorm", "Custom"))


def has_side_effect(prim):
    return (prim.name in SIDE_EFFECTS or type(prim).__name__ in SIDE_EFFECTS
            or bool(getattr(prim, "side_effect_mem", False))
            or bool(getattr(prim, "state_inputs", ()))       # optimizer updates: in place
            or bool(prim.attrs.get("side_effect_mem", False)))
