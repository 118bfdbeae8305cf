"""The page questions (book/_ext/questions.py), answered in a real browser by keyboard, in light and dark mode.

Every question found in the built book is answered wrong, then right, with the keyboard alone (arrow
keys and Tab to the Check button for a choice, typing and Enter for a number); the verdict must be
the question's own feedback, announced in a live region, and axe-core must find no serious or
critical WCAG 2 A/AA violation in the answered question. The appendix page, and the PDF, must give
every question with its answer.
"""

import json
import re

import pytest
from bs4 import BeautifulSoup
from pypdf import PdfReader

from .conftest import PDF, ROOT, SITE, book_pages, load

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG2_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# Every chapter asks (issue 25).
CHAPTERS_WITHOUT_QUESTIONS_YET: set[str] = set()


def questions_in_site() -> dict[str, list[tuple[str, dict]]]:
    """Each page of the built book that asks questions, with each question's label and answers (its data-question)."""
    found = {}
    for page in book_pages():
        path = SITE / page
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        if "data-question" in text:  # parse only the pages that ask (the others are large)
            soup = BeautifulSoup(text, "html.parser")
            asked = [(box["id"], json.loads(box["data-question"])) for box in soup.select("div.pe-question[data-question]")]
            if asked:
                found[page] = asked
    return found


QUESTIONS = questions_in_site()
PAGES_AND_MODES = [(page, mode) for page in QUESTIONS for mode in ("light", "dark")]

RUN_AXE = """async ([selector, tags]) => {
    const results = await axe.run(document.querySelector(selector),
                                  {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
    return results.violations.filter(v => ['serious', 'critical'].includes(v.impact))
        .map(v => `${v.id}: ${v.help} (${v.nodes.map(n => n.target.join(' ')).join(', ')})`);
}"""


def test_every_chapter_asks_at_least_one_question():
    chapters = {page.removeprefix("notebooks/").removesuffix(".html") for page in book_pages()
                if re.match(r"notebooks/\d\d_", page)}
    asking = {page.removeprefix("notebooks/").removesuffix(".html") for page in QUESTIONS}
    assert chapters - asking == CHAPTERS_WITHOUT_QUESTIONS_YET


def wrong_answers(spec: dict) -> list[tuple[object, str]]:
    """(answer, the feedback it must get): every wrong option, or every known wrong value and one unknown."""
    if spec["kind"] == "choice":
        return [(index, feedback) for index, feedback in enumerate(spec["feedback"]) if index != spec["right"]]
    values = [spec["answer"]] + [known["value"] for known in spec["known"]]
    unknown = max(abs(value) for value in values) * 10 + 100 * spec["tolerance"] + 7
    return [(known["value"], known["feedback"]) for known in spec["known"]] + [(unknown, spec["otherwise"])]


def answer_by_keyboard(page, label: str, spec: dict, answer) -> str:
    """Answer question `label` with the keyboard alone; return the verdict its live region announces."""
    box = f"#{label}"
    if spec["kind"] == "choice":
        page.focus(f"{box} input[type=radio]:checked" if page.locator(f"{box} input[type=radio]:checked").count()
                   else f"{box} input[type=radio] >> nth=0")
        page.keyboard.press("Space")  # selects the focused option
        chosen = int(page.eval_on_selector(f"{box} input[type=radio]:checked", "radio => radio.value"))
        steps = (answer - chosen) % len(spec["feedback"])
        for _ in range(steps):
            page.keyboard.press("ArrowDown")  # moves to the next option and selects it
        page.keyboard.press("Tab")  # the radio group is one stop: Tab goes on to the button
        assert page.evaluate("document.activeElement.classList.contains('pe-question-check')")
        page.keyboard.press("Enter")
    else:
        page.focus(f"{box} input[type=text]")
        page.keyboard.press("Control+A")
        page.keyboard.type(f"{answer:g}")
        page.keyboard.press("Enter")  # submits the form
    feedback = page.locator(f"{box} .pe-question-feedback")
    assert feedback.get_attribute("role") == "status"
    return feedback.inner_text()


@pytest.fixture(scope="module")
def axe_source():
    if not AXE.is_file():
        pytest.fail("axe-core is not installed: run `npm ci` (the Makefile's `make test` does)")
    return AXE.read_text()


@pytest.mark.parametrize("page_path, mode", PAGES_AND_MODES, ids=[f"{page}-{mode}" for page, mode in PAGES_AND_MODES])
def test_each_question_answers_wrong_then_right_by_keyboard_and_passes_axe(reader, base_url, axe_source,
                                                                        page_path, mode):
    page = reader(mode).new_page()
    requests_elsewhere = []
    page.on("request", lambda request: not request.url.startswith((base_url, "data:"))
            and requests_elsewhere.append(request.url))
    load(page, f"{base_url}/{page_path}")
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    page.add_script_tag(content=axe_source)
    for label, spec in QUESTIONS[page_path]:
        assert page.locator(f"#{label} form.pe-question-form").count() == 1, f"{label} was not made interactive"
        if spec["kind"] == "choice":
            assert page.locator(f"#{label} ol.pe-question-options").is_hidden()
        for wrong, feedback in wrong_answers(spec):
            said = answer_by_keyboard(page, label, spec, wrong)
            assert said == f"Not yet. {feedback}", (label, wrong)
        right = spec["right"] if spec["kind"] == "choice" else spec["answer"]
        said = answer_by_keyboard(page, label, spec, right)
        expected = spec["feedback"][right] if spec["kind"] == "choice" else spec["right"]
        assert said == f"Right. {expected}", label
        violations = page.evaluate(RUN_AXE, [f"#{label}", WCAG2_A_AA])
        assert not violations, f"{page_path} {label} in {mode} mode: {violations}"
    page.close()
    assert not requests_elsewhere


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
