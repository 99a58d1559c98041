# The README's two commands. Both install what they need first.
PYTHON ?= python3

.PHONY: install demo test bench

install:
	$(PYTHON) -m pip install -q -e '.[test]'

demo: install
	$(PYTHON) examples/train_digits.py

test: install
	$(PYTHON) -m pytest tests

bench: install
	$(PYTHON) benchmarks/op_latency.py
