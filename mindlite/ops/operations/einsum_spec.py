"""Einsum equations as data, for Einsum's inference, kernel and bprop (ops/operations/
linalg_ops.py): `parse_einsum` checks an equation against the operand shapes with numpy's
grammar (letters, one '...' per term, '->' optional: the implicit output is '...' then the
letters used once, sorted) and rewrites it with explicit letters only; `einsum_grad_specs`
derives the einsum that gives one operand's gradient. Pure functions of strings and shapes.
"""
import string
from collections import namedtuple

EinsumSpec = namedtuple("EinsumSpec", "terms out sizes out_shape explicit")

_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _fail(name, msg):
    return ValueError(f"For '{name}', {msg}")


def _split_term(name, term):
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise _fail(name, f"each term of 'equation' may hold one '...', but got {term!r}")
    for c in term.replace("...", ""):
        if c not in _LETTERS:
            raise _fail(name, f"the subscripts of 'equation' must be letters, but got {c!r}")
    return term


def parse_einsum(name, equation, shapes):
    """EinsumSpec: explicit letter terms per operand, output term, label sizes, output shape
    and the rewritten equation. ValueError naming `name` on a bad equation or shapes."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    if "->" in rhs or "-" in lhs or ">" in lhs:
        raise _fail(name, f"'equation' must hold at most one '->', but got {equation!r}")
    terms = [_split_term(name, t) for t in lhs.split(",")]
    if len(terms) != len(shapes):
        raise _fail(name, f"'equation' {equation!r} names {len(terms)} operands, but got "
                          f"{len(shapes)} Tensors")
    used = set(eq) & set(_LETTERS)
    free = [c for c in _LETTERS if c not in used]
    ell_rank = 0
    for t, s in zip(terms, shapes):
        n = len(t.replace("...", ""))
        if ("..." in t and n > len(s)) or ("..." not in t and n != len(s)):
            raise _fail(name, f"the term {t!r} of 'equation' does not match an operand of "
                              f"rank {len(s)}")
        if "..." in t:
            ell_rank = max(ell_rank, len(s) - n)
    if ell_rank > len(free):
        raise _fail(name, "'equation' uses too many letters to name the '...' dimensions")
    ell = "".join(free[:ell_rank])
    explicit, sizes, ell_shape = [], {}, [1] * ell_rank
    for t, s in zip(terms, shapes):
        k = len(s) - len(t.replace("...", ""))
        term = t.replace("...", ell[ell_rank - k:]) if "..." in t else t
        explicit.append(term)
        for c, d in zip(term, s):
            old = sizes.get(c)
            if term.count(c) > 1 and len({s[k] for k, e in enumerate(term) if e == c}) > 1:
                raise _fail(name, f"the repeated subscript {c!r} of one operand needs equal "
                                  f"sizes, but got shape {list(s)}")
            if old is not None and old != 1 and d != 1 and old != d:
                raise _fail(name, f"the sizes of subscript {c!r} do not match: {old} and {d} "
                                  f"(equation {equation!r})")
            sizes[c] = d if old is None or old == 1 else old
    for i, c in enumerate(ell):
        ell_shape[i] = sizes.get(c, 1)
    if arrow:
        rhs = _split_term(name, rhs)
        if "..." not in rhs and ell_rank:
            raise _fail(name, "the output of 'equation' needs '...' to keep the '...' "
                              "dimensions of the operands")
        out = rhs.replace("...", ell)
        for c in out:
            if c not in sizes:
                raise _fail(name, f"the output subscript {c!r} of 'equation' does not appear "
                                  f"in the operands")
            if out.count(c) > 1:
                raise _fail(name, f"the output subscript {c!r} of 'equation' appears more than "
                                  f"once")
    else:
        counts = "".join(t.replace("...", "") for t in terms)
        out = ell + "".join(sorted(c for c in set(counts) if counts.count(c) == 1))
    out_shape = tuple(sizes[c] for c in out)
    return EinsumSpec(tuple(explicit), out, sizes, out_shape,
                      ",".join(explicit) + "->" + out)


def einsum_grad_specs(spec, i):
    """(equation, eye sizes, shape) giving operand i's gradient: einsum(equation)(dout,
    other operands..., eye(n) for n in eye sizes) broadcast to `shape` (then summed down
    to the operand's own shape where it was broadcast). A label repeated within operand i
    (a diagonal) gets a fresh letter per repeat tied to it by an identity; labels found
    only in operand i (summed out) are absent from the einsum and restored by the
    broadcast. Returns an equation whose output keeps operand i's order."""
    term = spec.terms[i]
    used = set("".join(spec.terms) + spec.out)
    free = [c for c in _LETTERS if c not in used]
    target, eyes, eye_terms = [], [], []
    for k, c in enumerate(term):
        if c in term[:k]:
            if not free:
                raise ValueError("For 'Einsum', the gradient needs more letters than remain")
            f = free.pop(0)
            target.append(f)
            eyes.append(spec.sizes[c])
            eye_terms.append(c + f)
        else:
            target.append(c)
    inputs = [spec.out] + [t for j, t in enumerate(spec.terms) if j != i] + eye_terms
    present = set("".join(inputs))
    out = "".join(c for c in target if c in present)
    sizes = dict(spec.sizes)
    sizes.update({t: spec.sizes[e[0]] for e, t in zip(eye_terms, (x[1] for x in eye_terms))})
    shape = tuple(sizes[c] for c in target)
    if out != "".join(target):
        # the broadcast needs the kept labels in place: size-1 axes for the absent ones
        out_shape = tuple(sizes[c] if c in present else 1 for c in target)
    else:
        out_shape = shape
    return ",".join(inputs) + "->" + out, eyes, (out_shape, shape)
