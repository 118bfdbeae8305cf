"""The page questions (book/_ext/questions.py), answered in a real browser by keyboard, in light and dark mode.

Every question found in the built book is answered wrong, then right, with the keyboard alone (arrow
keys and Tab to the Check button for a choice, typing and Enter for a number; page_questions.py), on
each page's visit of tour.py; the verdict must be the question's own feedback, announced in a live
region, and axe-core, run on the answered questions, must find no serious or critical WCAG 2 A/AA
violation. The appendix page, and the PDF, must give every question with its answer.
"""

import re

import pytest
from pypdf import PdfReader

from .axe import report
from .conftest import PDF, SITE, book_pages
from .tour import QUESTIONS

# Every chapter asks (issue 25).
CHAPTERS_WITHOUT_QUESTIONS_YET: set[str] = set()

PAGES_AND_MODES = [(page, mode) for page in QUESTIONS for mode in ("light", "dark")]


def test_every_chapter_asks_at_least_one_question():
    chapters = {page.removeprefix("notebooks/").removesuffix(".html") for page in book_pages()
                if re.match(r"notebooks/\d\d_", page)}
    asking = {page.removeprefix("notebooks/").removesuffix(".html") for page in QUESTIONS}
    assert chapters - asking == CHAPTERS_WITHOUT_QUESTIONS_YET


@pytest.mark.parametrize("page_path, mode", PAGES_AND_MODES, ids=[f"{page}-{mode}" for page, mode in PAGES_AND_MODES])
def test_each_question_answers_wrong_then_right_by_keyboard_and_passes_axe(tour, page_path, mode):
    record = tour.view(mode)[page_path]
    assert record["theme"] == mode and record["problems"] == []
    for label, _ in QUESTIONS[page_path]:
        answered = record["questions"][label]
        assert answered["interactive"], f"{label} was not made interactive"
        assert answered["optionsHidden"], f"{label}: the printed options are still shown"
        assert [(answer, said, expected) for answer, said, expected in answered["verdicts"] if said != expected] == [], label
    assert record["questionsAxe"] == [], report(page_path, mode, record["questionsAxe"])


def test_the_appendix_gives_every_question_with_its_answer():
    appendix = (SITE / "book" / "questions.html").read_text(encoding="utf-8")
    for page, asked in QUESTIONS.items():
        for label, _ in asked:
            assert f'id="answer-{label}"' in appendix, label
            assert f'{page.removeprefix("notebooks/")}#{label}' in appendix, label
    assert appendix.count("pe-question-answer") == sum(len(asked) for asked in QUESTIONS.values())


def test_the_pdf_answers_each_question_in_the_appendix():
    if not PDF.is_file():
        pytest.fail("the PDF is not built: run `make pdf` first")
    pdf = PdfReader(PDF)
    # The appendix runs from its bookmark to the next one (reading only those pages keeps this quick).
    starts = sorted((pdf.get_destination_page_number(item), re.sub(r"\s+", "", item.title))
                    for item in pdf.outline if not isinstance(item, list))
    first = next(index for index, (_, title) in enumerate(starts) if title == "Answerstothepagequestions")
    end = starts[first + 1][0] if first + 1 < len(starts) else len(pdf.pages)
    appendix = re.sub(r"\s+", " ", " ".join(pdf.pages[page].extract_text() for page in range(starts[first][0], end)))
    for asked in QUESTIONS.values():
        for _, spec in asked:
            right = spec["feedback"][spec["right"]] if spec["kind"] == "choice" else spec["right"]
            assert " ".join(right.split()[:6]).replace("\u2019", "'") in appendix.replace("\u2019", "'"), right
