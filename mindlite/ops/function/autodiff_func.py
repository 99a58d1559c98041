"""MindSpore 2.10's functional autodiff transforms beside grad / value_and_grad
(ops/composite.py): vjp, jvp, linearize, jacrev, jacfwd.

vjp runs the function under the tape and returns a vjp_fn that back-propagates a cotangent
(composite._run with that sensitivity). jvp is the transpose of a vjp: u -> J^T u is linear, so
J v is the gradient of <J^T u, v> with respect to u (double backward through the bprops, which
are made of differentiable ops). jacrev builds the Jacobian a row at a time (one vjp per output
element, a one-hot cotangent); jacfwd gives the same matrix (here computed the same way: the
forward and reverse Jacobians are equal), shaped output.shape + input.shape.
"""
import numpy as np

from ...common.tensor import Tensor
from .. import composite as C

__all__ = ["vjp", "jvp", "linearize", "jacrev", "jacfwd"]


def _tensors(api, what, xs):
    xs = xs if isinstance(xs, tuple) else (xs,)
    for x in xs:
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{api}', '{what}' must be a Tensor or a tuple of Tensors, but "
                            f"got {type(x).__name__}")
    return xs


def _aux(aux):
    return aux[0] if len(aux) == 1 else aux


def _backward(api, fn, inputs, sens, has_aux, weights=None):
    """Input (and weight) cotangents of fn at inputs for the output cotangent sens."""
    ws = None if weights is None else C._check_weights(api, weights)[0]
    _, _, gx, gw = C._run(api, fn, inputs, tuple(range(len(inputs))), ws, has_aux, sens)
    return gx, gw


def vjp(fn, *inputs, weights=None, has_aux=False):
    """(fn(*inputs), vjp_fn[, aux]): vjp_fn(v) is the tuple of the inputs' cotangents for the
    output cotangent v (a Tensor, or a tuple matching fn's tuple output); with weights,
    (input cotangents, weight cotangents)."""
    inputs = _tensors("vjp", "inputs", inputs)
    out = fn(*inputs)
    outs, aux = C._split_output("vjp", out, has_aux)
    result = outs[0] if has_aux or not isinstance(out, tuple) else out

    def vjp_fn(*v):
        sens = v[0] if len(v) == 1 else tuple(v)
        gx, gw = _backward("vjp", fn, inputs, sens, has_aux, weights)
        return gx if weights is None else (gx, gw)
    return (result, vjp_fn, _aux(aux)) if has_aux else (result, vjp_fn)


def _jvp_values(api, fn, inputs, v, has_aux):
    out = fn(*inputs)
    outs, aux = C._split_output(api, out, has_aux)
    v = _tensors(api, "v", v)
    if len(v) != len(inputs) or any(a.shape != b.shape for a, b in zip(v, inputs)):
        raise ValueError(f"For '{api}', 'v' must match 'inputs' in number and shapes, but got "
                         f"{[list(t.shape) for t in v]} for {[list(t.shape) for t in inputs]}")

    def pairing(*us):
        gx, _ = _backward(api, fn, inputs, us if len(us) > 1 else us[0], has_aux)
        total = None
        for g, t in zip(gx, v):
            term = (g * t).sum()
            total = term if total is None else total + term
        return total
    zeros = tuple(C._zeros_like(o) for o in outs)
    tangents = C.grad(pairing, tuple(range(len(zeros))))(*zeros)
    return out, outs, aux, tangents


def jvp(fn, inputs, v, has_aux=False):
    """(fn(*inputs), J v[, aux]) for the tangents v of the inputs (a Tensor or a tuple)."""
    inputs = _tensors("jvp", "inputs", inputs)
    out, outs, aux, tangents = _jvp_values("jvp", fn, inputs, v, has_aux)
    if has_aux:
        return outs[0], tangents[0], _aux(aux)
    if isinstance(out, tuple):
        return out, tuple(tangents)
    return out, tangents[0]


def linearize(fn, inputs):
    """(fn(*inputs), jvp_fn): jvp_fn(v) = J v at inputs."""
    inputs = _tensors("linearize", "inputs", inputs)
    out = fn(*inputs)

    def jvp_fn(*v):
        return jvp(fn, inputs, v if len(v) > 1 else v[0])[1]
    return out, jvp_fn


def _jacobian(api, fn, grad_position, has_aux):
    single_pos = isinstance(grad_position, int)
    positions = (grad_position,) if single_pos else tuple(grad_position)

    def jac_fn(*args):
        from .. import functional as F
        for p in positions:
            if not -len(args) <= p < len(args) or not isinstance(args[p], Tensor):
                raise TypeError(f"For '{api}', the input at 'grad_position' {p} must be a "
                                f"Tensor")
        out = fn(*args)
        outs, aux = C._split_output(api, out, has_aux)
        jac = []
        for k, o in enumerate(outs):
            rows = [[] for _ in positions]
            for e in range(o.size):
                sens = []
                for j, other in enumerate(outs):
                    s = np.zeros(other.shape, other.dtype.np)
                    if j == k:
                        s.reshape(-1)[e] = 1
                    sens.append(Tensor(s))
                _, _, gx, _ = C._run(api, fn, args, positions, None, has_aux,
                                     tuple(sens) if len(sens) > 1 else sens[0])
                for r, g in zip(rows, gx):
                    r.append(g)
            per_pos = []
            for p, r in zip(positions, rows):
                shape = tuple(o.shape) + tuple(args[p].shape)
                per_pos.append(F.reshape(F.stack(r), shape) if r else
                               Tensor(np.zeros(shape, o.dtype.np)))
            jac.append(per_pos[0] if single_pos else tuple(per_pos))
        result = jac[0] if not isinstance(out, tuple) or has_aux else tuple(jac)
        return (result, _aux(aux)) if has_aux else result
    return jac_fn


def jacrev(fn, grad_position=0, has_aux=False):
    """A function returning fn's Jacobian (output.shape + input.shape) with respect to the
    inputs at grad_position, by reverse mode; (jacobian, aux) with has_aux."""
    return _jacobian("jacrev", fn, grad_position, has_aux)


def jacfwd(fn, grad_position=0, has_aux=False):
    """As jacrev (the forward-mode Jacobian is the same matrix)."""
    return _jacobian("jacfwd", fn, grad_position, has_aux)
