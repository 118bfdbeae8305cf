"""The chapters' page questions (book/_ext/questions.py): their marked answers agree with the companion.

A page question's answers are written in the chapter, as the reader reads them; here each one is
computed again with the companion, so that a right answer cannot drift from what the book computes.
The extension's reading of a question is checked too: it refuses a malformed one, naming the problem.
"""

import json
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


def test_shuffled_outputs():
    from companion.analysis.equivariance import self_attention

    rng = np.random.default_rng(0)
    x, weights = rng.normal(size=(6, 8)), rng.normal(size=(3, 8, 8))
    order = rng.permutation(6)
    assert np.allclose(self_attention(x[order], *weights), self_attention(x, *weights)[order], rtol=0, atol=1e-12)
    assert option("q-shuffled-outputs") == "They are the same outputs, shuffled the same way"


def test_stacked_axis():
    from companion import sinusoidal_encoding

    positions = np.arange(6)[:, None]
    angles = positions * 10_000.0 ** (-np.arange(0, 8, 2) / 8)
    stacked = np.stack([np.sin(angles), np.cos(angles)], axis=1).reshape(6, 8)
    assert np.allclose(stacked, sinusoidal_encoding(np.arange(6), 8, layout="concatenated"), rtol=0, atol=1e-15)
    assert option("q-stacked-axis") == "All the sines, then all the cosines"


def test_unscaled_black_brown():
    from companion.word2vec.blend import blend_weight

    word_weight = blend_weight(1.0, 512, scale=False)  # the word's share of the blend, norm 1, unscaled
    assert abs(word_weight - 1 / (1 + 256)) < 1e-12 and word_weight < 0.01
    assert option("q-unscaled-black-brown").startswith("The positional similarity")


def test_causal_count():
    from companion.transformer.attention import attention_weights

    first = np.eye(8)[0]
    causal = attention_weights(np.zeros((8, 8)), causal=True) @ first
    assert np.allclose(causal, 1 / (np.arange(8) + 1), rtol=1e-15)
    assert np.allclose(attention_weights(np.zeros((8, 8))) @ first, 1 / 8, rtol=1e-15)
    assert option("q-causal-count").replace(" ", "") == "1/(p+1)"


def test_trend_half():
    from companion.analysis.distinguishability import similarity_trend_scales

    scales = similarity_trend_scales(10_000.0)
    assert round(float(scales.half)) == 56 and round(float(scales.zero)) == 6_165
    assert round(float(wavelengths(128)[-1]), -3) == 54_000
    assert option("q-trend-half") == "About 56"
