"""The chapters' page questions (book/_ext/questions.py): their marked answers agree with the companion.

A page question's answers are written in the chapter, as the reader reads them; here each one is
computed again with the companion, so that a right answer cannot drift from what the book computes.
The directive's parser is checked too: it refuses a question without exactly one right answer.
"""

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from companion import wavelengths
from companion.analysis.linearity import relative_dot_product
from companion.analysis.shift_precision import rounded_angles

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import questions  # noqa: E402

DIRECTIVE = re.compile(r"```\{question\}\n(.*?)\n```", re.S)


def page_questions() -> dict[str, dict]:
    """Every question directive of the chapters, by label, as the extension reads it."""
    found = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            for body in DIRECTIVE.findall("".join(cell["source"])):
                lines = body.split("\n")
                options = dict(re.match(r":(\w+): (.*)", line).groups() for line in lines if line.startswith(":"))
                prompt, answers = questions._parse_lines([line for line in lines if not line.startswith(":")])
                spec = questions._spec(options.get("kind", "choice"), answers, options.get("tolerance", "0"))
                found[options["label"]] = {"spec": spec, "answers": answers, "prompt": " ".join(prompt)}
    return found


QUESTIONS = page_questions()


def option(label: str) -> str:
    question = QUESTIONS[label]
    return [text for mark, text, _ in question["answers"] if mark != "?"][question["spec"]["right"]]


def test_turns_in_200():
    pairs = [0, 8, 16, 32]
    turning = [pair for pair in pairs if 200 / wavelengths(128)[pair] >= 1]
    assert option("q-turns-in-200") == "Pairs " + ", ".join(map(str, turning[:-1])) + f" and {turning[-1]}"


def test_dot_product_monotonic():
    values = relative_dot_product(np.arange(0, 201), 64)
    first_rise = int(np.flatnonzero(np.diff(values) > 0)[0])
    assert first_rise < 10
    assert option("q-dot-product-monotonic").startswith("It falls, then rises again within the first ten")


def test_float32_angle_error():
    spec = QUESTIONS["q-float32-angle-error"]["spec"]
    error = np.abs(rounded_angles([10**6], 512, precision="float32")
                   - rounded_angles([10**6], 512, precision="float64")).max()
    assert abs(error - spec["answer"]) <= spec["tolerance"]
    bfloat16, = [known["value"] for known in spec["known"] if known["value"] > 1]
    assert abs(bfloat16 - 10**6 * 2.0**-8) < 1
    for known in spec["known"]:
        assert abs(known["value"] - spec["answer"]) > spec["tolerance"]


def test_every_page_question_is_checked_here():
    tested = {name.removeprefix("test_").replace("_", "-") for name in globals() if name.startswith("test_")}
    assert {label.removeprefix("q-") for label in QUESTIONS} <= tested


@pytest.mark.parametrize("lines, problem", [
    (["Ask?", "", "- [ ] a :: no", "- [ ] b :: no"], "exactly one answer line must be marked [x]"),
    (["Ask?", "", "- [x] a :: yes"], "at least one known wrong one"),
    (["Ask?", "", "- [x] a :: yes", "- [ ] b :: no", "stray text"], "a line after the answers"),
])
def test_the_parser_refuses_a_malformed_question(lines, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        prompt, answers = questions._parse_lines(lines)
        questions._spec("choice", answers, "0")


def test_a_number_question_needs_what_other_answers_get():
    _, answers = questions._parse_lines(["Ask?", "", "- [x] 3 :: yes", "- [ ] 4 :: no"])
    with pytest.raises(ValueError, match="one line '- \\[\\?\\] :: …'"):
        questions._spec("number", answers, "0")
