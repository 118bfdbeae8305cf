"""The page questions (book/_ext/questions.py) as the browser tests find and answer them: by keyboard alone."""

import json

from bs4 import BeautifulSoup

from .conftest import SITE, book_pages


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


def answer_every_question(page, asked: list[tuple[str, dict]]) -> dict[str, dict]:
    """Answer each question of `page` wrong (every known mistake), then right; return, by label, what the page did:
    whether it was made interactive, whether a choice's printed options were hidden, and each verdict
    beside the one expected."""
    page.bring_to_front()  # the reader's tab: keyboard focus
    answered = {}
    for label, spec in asked:
        record = {"interactive": page.locator(f"#{label} form.pe-question-form").count() == 1,
                  "optionsHidden": spec["kind"] != "choice"
                  or page.locator(f"#{label} ol.pe-question-options").is_hidden(), "verdicts": []}
        if record["interactive"]:
            for wrong, feedback in wrong_answers(spec):
                record["verdicts"].append((wrong, answer_by_keyboard(page, label, spec, wrong), f"Not yet. {feedback}"))
            right = spec["right"] if spec["kind"] == "choice" else spec["answer"]
            expected = spec["feedback"][right] if spec["kind"] == "choice" else spec["right"]
            record["verdicts"].append((right, answer_by_keyboard(page, label, spec, right), f"Right. {expected}"))
        answered[label] = record
    return answered
