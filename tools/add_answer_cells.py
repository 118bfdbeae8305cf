"""Give each checkable exercise of the named chapters its answer cells (issue 25), and import check and hint.

For every exercise of ``companion.exercises`` that belongs to a chapter and has no answer cell yet, one
code cell per part is inserted right after the exercise's ``{exercise}`` block and before its solution:
a comment saying what to write, ``answer = ...`` and ``check(label, answer)``. A markdown cell that
goes on after the exercise (its solution's start, say) is split there, the rest moved after the new
cells. The chapter's first code cell that imports from ``companion`` gets
``from companion.exercises import check, hint``. Cell ids are kept; new cells get new ones. Re-execute
the chapter afterwards, so that the cells hold the message an unanswered check prints.

Usage: python tools/add_answer_cells.py notebooks/NN_name.ipynb [...]
"""

from __future__ import annotations

import re
import sys
import textwrap
import uuid

import nbformat

from companion.exercises.registry import all_exercises

IMPORT = "from companion.exercises import check, hint"
EXERCISE = re.compile(r"```\{exercise\}[^\n]*\n:label: ([\w-]+)\n.*?\n```\n?", re.S)


def answer_cells(exercise) -> list:
    cells = []
    for part in exercise.parts:
        comment = textwrap.wrap(f"Your answer: {part.asks} ({part.kind.brief}).", 77)
        source = "\n".join(f"# {line}" for line in comment) + f'\nanswer = ...\ncheck("{exercise.label}", answer)'
        cell = nbformat.v4.new_code_cell(source)
        cell["id"] = uuid.uuid4().hex[:8]
        cells.append(cell)
    return cells


def add(path: str) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    stem = path.rsplit("/", 1)[-1].removesuffix(".ipynb")
    answered = {label for cell in notebook.cells if cell.cell_type == "code"
                for label in re.findall(r'check\("([\w-]+)", answer\)', cell.source)}
    waiting = {label: exercise for label, exercise in all_exercises().items()
               if exercise.chapter == stem and label not in answered}
    added, cells = [], []
    if not any(IMPORT in cell.source for cell in notebook.cells):
        first = next(cell for cell in notebook.cells if cell.cell_type == "code"
                     and re.search(r"^from companion[ .]", cell.source, re.M))
        first.source = first.source.rstrip("\n") + "\n" + IMPORT
    queue = list(notebook.cells)
    while queue:  # a cell split after one exercise goes back in line: it may hold another
        cell = queue.pop(0)
        match = next((found for found in EXERCISE.finditer(cell.source) if found.group(1) in waiting), None) \
            if cell.cell_type == "markdown" else None
        if not match:
            cells.append(cell)
            continue
        rest = cell.source[match.end():].strip("\n")
        cell.source = cell.source[: match.end()].rstrip("\n")
        cells.append(cell)
        cells.extend(answer_cells(waiting.pop(match.group(1))))
        added.append(match.group(1))
        if rest:
            moved = nbformat.v4.new_markdown_cell(rest)
            moved["id"] = uuid.uuid4().hex[:8]
            queue.insert(0, moved)
    if waiting:
        raise SystemExit(f"{path}: no exercise block found for {sorted(waiting)}")
    notebook.cells = cells
    nbformat.write(notebook, path)
    return added


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        print(argument, "answer cells for:", ", ".join(add(argument)) or "none needed")
