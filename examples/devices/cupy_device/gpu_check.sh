#!/usr/bin/env bash
# The GPU check of the CuPy device plugin (issue 17), run from the repository root on a
# machine with an NVIDIA GPU and cupy:  bash examples/devices/cupy_device/gpu_check.sh
# Builds mindlite's C++ extension in place for this python3, then runs
# tests/test_device_cupy.py (fake-backend and GPU tests) and benchmarks/device_cupy.py.
# Exit status: the tests' (the benchmark only prints). About 2-4 minutes.
set -u
cd "$(dirname "$0")/../../.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export CUPY_TF32=0                    # float32 MatMul in full float32 (the 1e-5 comparisons)
export MINDLITE_BUILD_JOBS="${MINDLITE_BUILD_JOBS:-$(nproc)}"
PY=python3

echo "== machine"
nvidia-smi -L 2>&1 | head -4
$PY -c "import sys, numpy; print('python', sys.version.split()[0], 'numpy', numpy.__version__)"
$PY -c "import cupy; print('cupy', cupy.__version__, 'devices', cupy.cuda.runtime.getDeviceCount())" \
    2>&1 | tail -1

echo "== build mindlite._C in place"
t0=$(date +%s)
if ! timeout 200 $PY setup.py build_ext --inplace -q > /tmp/mindlite_gpu_build.log 2>&1; then
    echo "build failed (tail of /tmp/mindlite_gpu_build.log):"
    tail -20 /tmp/mindlite_gpu_build.log
    exit 2
fi
echo "built in $(( $(date +%s) - t0 )) s"
$PY -c "import mindlite; print('mindlite', mindlite.__file__)" || exit 2

echo "== tests/test_device_cupy.py"
timeout 150 $PY -m pytest tests/test_device_cupy.py -q -p no:cacheprovider -rs
status=$?

echo "== benchmarks/device_cupy.py"
timeout 90 $PY benchmarks/device_cupy.py --repeat 5 || echo "benchmark exited with $?"
exit $status
