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
ApplyGradientDescent var -= alpha delta (any number dtype but bool, as MindSpore's CPU kernel;
                     alpha is converted to var's dtype)
ApplyProximalGradientDescent  v = var - alpha delta;
                     var = sign(v) max(|v| - alpha l1, 0) / (1 + alpha l2); returns var
ApplyAdagradV2       accum += g^2 (update_slots); var -= lr g / (sqrt(accum) + epsilon);
                     returns (var, accum)
ApplyAdamWithAmsgrad m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
                     vhat = max(vhat, v); var -= lr sqrt(1 - beta2_power) / (1 - beta1_power)
                     m / (sqrt(vhat) + epsilon); returns (var, m, v, vhat) (float16/float32,
                     as MindSpore's CPU kernel)
(the last three observed on MindSpore 2.10)
"""
from ...common import dtype as mstype
from ...ir.rules import non_differentiable
from ...ir.primitive import prim_attr_register
from ..validator import check_bool
from .optim_ops import _ApplyBase
from .optim_ops import _check_float_attr as check_float

__all__ = ["ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdagrad", "ApplyAdadelta",
           "ApplyAdaMax", "ApplyFtrl", "ApplyProximalAdagrad", "ApplyGradientDescent",
           "ApplyProximalGradientDescent", "ApplyAdagradV2", "ApplyAdamWithAmsgrad"]


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


class ApplyGradientDescent(_ReturnsVar):
    input_names = ("var", "alpha", "delta")
    state_inputs = ("var",)
    scalar_inputs = ("alpha",)
    grad_input = "delta"
    var_types = scalar_types = mstype.NUMBER_TYPES + mstype.COMPLEX_TYPES

    @prim_attr_register
    def __init__(self):
        pass


class ApplyProximalGradientDescent(_ReturnsVar):
    input_names = ("var", "alpha", "l1", "l2", "delta")
    state_inputs = ("var",)
    scalar_inputs = ("alpha", "l1", "l2")
    grad_input = "delta"

    @prim_attr_register
    def __init__(self):
        pass


class ApplyAdagradV2(_ApplyBase):
    """Returns (var, accum)."""
    input_names = ("var", "accum", "lr", "grad")
    state_inputs = ("var", "accum")
    scalar_inputs = ("lr",)
    grad_input = "grad"

    @prim_attr_register
    def __init__(self, epsilon, update_slots=True):
        check_float(self, "epsilon", epsilon)
        check_bool(self, "update_slots", update_slots)


class ApplyAdamWithAmsgrad(_ApplyBase):
    """Returns (var, m, v, vhat)."""
    input_names = ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr", "grad")
    state_inputs = ("var", "m", "v", "vhat")
    scalar_inputs = ("beta1_power", "beta2_power", "lr")
    grad_input = "grad"
    var_types = scalar_types = (mstype.float16, mstype.float32)

    @prim_attr_register
    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False):
        for name in ("beta1", "beta2", "epsilon"):
            check_float(self, name, self.attrs[name])
        check_bool(self, "use_locking", use_locking)


non_differentiable(ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagrad, ApplyAdadelta, ApplyAdaMax,
                   ApplyFtrl, ApplyProximalAdagrad, ApplyGradientDescent,
                   ApplyProximalGradientDescent, ApplyAdagradV2, ApplyAdamWithAmsgrad)
