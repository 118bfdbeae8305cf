"""Every checkable exercise: the solution's answer is right, and every recognised mistake is named.

The answers below are the chapters' solutions, computed here as each solution computes them (or, where
the solution is a short argument, the answer it states), independently of the checker's own
computation of the expected values.
"""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from companion import sinusoidal_encoding
from companion.analysis.linearity import rotation_matrix
from companion.exercises import check
from companion.exercises.feedback import reset_hints
from companion.exercises.registry import all_exercises


def column_loop(seq_len, d_model, base=10_000.0):
    """The chapter's solution to ex-column-loop, a loop by columns."""
    table = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for j in range(d_model):
            angle = pos / base ** ((j - j % 2) / d_model)
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


def from_ids(ids, d_model):
    """The chapter's solution to ex-broadcast-position-ids, by broadcasting."""
    angles = np.asarray(ids)[..., None] * 10_000.0 ** (-np.arange(0, d_model, 2) / d_model)
    encodings = np.empty(np.shape(ids) + (d_model,))
    encodings[..., 0::2], encodings[..., 1::2] = np.sin(angles), np.cos(angles)
    return encodings


def unpaired_norms():
    j = np.arange(512)
    angles = np.arange(1000)[:, None] / 10_000.0 ** (j / 512)
    norms = np.linalg.norm(np.where(j % 2 == 0, np.sin(angles), np.cos(angles)), axis=1)
    return norms.min(), norms.max()


def eigenvalue_angles():
    return np.angle(np.linalg.eigvals(rotation_matrix(7, 8)))


#: label -> the solution's answers, one per part.
SOLUTIONS = {
    "ex-equivariance": ["P softmax(S) P^T"],
    "ex-shared-code": [(512 / 2) / (512 + 512 / 2)],
    "ex-half-apart": [8],
    "ex-column-loop": [(7 - 7 % 2) / 8, column_loop],
    "ex-row-norm": ["no", unpaired_norms()],
    "ex-first-return": [22, "no"],
    "ex-similarity-width": ["about the same", (0.7004, 0.7246)],
    "ex-broadcast-position-ids": [(2, 6, 8), from_ids],
    "ex-decoding-without-offset": [np.tile(sinusoidal_encoding([0], 16), (5, 1))],
    "ex-exp-log-forms": ["grows with p", 1e5 * 6e-8],
    "ex-unrelated-words": [(1 / 3, 0.7225 / 3)],
    "ex-longer-vectors": [0.947 * 0.9993 + 0.053 * 0.7225],
    "ex-unscaled-width": [(200, 7.04)],
    "ex-sines-recurrence": [np.hstack([2 * np.diag(np.cos(7 * 10_000.0 ** (-np.arange(0, 64, 2) / 64))),
                                       -np.eye(32)]), "yes"],
    "ex-rotations-compose": ["R(-7) = R(7)^T", 107],
    "ex-fit-shift": ["50,000 only", 0.27],
    "ex-rotation-eigenvalues": [eigenvalue_angles(), "pairs 0 and 1"],
    "ex-far-position-same-encoding": ["no", 596_274],
    "ex-relative-terms": [np.array([[2.0, 0.5], [-0.5, 2.0]])],
    "ex-causal-count": [(2 / 4, 2 / 8)],
    "ex-alibi-recency": [7, ("no", "barely")],
    "ex-nope-encoder": ["no"],
    "ex-nope-beyond": ["in between", 0.135],
    "ex-neighbour-distance": ["like sqrt(d_model)", 0.1614],
    "ex-ntk-base": [lambda base, scale, d: base * scale ** (d / (d - 2))],
    "ex-doubled-base": [(5_615, 61_650_549)],
    "ex-key-behind": [(50, 47)],
    "ex-two-dimensions": [("(8, 8)", "(7, 13)")],
    "ex-rope-one-percent": [19],
    "ex-rounded-values": [1 + math.sqrt(2)],
    "ex-rounded-frequency": [("grows with p", "stays at rounding level")],
}

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = all_exercises()
PARTS = [(label, index) for label, exercise in EXERCISES.items() for index in range(len(exercise.parts))]
MISTAKES = [(label, index, mistake) for label, exercise in EXERCISES.items()
            for index, part in enumerate(exercise.parts) for mistake in range(len(part.mistakes))]


@pytest.fixture(autouse=True)
def fresh_hints():
    reset_hints()


def book_exercises() -> set[str]:
    """The label of every exercise in the book's notebooks (chapters and appendices)."""
    labels = set()
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                labels.update(re.findall(r"\{exercise(?:-start)?\}[^\n]*\n:label: ([\w-]+)", "".join(cell["source"])))
    return labels


def test_at_least_25_of_the_books_exercises_are_checkable_each_with_two_recognised_mistakes():
    in_book = book_exercises()
    assert len(in_book) >= 25 and set(EXERCISES) <= in_book, set(EXERCISES) - in_book
    assert len(EXERCISES) >= 25
    for label, exercise in EXERCISES.items():
        assert sum(len(part.mistakes) for part in exercise.parts) >= 2, label
        assert len(exercise.hints) >= 2, label
    assert set(SOLUTIONS) == set(EXERCISES)


@pytest.mark.parametrize("label, index", PARTS, ids=[f"{label}-{index}" for label, index in PARTS])
def test_the_solutions_answer_is_right(label, index, capsys):
    part = EXERCISES[label].parts[index]
    assert check(label, SOLUTIONS[label][index]) is True
    said = capsys.readouterr().out
    assert said.startswith(f"{label}: right") and part.kind.tolerance() in " ".join(said.split())
    assert " ".join(part.reason.split()) in " ".join(said.split())


@pytest.mark.parametrize("label, index, mistake", MISTAKES,
                         ids=[f"{label}-{index}-{mistake}" for label, index, mistake in MISTAKES])
def test_each_recognised_mistake_is_named_with_what_to_look_at(label, index, mistake, capsys):
    known = EXERCISES[label].parts[index].mistakes[mistake]
    answer = known.value
    if EXERCISES[label].parts[index].kind.family == "function":  # a mistake is stored as its outputs
        answer = _function_returning(EXERCISES[label].parts[index].kind.probes, known.value)
    assert check(label, answer) is False
    said = " ".join(capsys.readouterr().out.split())
    assert f"That is {' '.join(known.name.split())}." in said
    assert " ".join(known.advice.split()) in said


def _function_returning(probes, outputs):
    """A reader's function that returns, on each probe, what the mistaken implementation returns."""
    table = {repr(args): output for args, output in zip(probes, outputs)}
    return lambda *args: table[repr(args)]


@pytest.mark.parametrize("label, index", PARTS, ids=[f"{label}-{index}" for label, index in PARTS])
def test_no_mistake_is_the_right_answer_and_no_two_mistakes_coincide(label, index):
    part = EXERCISES[label].parts[index]
    for number, mistake in enumerate(part.mistakes):
        assert not part.kind.matches(mistake.value, part.expected), mistake.name
        for other in part.mistakes[number + 1:]:
            same_advice = other.advice == mistake.advice
            assert same_advice or not part.kind.matches(mistake.value, other.value), (mistake.name, other.name)


def test_the_alibi_exercise_uses_the_chapters_slopes():
    from companion.exercises.attention_and_a_trained_model import ALIBI_SLOPES
    from companion.transformer.positions import alibi_slopes

    assert ALIBI_SLOPES == tuple(alibi_slopes(4).tolist())
