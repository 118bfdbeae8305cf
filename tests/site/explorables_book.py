"""A one-page book of every explorable figure, built the way the book is built, for the browser tests.

The chapters that will show the figures are being rewritten; until they do, the figures are tested
on a page of their own. It is a notebook written here, each figure an output of a code cell with a
caption, as a chapter would hold it, built by Jupyter Book with the book's own `_config.yml`,
extensions (`book/_ext`, including `explorables.py`) and static files (`book/_static`, with Vega
from npm). It is written to `_build/explorables-test/` and not part of the book.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
PAGE = "explorables"
#: Each figure of the page: its name (``usermeta.explorable``), the call that makes it, its caption.
FIGURES = [
    ("clocks", "clocks()", "The clocks of a 16-wide encoding: move the position and every hand turns at its own speed."),
    ("table", "table()", "The table as an image and four of its columns as waves, for the chosen d_model and base."),
    ("similarity", "similarity_by_offset()", "Similarity of PE(p) and PE(p + k) against the offset, with its trend law."),
    ("rotation", "rotation()", "R(k) turns each pair of PE(3) onto PE(3 + k)."),
    ("look_back", "look_back()", "The head built from R(k) looks k positions back at every position."),
]


def notebook():
    """The test page: a title, and per figure a sentence and a code cell whose output is the figure."""
    from companion.book import explorables

    cells = [nbformat.v4.new_markdown_cell("# Explorable figures (test page)\n\nEvery explorable figure of the "
                                           "companion, as a chapter shows it.")]
    for name, call, caption in FIGURES:
        figure = eval(call, vars(explorables))  # noqa: S307 (our own calls, listed above)
        cell = nbformat.v4.new_code_cell(f"explorables.{call}", metadata={"mystnb": {"figure": {"caption": caption}}})
        cell.outputs = [nbformat.v4.new_output("display_data", data=figure._repr_mimebundle_())]
        cells += [nbformat.v4.new_markdown_cell(f"## {name}\n\nThe figure `{name}`:"), cell]
    book = nbformat.v4.new_notebook(cells=cells)
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return book


def build(directory: Path, builder: str = "html") -> Path:
    """Write the page's book in `directory` and build it; return the directory of the built site."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    (directory / "book").symlink_to(ROOT / "book", target_is_directory=True)
    (directory / "_config.yml").write_text((ROOT / "_config.yml").read_text())
    (directory / "_toc.yml").write_text(f"format: jb-book\nroot: {PAGE}\n")
    nbformat.write(notebook(), directory / f"{PAGE}.ipynb")
    command = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(directory), "-W", "-n", "--keep-going"]
    if builder != "html":
        command += ["--builder", "custom", "--custom-builder", builder]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": ""})
    if result.returncode:
        raise RuntimeError(f"the explorables' test page did not build:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return directory / "_build" / builder
