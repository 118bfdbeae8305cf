"""The book's links to its repository, all derived from `repository` in _config.yml.

The setup cell that starts every chapter, the "Open in Colab" link under each
chapter's title and the README's Colab badges are generated from here; Jupyter
Book's launch buttons read the same configuration.  `tests/test_book_links.py`
fails if any of them disagree.

Usage: python tools/book_links.py sync   (rewrite every chapter's setup cell and Colab link)
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
COLAB_LINK = re.compile(r"\[Open this chapter in Colab\]\([^)]*\)")


def repository() -> tuple[str, str]:
    """The repository's URL (no trailing slash) and branch, from _config.yml."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    return config["url"].rstrip("/").removesuffix(".git"), config.get("branch", "main")


def companion_version() -> str:
    """The companion's version, from pyproject.toml; releases are tagged v<version>."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def colab_url(notebook: str) -> str:
    """Where Colab opens `notebook` (a file name in notebooks/) from the repository."""
    url, branch = repository()
    return url.replace("https://github.com/", "https://colab.research.google.com/github/") + (
        f"/blob/{branch}/notebooks/{notebook}"
    )


def colab_link(notebook: str) -> str:
    return f"[Open this chapter in Colab]({colab_url(notebook)})"


def setup_cell_source() -> str:
    """The first cell of every chapter: installs the companion in Colab only."""
    url, _ = repository()
    return f'''# Setup. In Google Colab this installs the book's companion package, pinned to the book's
# release, with the extras the chapters use (gensim; Colab already has the rest); anywhere else
# it installs nothing. To run a chapter on your own machine, follow the README of the book's
# repository (`make lab`).
import os
import sys

COMPANION = "positional-encoding-companion[all] @ git+{url}@v{companion_version()}"
if "google.colab" in sys.modules or "PE_BOOK_INSTALL" in os.environ:  # the variable is for the book's tests
    %pip install --quiet "{{os.environ.get('PE_BOOK_INSTALL', COMPANION)}}"
try:
    import companion
except ImportError as error:  # not installed, or a dependency too old: say so, without a traceback
    raise SystemExit(
        f"This chapter needs the book's companion package ({{error}}). Open the chapter in Colab, "
        "or run `make lab` in a clone of the book's repository (see its README)."
    ) from None'''


def sync(notebooks=None) -> list[Path]:
    """Rewrite the setup cell and the Colab link of every chapter; return the files changed."""
    changed = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")) if notebooks is None else notebooks:
        notebook = nbformat.read(path, as_version=4)
        before = nbformat.writes(notebook)
        notebook.cells[0].source = setup_cell_source()
        title = notebook.cells[1]
        if COLAB_LINK.search(title.source):
            title.source = COLAB_LINK.sub(colab_link(path.name), title.source)
        else:
            heading, _, rest = title.source.partition("\n")
            title.source = f"{heading}\n\n{colab_link(path.name)}\n{rest}"
        if nbformat.writes(notebook) != before:
            nbformat.write(notebook, path)
            changed.append(path)
    return changed


if __name__ == "__main__":
    if sys.argv[1:] != ["sync"]:
        sys.exit(__doc__)
    for path in sync():
        print(f"updated {path.relative_to(ROOT)}")
