"""MindSpore's test tree's helpers that its test files import (`tests.mark_utils`), written
here for the op-test runner (tools/ms_compat/run_st_cpu.py)."""
