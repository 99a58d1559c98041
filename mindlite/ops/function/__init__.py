"""Functional API by family (MindSpore's ops/function/*_func.py), re-exported by ops.functional."""
