"""Give each checkable exercise of the named chapters its answer cells (issue 25), and import check and hint.

For every exercise of ``companion.exercises`` that belongs to a chapter and has no answer cell yet, one
code cell per part is inserted right after the exercise's ``{exercise}`` block and before its solution:
a comment saying what to write, ``answer = ...`` and ``check(label, answer)``. A markdown cell that
goes on after the exercise (its solution's start, say) is split there, the rest moved after the new
cells. The chapter's first code cell that imports from ``companion`` gets
``from companion.exercises import check, hint``. Cell ids are kept; new cells get new ones. Re-execute
the chapter afterwards, so that the cells hold the message an unanswered check prints.

Usage: python tools/add_answer_cells.py notebooks/NN_name.ipynb [...]
       python tools/add_answer_cells.py --refresh notebooks/NN_name.ipynb [...]   (rewrite the comments only)
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


def comment(part) -> str:
    """The lines that say what to write: the part's question and the kind of answer, wrapped to the code column."""
    text = re.sub(r"(?<!\w)'[^']*'", lambda quoted: quoted.group(0).replace(" ", "\u00a0"),  # a quoted choice stays whole
                  f"Your answer: {part.asks} ({part.kind.brief}).")
    return "\n".join(f"# {line}" for line in textwrap.wrap(text, 77)).replace("\u00a0", " ")


def answer_cells(exercise) -> list:
    cells = []
    for part in exercise.parts:
        source = comment(part) + f'\nanswer = ...\ncheck("{exercise.label}", answer)'
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


ANSWER_CELL = re.compile(r'\A(?:#[^\n]*\n)+answer = \.\.\.\ncheck\("([\w-]+)", answer\)\Z')


def refresh(path: str) -> list[str]:
    """Rewrite the comment of every answer cell from the registry (its part's question, as worded now)."""
    notebook = nbformat.read(path, as_version=4)
    exercises, parts, changed = all_exercises(), {}, []
    for cell in notebook.cells:
        match = ANSWER_CELL.match(cell.source) if cell.cell_type == "code" else None
        if not match:
            continue
        label = match.group(1)
        index = parts[label] = parts.get(label, -1) + 1
        source = comment(exercises[label].parts[index]) + f'\nanswer = ...\ncheck("{label}", answer)'
        if source != cell.source:
            cell.source = source
            changed.append(f"{label} part {index + 1}")
    nbformat.write(notebook, path)
    return changed


if __name__ == "__main__":
    if sys.argv[1:2] == ["--refresh"]:
        for argument in sys.argv[2:]:
            print(argument, "comments rewritten:", ", ".join(refresh(argument)) or "none")
    else:
        for argument in sys.argv[1:]:
            print(argument, "answer cells for:", ", ".join(add(argument)) or "none needed")
