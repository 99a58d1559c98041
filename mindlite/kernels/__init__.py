"""Kernels: the registry and the CPU providers (numpy reference, numba, C++)."""
from .registry import register_kernel, select_kernel, KERNELS  # noqa: F401
