"""nn.Linear (MindSpore 2.10's PyTorch-style fully connected layer): `Linear(in_features,
out_features, bias=True, weight_init=None, bias_init=None, dtype=None)`, y = x W^T + b
with W of shape (out_features, in_features); the same layer as Dense (same primitives,
same default initialisation U(+-1/sqrt(in))) under PyTorch's argument names."""
from ...common import dtype as mstype
from .basic import Dense

__all__ = ["Linear"]


class Linear(Dense):
    """y = x @ weight.T + bias for x of shape (*, in_features)."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        super().__init__(in_features, out_features, weight_init, bias_init, has_bias=bias,
                         dtype=mstype.float32 if dtype is None else dtype)
        self.in_features, self.out_features = self.in_channels, self.out_channels

    def extend_repr(self):
        return (f"input_features={self.in_features}, output_features={self.out_features}, "
                f"has_bias={self.has_bias}")
