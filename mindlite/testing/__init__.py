"""Testing tools for mindlite itself (as numpy.testing is for numpy): the differential program
fuzzer of graph mode and the model files.

    ops_table.py   the operations programs are made of: mindlite's own unary and binary
                   primitives (found in ops.operations, checked to run for each dtype) and
                   structured ops (reductions, matmul, casts, slices, concat, select...)
    program.py     a generator of random valid programs (a Cell with Parameters whose
                   construct uses tensor and constant if/elif, while, for, closures, side
                   effects, a sub-Cell, shape arithmetic on a dynamic batch) rendered as
                   Python source, driven by any source of choices (hypothesis, or a seed);
                   program_exprs.py writes its expressions
    paths.py       one program run every way: eagerly (the oracle), jit static, jit with a
                   dynamic batch at several sizes, value_and_grad, MINDIR export + load,
                   ONNX export + onnxruntime, .ms conversion + the Lite runtime; each path
                   must give eager's values, dtypes, Parameter updates and printed text, or
                   refuse with an error naming the construct (path_runs.py: each path)
    fuzz.py        hypothesis strategies, the bounded CI run and `python -m
                   mindlite.testing.fuzz --minutes N` (long runs, shrunk findings written
                   out as regression programs), the MindSpore comparison mode
    mindspore.py   running the same programs in MindSpore 2.x's GRAPH_MODE (a side venv)

hypothesis is needed only by fuzz.py's strategies (it is in the `test` extra).
"""
