"""The chapters give every checkable exercise an answer cell, unanswered, between the exercise and its solution."""

import json
import re
import textwrap
from pathlib import Path

import pytest

from companion.exercises.feedback import WIDTH, unanswered_message
from companion.exercises.registry import all_exercises

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = all_exercises()
# Every notebook with a checkable exercise: the chapters and the appendix of experiment reports.
WITH_ANSWER_CELLS = sorted({exercise.chapter for exercise in EXERCISES.values()})


def cells(stem):
    return json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())["cells"]


def source(cell):
    return "".join(cell["source"])


@pytest.mark.parametrize("label", EXERCISES)
def test_every_checkable_exercise_is_an_exercise_of_its_chapter(label):
    text = "\n".join(source(cell) for cell in cells(EXERCISES[label].chapter) if cell["cell_type"] == "markdown")
    assert re.search(rf"\{{exercise\}}[^\n]*\n:label: {re.escape(label)}\n", text), label


@pytest.mark.parametrize("stem", WITH_ANSWER_CELLS)
def test_each_checkable_exercise_has_an_unanswered_cell_per_part_before_its_solution(stem):
    labels = [label for label, exercise in EXERCISES.items() if exercise.chapter == stem]
    chapter = cells(stem)
    for label in labels:
        start = next(index for index, cell in enumerate(chapter)
                     if cell["cell_type"] == "markdown" and f":label: {label}\n" in source(cell))
        solution = next(index for index, cell in enumerate(chapter)
                        if re.search(rf"\{{solution(-start)?\}} {re.escape(label)}\n", source(cell)))
        answer_cells = [cell for cell in chapter[start + 1:solution] if cell["cell_type"] == "code"]
        assert len(answer_cells) == len(EXERCISES[label].parts), label
        message = textwrap.fill(unanswered_message(label), WIDTH, break_on_hyphens=False) + "\n"
        for cell in answer_cells:
            lines = source(cell).splitlines()
            assert lines[-2:] == ["answer = ...", f'check("{label}", answer)'], lines
            streams = "".join("".join(output["text"]) for output in cell["outputs"] if output["output_type"] == "stream")
            results = ["".join(output["data"]["text/plain"]) for output in cell["outputs"]
                       if output["output_type"] == "execute_result"]
            assert streams == message and results == ["False"], (label, streams, results)
        assert all(source(cell).startswith("````{solution-start}") or "{solution}" in source(cell)
                   for cell in chapter[solution:solution + 1])


@pytest.mark.parametrize("stem", WITH_ANSWER_CELLS)
def test_the_chapter_imports_check_and_hint(stem):
    assert any("from companion.exercises import check, hint" in source(cell)
               for cell in cells(stem) if cell["cell_type"] == "code")


def test_every_chapter_has_checkable_exercises():
    chapters = sorted(path.stem for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert set(chapters) <= set(WITH_ANSWER_CELLS), set(chapters) - set(WITH_ANSWER_CELLS)
