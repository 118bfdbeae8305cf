"""Every chapter teaches the same way: what it covers, a summary, exercises with checked solutions.

The conventions (see ../shared/STYLE.md and the README):

- after the title, an admonition "In this chapter" says what the reader will learn and what the
  chapter assumes;
- the chapter ends with a "Summary" section and an "Exercises" section of at least three
  ``{exercise}`` directives, each with a ``{solution}`` collapsed by default (``:class: dropdown``);
  a solution that needs code is written with the gated ``{solution-start}`` / ``{solution-end}``
  directives around real code cells, which run (and assert) with the rest of the chapter;
- the sources are named by what they are, never "seed NNN"; remarks on how the book is tested live in
  the introduction only; check cells assert quietly (no "...: True" test logs); notebook markdown holds
  no control character (a JSON "\\t" in "\\text" once became a TAB and rendered as "ext").
"""

import json
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).parent.parent
# Chapters are numbered (NN_topic.ipynb); the executable appendix beside them is not a chapter.
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
READER_PAGES = sorted((ROOT / "book").glob("*.md"))


def cells(path):
    return json.loads(path.read_text())["cells"]


def source(cell):
    return "".join(cell["source"])


def markdown(path):
    return [source(cell) for cell in cells(path) if cell["cell_type"] == "markdown"]


def text_outputs(cell):
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            yield "".join(output["text"])
        elif "text/plain" in output.get("data", {}):
            yield "".join(output["data"]["text/plain"])


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_the_chapter_opens_with_what_it_teaches_and_assumes(path):
    opening = "\n".join(markdown(path)[:3])
    assert "{admonition} In this chapter" in opening, "no 'In this chapter' admonition after the title"
    assert "You will learn" in opening and "It assumes" in opening


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_the_chapter_ends_with_a_summary_and_at_least_three_exercises_with_collapsed_solutions(path):
    text = "\n".join(markdown(path))
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings[-2:] == ["Summary", "Exercises"], headings[-3:]
    exercises = re.findall(r"\{exercise(?:-start)?\}[^\n]*\n:label: ([\w-]+)", text)
    assert len(exercises) >= 3, exercises
    solutions = re.findall(r"\{solution(?:-start)?\} ([\w-]+)\n:class: dropdown", text)
    assert sorted(solutions) == sorted(exercises), (exercises, solutions)
    assert text.count("{solution-start}") == text.count("{solution-end}")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_code_solutions_are_cells_that_check_themselves(path):
    inside, checked, code_solutions = False, False, 0
    for cell in cells(path):
        if cell["cell_type"] == "markdown" and "{solution-start}" in source(cell):
            inside, checked = True, False
        elif cell["cell_type"] == "markdown" and "{solution-end}" in source(cell):
            if checked:
                code_solutions += 1
            inside = False
        elif inside and cell["cell_type"] == "code":
            assert "assert" in source(cell), f"a solution's code cell does not check its result:\n{source(cell)}"
            assert cell.get("execution_count") is not None, "a solution's code cell was not executed"
            checked = True
    text = "\n".join(markdown(path))
    if "{solution-start}" in text:
        assert code_solutions >= 1


PAGES_AND_CHAPTERS = CHAPTERS + READER_PAGES


@pytest.mark.parametrize("path", PAGES_AND_CHAPTERS, ids=lambda path: path.name)
def test_no_page_names_a_source_by_its_file_number(path):
    assert not re.search(r"\bseed[ _-]?0\d\d\b", path.read_text(), re.IGNORECASE)


def test_the_companions_public_names_and_tests_do_not_name_seeds():
    for file in list((ROOT / "companion").rglob("*.py")) + list((ROOT / "tests").rglob("*.py")):
        assert not re.search(r"\bseed[ _-]?0\d\d\b|SEED_0\d\d", file.read_text(), re.IGNORECASE), file


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_how_the_book_is_tested_is_told_in_the_introduction_not_in_chapters(path):
    for text in markdown(path):
        assert not re.search(r"not compared when|when the book is tested|the book's tests compare", text), text


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_check_cells_assert_quietly(path):
    for cell in cells(path):
        for text in text_outputs(cell):
            assert not re.search(r":\s*True\s*$", text, re.MULTILINE), f"a check cell prints a test log:\n{text}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_markdown_holds_no_control_characters(path):
    for text in markdown(path):
        assert not re.search(r"[\x00-\x09\x0b-\x1f]", text), repr(text[:200])


# Issues 17 and 24: the book teaches in at most 19,000 words of chapter prose, no chapter over 2,800 and
# chapter 6 (attention and the trained models) over 2,500; forensic material and experiment reports live in
# the appendices, which may grow.
BOOK_PROSE_WORDS, CHAPTER_PROSE_WORDS = 19_000, 2_800
CHAPTER_6_PROSE_WORDS = 2_500


def prose_words(path):
    return sum(len(text.split()) for text in markdown(path))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_no_chapter_has_more_than_2800_words_of_prose(path):
    assert prose_words(path) <= CHAPTER_PROSE_WORDS
    if path.stem.startswith("06_"):
        assert prose_words(path) <= CHAPTER_6_PROSE_WORDS


def test_the_chapters_prose_is_at_most_19000_words():
    assert len(CHAPTERS) == 8
    assert sum(prose_words(path) for path in CHAPTERS) <= BOOK_PROSE_WORDS


# The book's code column holds about 80 characters; an import line longer than that scrolls.
CODE_COLUMN = 79


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_import_cells_fit_the_code_column(path):
    for cell in cells(path):
        if cell["cell_type"] != "code":
            continue
        lines = source(cell).splitlines()
        starts = [n for n, line in enumerate(lines) if re.match(r"(from \S+ )?import ", line)]
        for n in starts:
            # An import and its parenthesised continuation lines.
            end = n
            while "(" in lines[n] and ")" not in lines[end] and end + 1 < len(lines):
                end += 1
            for line in lines[n:end + 1]:
                assert len(line) <= CODE_COLUMN, f"{path.stem}: import line of {len(line)} characters: {line}"


# Issues 24 and 26: no test machinery in a reader's view. nbval reads its cell tags (nbval-ignore-output),
# never a comment a reader would see; a check cell (it asserts and prints nothing), and the setup cell, are
# left out of the pages (remove-cell) and start folded in JupyterLab (source_hidden), as the reader
# notebooks fold them in Colab; nbval runs them all the same.
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def code_cells_outside_solutions(path):
    in_solution = False
    for cell in cells(path):
        if cell["cell_type"] == "markdown":
            marks = re.findall(r"`{3,}\{solution-(start|end)\}", source(cell))
            in_solution = marks[-1] == "start" if marks else in_solution
        elif not in_solution:
            yield cell


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_no_nbval_marker_is_written_in_a_cell(path):
    for cell in cells(path):
        assert "NBVAL" not in source(cell), source(cell)[:200]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_check_cells_and_the_setup_cell_are_left_out_of_the_pages_and_folded(path):
    for index, cell in enumerate(code_cells_outside_solutions(path)):
        text = source(cell)
        is_check = bool(re.search(r"^\s*assert\b", text, re.MULTILINE)) and not cell.get("outputs")
        if index == 0 or is_check:
            assert "remove-cell" in cell["metadata"].get("tags", []), text[:200]
            assert cell["metadata"].get("jupyter", {}).get("source_hidden") is True, text[:200]


# Issue 26: in JupyterLab a gated solution's code stays folded until the reader opens it. jupyterlab-myst
# folds only the markdown between solution-start and solution-end; JupyterLab folds a code cell whose
# metadata says so (`python tools/fold_solutions.py` sets it on every such cell).
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_code_of_a_gated_solution_starts_folded_in_jupyterlab(path):
    from fold_solutions import folded, solution_code_cells

    notebook = nbformat.read(path, as_version=4)
    unfolded = [index for index in solution_code_cells(notebook) if not folded(notebook.cells[index])]
    assert unfolded == [], f"run `python tools/fold_solutions.py {path.relative_to(ROOT)}`: cells {unfolded}"


# Issue 24: a chapter opens with one line, "The question: ...", right after its title and before "In this
# chapter", and its summary's first bullet answers it (sharing the question's words, as a check that can
# fail).
ASKING = CHAPTERS
QUESTION = re.compile(r"^\*\*The question:\*\* (.+?\?)$", re.MULTILINE | re.DOTALL)


def words(text):
    """The words of four letters or more, cut to their first five letters (adding, added: "addin", "added")."""
    return {word[:5] for word in re.findall(r"[a-z]{4,}", text.lower())}


@pytest.mark.parametrize("path", ASKING, ids=lambda path: path.stem)
def test_the_chapter_asks_its_question_first_and_its_summary_answers_it(path):
    opening = "\n".join(markdown(path)[:3])
    question = QUESTION.search(opening)
    assert question, "no '**The question:** ...?' paragraph in the opening cells"
    title_end = opening.index("\n", opening.index("# "))
    assert title_end < question.start() < opening.index("{admonition} In this chapter")
    assert len(question.group(1).split()) <= 40  # one line's worth, not a paragraph
    summary = next(text for text in markdown(path) if "## Summary" in text)
    first_bullet = re.search(r"^- (.+?)(?=^- |\Z)", summary.split("## Summary", 1)[1], re.MULTILINE | re.DOTALL)
    assert first_bullet, "the summary does not start with a bullet"
    shared = words(question.group(1)) & words(first_bullet.group(1))
    assert len(shared) >= 2, (question.group(1), first_bullet.group(1))
