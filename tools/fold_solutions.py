"""Fold the code of every gated solution in JupyterLab until the reader opens it.

    python tools/fold_solutions.py [--check] [notebooks/NN_x.ipynb ...]   (default: every notebook)

A solution that needs code is written with the gated directives ``{solution-start}`` and
``{solution-end}`` around real code cells. The book folds the whole solution; jupyterlab-myst folds
only the markdown between the directives, and the code cells stay in view. JupyterLab folds a code
cell's source when its metadata says ``"jupyter": {"source_hidden": true}`` (and its outputs with
``"outputs_hidden": true``); the reader opens it with a click on the cell's bar. This sets both on
every code cell inside a gated solution (its outputs only where it has some), and nothing else: the
source, the outputs and every other cell are left as they are, so no chapter needs executing again.
``--check`` changes nothing and lists the cells still to fold (exit 1 if any).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
GATE = re.compile(r"`{3,}\{solution-(start|end)\}")


def solution_code_cells(notebook) -> list[int]:
    """Indices of the code cells that lie inside a gated solution (between solution-start and solution-end)."""
    inside, found = False, []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown":
            marks = GATE.findall(cell.source)
            inside = marks[-1] == "start" if marks else inside
        elif inside and cell.cell_type == "code":
            found.append(index)
    return found


def folded(cell) -> bool:
    jupyter = cell.metadata.get("jupyter", {})
    return jupyter.get("source_hidden") is True and (not cell.get("outputs") or jupyter.get("outputs_hidden") is True)


def fold(path: Path, check: bool = False) -> list[int]:
    """Fold the solution code cells of the notebook at `path`; return the indices that were not folded."""
    notebook = nbformat.read(path, as_version=4)
    unfolded = [index for index in solution_code_cells(notebook) if not folded(notebook.cells[index])]
    if unfolded and not check:
        for index in unfolded:
            cell = notebook.cells[index]
            jupyter = cell.metadata.setdefault("jupyter", {})
            jupyter["source_hidden"] = True
            if cell.get("outputs"):
                jupyter["outputs_hidden"] = True
        nbformat.write(notebook, path)
    return unfolded


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [Path(argument) for argument in argv if argument != "--check"] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    status = 0
    for path in paths:
        unfolded = fold(path, check)
        if unfolded:
            print(f"{path.name}: {'to fold' if check else 'folded'}: cells {unfolded}")
            status = 1 if check else status
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
