"""More optimizer primitives (MindSpore's names, input orders and outputs): ApplyRMSProp,
ApplyCenteredRMSProp, ApplyAdagrad, ApplyAdadelta, ApplyAdaMax, ApplyFtrl,
ApplyProximalAdagrad. As optim_ops.py: state inputs are updated IN PLACE (copy-on-write
when a view is alive), every input is validated before any write, hyper-parameters are
scalars; none is differentiable. Kernels: kernels/cpu/optim_adaptive_*.py. Update rules (g the
gradient, all elementwise):

ApplyRMSProp         ms = decay ms + (1 - decay) g^2; mom = momentum mom + lr g / sqrt(ms + eps);
                     var -= mom
ApplyCenteredRMSProp as ApplyRMSProp with mg = decay mg + (1 - decay) g and
                     sqrt(ms - mg^2 + eps) in the denominator
ApplyAdagrad         accum += g^2 (update_slots); var -= lr g / sqrt(accum)
ApplyAdadelta        accum = rho accum + (1 - rho) g^2;
                     u = sqrt(accum_update + eps) / sqrt(accum + eps) g;
                     accum_update = rho accum_update + (1 - rho) u^2; var -= lr u
ApplyAdaMax          m = beta1 m + (1 - beta1) g; v = max(beta2 v, |g|);
                     var -= lr / (1 - beta1_power) m / (v + eps)
ApplyFtrl            a' = accum + g^2; linear += g - (a'^-p - accum^-p) / lr var (p = lr_power);
                     var = (sign(linear) l1 - linear) / (a'^-p / lr + 2 l2) where |linear| > l1,
                     else 0; accum = a' (MindSpore's documented rule; its 2.10 CPU kernel
                     computes l1 - linear where linear < 0 too, against its own formula)
ApplyProximalAdagrad accum += g^2; r = lr / sqrt(accum); v = var - r g;
                     var = sign(v) max(|v| - r l1, 0) / (1 + r l2)
"""
from ...ir.rules import non_differentiable
from ...ir.primitive import prim_attr_register
from ..validator import check_bool
from .optim_ops import _ApplyBase

__all__ = ["ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdagrad", "ApplyAdadelta",
           "ApplyAdaMax", "ApplyFtrl", "ApplyProximalAdagrad"]


class _ReturnsVar(_ApplyBase):
    """Updates several states, returns only the variable (as MindSpore)."""

    def infer(self, *inputs):
        return self._check(inputs)


class ApplyRMSProp(_ReturnsVar):
    input_names = ("var", "mean_square", "moment", "learning_rate", "grad", "decay", "momentum",
                   "epsilon")
    state_inputs = ("var", "mean_square", "moment")
    scalar_inputs = ("learning_rate", "decay", "momentum", "epsilon")
    grad_input = "grad"

    @prim_attr_register
    def __init__(self, use_locking=False):
        check_bool(self, "use_locking", use_locking)


class ApplyCenteredRMSProp(_ReturnsVar):
    input_names = ("var", "mean_gradient", "mean_square", "moment", "grad", "learning_rate",
                   "decay", "momentum", "epsilon")
    state_inputs = ("var", "mean_gradient", "mean_square", "moment")
    scalar_inputs = ("learning_rate", "decay", "momentum", "epsilon")
    grad_input = "grad"

    @prim_attr_register
    def __init__(self, use_locking=False):
        check_bool(self, "use_locking", use_locking)


class ApplyAdagrad(_ApplyBase):
    """Returns (var, accum)."""
    input_names = ("var", "accum", "lr", "grad")
    state_inputs = ("var", "accum")
    scalar_inputs = ("lr",)
    grad_input = "grad"

    @prim_attr_register
    def __init__(self, update_slots=True):
        check_bool(self, "update_slots", update_slots)


class ApplyAdadelta(_ApplyBase):
    """Returns (var, accum, accum_update)."""
    input_names = ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad")
    state_inputs = ("var", "accum", "accum_update")
    scalar_inputs = ("lr", "rho", "epsilon")
    grad_input = "grad"

    @prim_attr_register
    def __init__(self):
        pass


class ApplyAdaMax(_ApplyBase):
    """Returns (var, m, v)."""
    input_names = ("var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad")
    state_inputs = ("var", "m", "v")
    scalar_inputs = ("beta1_power", "lr", "beta1", "beta2", "epsilon")
    grad_input = "grad"

    @prim_attr_register
    def __init__(self):
        pass


class ApplyFtrl(_ReturnsVar):
    input_names = ("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power")
    state_inputs = ("var", "accum", "linear")
    scalar_inputs = ("lr", "l1", "l2", "lr_power")
    grad_input = "grad"

    @prim_attr_register
    def __init__(self, use_locking=False):
        check_bool(self, "use_locking", use_locking)


class ApplyProximalAdagrad(_ApplyBase):
    """Returns (var, accum)."""
    input_names = ("var", "accum", "lr", "l1", "l2", "grad")
    state_inputs = ("var", "accum")
    scalar_inputs = ("lr", "l1", "l2")
    grad_input = "grad"

    @prim_attr_register
    def __init__(self, use_locking=False):
        check_bool(self, "use_locking", use_locking)


non_differentiable(ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagrad, ApplyAdadelta, ApplyAdaMax,
                   ApplyFtrl, ApplyProximalAdagrad)
