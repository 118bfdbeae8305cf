"""The chapters' page questions (book/_ext/questions.py): their marked answers agree with the companion.

A page question's answers are written in the chapter, as the reader reads them; here each one is
computed again with the companion, so that a right answer cannot drift from what the book computes.
The extension's reading of a question is checked too: it refuses a malformed one, naming the problem.
"""

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from docutils import nodes
from docutils.core import publish_doctree
from myst_parser.parsers.docutils_ import Parser

from companion import wavelengths
from companion.analysis.linearity import relative_dot_product
from companion.analysis.shift_precision import rounded_angles

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import questions  # noqa: E402

def question_boxes(source: str):
    """The question admonitions of a markdown cell, parsed by MyST as the book build parses them."""
    tree = publish_doctree(source, parser=Parser(), settings_overrides={"report_level": 4})
    return [box for box in tree.findall(nodes.admonition) if "pe-question" in box["classes"]]


def page_questions() -> dict[str, dict]:
    """Every question of the chapters, by label, as the extension reads it."""
    found = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            text = "".join(cell["source"])
            if cell["cell_type"] == "markdown" and ":class: pe-question" in text:
                for box in question_boxes(text):
                    options = [item.astext() for listed in box.findall(nodes.enumerated_list) for item in listed.children]
                    found[box["ids"][0]] = {"spec": questions.question_spec(box), "options": options}
    return found


QUESTIONS = page_questions()


def option(label: str) -> str:
    return QUESTIONS[label]["options"][QUESTIONS[label]["spec"]["right"]]


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


BROKEN = {
    "no answer": "1. a\n2. b\n",
    "an answer that is no option": "1. a\n2. b\n\n```{admonition} Answer\n:class: dropdown\n\n"
                                   "**Answer: 3. c.** Why.\n\n- **1. a:** No.\n```\n",
    "an option without feedback": "1. a\n2. b\n3. c\n\n```{admonition} Answer\n:class: dropdown\n\n"
                                  "**Answer: 1. a.** Why.\n\n- **2. b:** No.\n```\n",
    "a number without any-other feedback": "```{admonition} Answer\n:class: dropdown\n\n"
                                           "**Answer: 3** (within 0). Why.\n\n- **4:** No.\n```\n",
}


@pytest.mark.parametrize("problem", BROKEN)
def test_the_extension_refuses_a_malformed_question(problem):
    box, = question_boxes(f"````{{admonition}} Predict, then check\n:class: pe-question\n:name: q-x\n\n"
                          f"Ask?\n\n{BROKEN[problem]}````\n")
    with pytest.raises(ValueError):
        questions.question_spec(box)


def test_a_well_formed_number_question_is_read():
    box, = question_boxes("````{admonition} Predict, then check\n:class: pe-question\n:name: q-x\n\nAsk?\n\n"
                          "```{admonition} Answer\n:class: dropdown\n\n**Answer: 3** (within 0.5). Why.\n\n"
                          "- **4:** No.\n- **Any other number:** Think.\n```\n````\n")
    assert questions.question_spec(box) == {"kind": "number", "answer": 3.0, "tolerance": 0.5,
                                            "known": [{"value": 4.0, "feedback": "No."}], "right": "Why.",
                                            "otherwise": "Think."}
