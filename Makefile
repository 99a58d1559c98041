# The README's two commands, `make test` and `make demo`. Both install what they need first:
# pip install -e '.[test]' only when pyproject.toml or setup.py changed (a stamp file), and
# the C++ extension only when a file under csrc/ changed, and then only the objects whose
# source or included headers changed (setup.py's incremental build, objects kept in build/;
# --force makes setuptools relink instead of comparing the .so with the sources). A second
# run with no change starts pytest or the demo at once.
PYTHON ?= python3
STAMP := build/.install-stamp
EXT_SUFFIX := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
EXT := mindlite/_C$(EXT_SUFFIX)
CSRC := $(shell find csrc -name '*.cc' -o -name '*.h' -o -name '*.inc')

# Real MindSpore Lite 2.0.0 for tests/test_lite_real.py (its wheel is cp37): a Python 3.7
# venv made once under build/ where pyenv has a 3.7 (tests/lite_real.py finds it); where there
# is none, or the install fails, the module is skipped and says why.
PY37 := $(lastword $(sort $(wildcard $(HOME)/.pyenv/versions/3.7.*/bin/python3.7)))
LITEVENV := build/litevenv
LITE_STAMP := $(LITEVENV)/.installed
LITE_DEP := $(if $(PY37),$(LITE_STAMP),lite-absent)

.PHONY: install ext demo test bench lite-absent

# Python's bytecode too, as pip compiles an installed package's: an environment that sets
# PYTHONDONTWRITEBYTECODE (this machine's does) never writes it at import, and a process's
# first compiled call then parses mindlite's sources (~70 ms of a ~105 ms first MLP step).
install: $(STAMP) $(EXT)
	@$(PYTHON) -m compileall -q mindlite > /dev/null

ext: $(EXT)

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m pip install -q -e '.[test]'
	@mkdir -p build && touch $@

$(EXT): $(CSRC) setup.py | $(STAMP)
	$(PYTHON) setup.py -q build_ext --inplace --force

demo: install
	$(PYTHON) examples/train_digits.py

test: install $(LITE_DEP)
	$(PYTHON) -m pytest tests -rs

$(LITE_STAMP):
	@echo "make test: installing MindSpore Lite 2.0.0 into $(LITEVENV) ($(PY37))"
	@($(PY37) -m venv $(LITEVENV) && $(LITEVENV)/bin/pip install -q mindspore-lite==2.0.0 \
	  'numpy<1.22' && touch $@) || { rm -rf $(LITEVENV); echo "make test: MindSpore Lite \
	2.0.0 did not install: tests/test_lite_real.py will be skipped"; }

lite-absent:
	@echo "make test: no Python 3.7 (~/.pyenv/versions/3.7.*): tests/test_lite_real.py, which \
	runs real MindSpore Lite 2.0.0, will be skipped"

bench: install
	$(PYTHON) benchmarks/op_latency.py
