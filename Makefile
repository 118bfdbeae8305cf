# The book's two commands for a fresh machine (see README.md): `make book` and `make test`.
# Both create the virtual environment .venv on first use and reuse it afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: book test bench lab notebooks clean

# Requirements are exact pins; the companion is installed editable, on top, without
# letting its lower bounds move any pin.
$(INSTALLED): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

# Executes every chapter and writes _build/html; any warning fails the build.
book: $(INSTALLED)
	$(BIN)/jupyter-book build . -W -n --keep-going --all

# The companion's tests and doctests, every chapter re-executed against its stored
# outputs (nbval, strict), then the book build.
test: $(INSTALLED)
	$(BIN)/python -m pytest
	$(BIN)/python -m pytest --nbval --nbval-current-env notebooks
	$(MAKE) book

# Speed of the table builders, each chapter's run time and the book build (benchmarks/run.py).
bench: $(INSTALLED)
	$(BIN)/python benchmarks/run.py

# Open the chapters in JupyterLab.
lab: $(INSTALLED)
	$(BIN)/jupyter lab notebooks

# Re-execute every chapter in place after changing what it calls (outputs are committed).
notebooks: $(INSTALLED)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.record_timing=False notebooks/*.ipynb

clean:
	rm -rf _build build
