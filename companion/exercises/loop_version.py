"""The exercises of the chapter *The loop version* (notebooks/02_loop_version.ipynb)."""

from __future__ import annotations

import numpy as np

from ..analysis.similarity import cosine_similarity
from ..book.sources import doubled_exponent_encoding
from ..encoding.frequencies import angular_frequencies
from ..encoding.loop import loop_encoding
from ..encoding.table import sinusoidal_encoding
from .answers import Array, Choice, Function, Number, Several
from .registry import Exercise, Mistake, Part, register

CHAPTER = "02_loop_version"
BASE = 10_000.0


# ex-column-loop ----------------------------------------------------------------------------------

def _column_7_exponent() -> float:
    """The exponent x of column 7 at d_model = 8, read off the table: cos(1 * omega) = PE(1)[7]."""
    omega = np.arccos(sinusoidal_encoding([1], 8)[0, 7])
    return float(-np.log(omega) / np.log(BASE))


PROBES = ((50, 64), (11, 512))


def _own_exponent_table(seq_len: int, d_model: int, exponent_scale: float = 1.0) -> np.ndarray:
    """Column j with its own exponent (exponent_scale * j / d_model): the loop that forgets to round j down.

    base ** (-j / d) is the paper's frequency of pair j of a table twice as wide.
    """
    omega = angular_frequencies(2 * d_model, BASE ** exponent_scale)[:d_model]
    angles = np.arange(seq_len)[:, None] * omega
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angles), np.cos(angles))


def _swapped_within_pairs(seq_len: int, d_model: int) -> np.ndarray:
    table = sinusoidal_encoding(np.arange(seq_len), d_model)
    return table.reshape(seq_len, -1, 2)[:, :, ::-1].reshape(seq_len, d_model)


COLUMN_LOOP_MISTAKES = (
    Mistake("the table with the doubled exponent (the paper's formula with base 10^8)",
            lambda: Function.outputs(lambda n, d: doubled_exponent_encoding(np.arange(n), d), PROBES),
            "Your loop multiplies the column index by 2: j is already the paper's 2i, so 2 * j doubles "
            "the exponent. Column j belongs to pair j // 2, whose exponent is 2 * (j // 2) / d_model "
            "(see 'A common mistake: the exponent doubled')."),
    Mistake("a column index used in place of the pair index",
            lambda: Function.outputs(_own_exponent_table, PROBES),
            "Each column gets its own exponent j / d_model, so the odd column turns a little slower "
            "than the even one before it. A cosine column shares its sine's angle: use j - j % 2, "
            "the even column of j's pair (see 'Pair index or column index')."),
    Mistake("the concatenated layout, sines first and cosines after",
            lambda: Function.outputs(lambda n, d: sinusoidal_encoding(np.arange(n), d, layout="concatenated"), PROBES),
            "The paper interleaves: the sine of pair i in column 2i, its cosine in column 2i + 1."),
    Mistake("sine and cosine swapped (cosines in the even columns)",
            lambda: Function.outputs(_swapped_within_pairs, PROBES),
            "Even columns hold the sine, odd ones the cosine: row 0 must read (0, 1, 0, 1, ...)."),
    Mistake("angles in degrees",
            lambda: Function.outputs(lambda n, d: sinusoidal_encoding(np.arange(n) * np.pi / 180, d), PROBES),
            "math.sin and math.cos take radians; the angle pos / 10000^(2i/d_model) is in radians "
            "already, so do not convert it."),
    Mistake("positions counted from 1",
            lambda: Function.outputs(lambda n, d: sinusoidal_encoding(np.arange(1, n + 1), d), PROBES),
            "Row 0 is position 0, whose encoding is (0, 1, 0, 1, ...): loop over range(seq_len)."),
)

COLUMN_LOOP = Exercise(
    "ex-column-loop", CHAPTER,
    parts=(
        Part("the exponent x of column 7 at d_model = 8",
             Number("the exponent x", atol=1e-9), _column_7_exponent,
             "Column 7 is the cosine of pair 3, which it shares with column 6: 2 * 3 / 8 = 6 / 8.",
             (Mistake("the column's own exponent, 7 / 8", lambda: 7 / 8,
                      "Column 7 is the cosine of pair 3; it turns with its sine, column 6. Round the "
                      "column down to its pair's even column: j - j % 2."),
              Mistake("the doubled exponent, 2 * 7 / 8", lambda: 2 * 7 / 8,
                      "That reads the paper's i as the column. i numbers the pairs: column 7 is in pair 3."),
              Mistake("the pair index without its factor 2, 3 / 8", lambda: 3 / 8,
                      "Pair 3 is right, but its exponent is 2i / d_model = 2 * 3 / 8."))),
        Part("your loop by columns, column_loop(seq_len, d_model)",
             Function(PROBES, Array("the table, shape (seq_len, d_model)", atol=1e-12),
                      "column_loop(seq_len, d_model) returning the table"),
             lambda: Function.outputs(loop_encoding, PROBES),
             "One angle per pair, its sine in the even column and its cosine in the odd one: the same "
             "table as loop_encoding.",
             COLUMN_LOOP_MISTAKES),
    ),
    hints=(
        "Column j belongs to pair j // 2; which exponent does the pair have in the paper's formula?",
        "The even column of j's pair is j - j % 2; it is the paper's 2i, so the exponent is "
        "(j - j % 2) / d_model, with no further factor 2.",
        "Inside the loops: angle = pos / 10000 ** ((j - j % 2) / d_model); math.sin(angle) if j is "
        "even, math.cos(angle) if it is odd. Compare with loop_encoding(50, 64).",
    ),
)


# ex-row-norm -------------------------------------------------------------------------------------

def _norms(table: np.ndarray) -> tuple[float, float]:
    norms = np.linalg.norm(table, axis=1)
    return float(norms.min()), float(norms.max())


ROW_NORM = Exercise(
    "ex-row-norm", CHAPTER,
    parts=(
        Part("do all its rows still have one norm?",
             Choice(("yes", "no"), aliases=((True, "yes"), (False, "no")), what="'yes' or 'no'"),
             lambda: "no" if np.ptp(_norms(_own_exponent_table(1000, 512))) > 1e-9 else "yes",
             "The sine and the cosine of a 'pair' now have different angles, so sin^2 + cos^2 is no "
             "longer 1 pair by pair, and the norm changes with the position.",
             (Mistake("the paper's table, not this one", lambda: "yes",
                      "In the paper's table the two columns of a pair share one angle, hence the one "
                      "norm. Here column 2i + 1 turns at 10000^(-(2i+1)/d_model): does sin^2 + cos^2 "
                      "still add up to 1?"),)),
        Part("(smallest, largest) row norm over positions 0 to 999 at d_model = 512",
             Several((Number("the smallest norm", atol=0.01), Number("the largest norm", atol=0.01)),
                     ("smallest", "largest")),
             lambda: _norms(_own_exponent_table(1000, 512)),
             "Only position 0 has the norm sqrt(d_model / 2) = 16 exactly; the others wander by more "
             "than half a unit.",
             (Mistake("the paper's table, whose rows all have the norm 16",
                      lambda: _norms(sinusoidal_encoding(np.arange(1000), 512)),
                      "Build the faulty table: exponent j / d_model for every column j, sine in even "
                      "columns, cosine in odd ones."),
              Mistake("squared norms", lambda: tuple(value**2 for value in _norms(_own_exponent_table(1000, 512))),
                      "np.linalg.norm gives the norm; the sum of squares is its square."),
              Mistake("the doubled exponent, 2j / d_model for column j",
                      lambda: _norms(_own_exponent_table(1000, 512, exponent_scale=2.0)),
                      "The faulty loop uses j / d_model, the column's own index over the width, not 2j.")),
             first_hint=1),
    ),
    hints=(
        "Each pair contributes sin^2(a) + cos^2(b) to the squared norm. When is that 1?",
        "Build the table with numpy: angles = positions[:, None] / 10000 ** (j / d_model) for "
        "j = np.arange(512), then np.where(j % 2 == 0, np.sin(angles), np.cos(angles)).",
        "np.linalg.norm(table, axis=1) gives one norm per row; take its min and max.",
    ),
)


# ex-first-return ---------------------------------------------------------------------------------

def _first(condition: np.ndarray) -> int:
    return int(np.flatnonzero(condition)[0])


def _column_0(seq_len: int = 400) -> np.ndarray:
    return loop_encoding(seq_len, 2)[:, 0]


FIRST_RETURN = Exercise(
    "ex-first-return", CHAPTER,
    parts=(
        Part("the first position pos >= 1 with |sin(pos)| < 0.01",
             Number("a position", integer=True),
             lambda: _first((np.abs(_column_0()) < 0.01) & (np.arange(400) >= 1)),
             "22 is just above 7 pi (22/7 is the schoolbook value of pi): sin(22) = -0.0089.",
             (Mistake("the first position near a multiple of pi, but not within 0.01",
                      lambda: _first((np.abs(_column_0()) < 0.2) & (np.arange(400) >= 1)),
                      "sin(3) = 0.14: close to 0, not within 0.01. Which multiples of pi come within "
                      "0.01 of an integer?"),
              Mistake("the first return of the whole pair, near a multiple of 2 pi",
                      lambda: _first((np.abs(_column_0()) < 0.02) & (loop_encoding(400, 2)[:, 1] > 0)
                                     & (np.arange(400) >= 1)),
                      "Column 0 alone is near 0 at every multiple of pi, not only at multiples of 2 pi "
                      "(and sin(44) = 0.018 is not within 0.01)."),
              Mistake("the multiple of pi, not the position",
                      lambda: round(_first((np.abs(_column_0()) < 0.01) & (np.arange(400) >= 1)) / np.pi),
                      "The position is the integer near that multiple of pi."),
              Mistake("a position in degrees",
                      lambda: _first((np.abs(np.sin(np.arange(400) * np.pi / 180)) < 0.01) & (np.arange(400) >= 1)),
                      "sin(180 degrees) is 0, but the encoding's angles are radians: column 0 is "
                      "sin(pos) with pos in radians."))),
        Part("will it ever come back to exactly 0?",
             Choice(("yes", "no"), aliases=((True, "yes"), (False, "no")), what="'yes' or 'no'"),
             lambda: "no" if np.all(np.sin(np.arange(1, 10**6, dtype=np.float64)) != 0) else "yes",
             "sin(pos) = 0 only at multiples of pi, and since pi is irrational no positive integer is one.",
             (Mistake("a return at a multiple of pi", lambda: "yes",
                      "It would need an integer that is a multiple of pi, that is pi = pos / n, a "
                      "rational number: pi is irrational."),)),
    ),
    hints=(
        "sin(pos) is near 0 when pos is near a multiple of pi: pi, 2 pi, 3 pi, ...",
        "Which multiple of pi comes within about 0.01 of an integer? Try 22 / 7.",
        "Compute it: column = loop_encoding(100, 2)[:, 0]; the first pos >= 1 with abs(column[pos]) < 0.01.",
    ),
)


# ex-similarity-width -----------------------------------------------------------------------------

WIDTHS = (64, 4096)


def _similarity(d_model: int, base: float = BASE) -> float:
    return float(cosine_similarity(*sinusoidal_encoding([2, 10], d_model, base=base)))


def _similarities(base: float = BASE) -> tuple[float, ...]:
    return tuple(_similarity(width, base) for width in WIDTHS)


def _trend() -> str:
    gaps = [abs(value - _similarity(512)) for value in _similarities()]
    return "about the same" if max(gaps) < 0.05 else "much larger or smaller"


SIMILARITY_WIDTH = Exercise(
    "ex-similarity-width", CHAPTER,
    parts=(
        Part("the similarity of positions 2 and 10 at d_model = 64 and 4096, beside 0.7225 at 512",
             Choice(("much larger", "much smaller", "about the same"), aliases=(("same", "about the same"),
                                                                                 ("larger", "much larger"),
                                                                                 ("smaller", "much smaller")),
                    what="a choice"),
             _trend,
             "A wider table samples the same exponents 2i/d_model in [0, 1) more finely; the mean of "
             "cos(8 omega_i) tends to an integral that does not depend on d_model.",
             (Mistake("a guess that more pairs make positions more alike", lambda: "much larger",
                      "A wider table has more slow pairs, but also more fast ones: the share of each "
                      "stays the same, since the exponents 2i/d_model still fill [0, 1) evenly."),
              Mistake("a guess that more pairs make positions less alike", lambda: "much smaller",
                      "The similarity is a mean over the pairs, not a sum: more pairs do not make "
                      "it smaller. Which share of the pairs is slow at each width?"))),
        Part("(similarity at d_model = 64, similarity at d_model = 4096)",
             Several((Number("a similarity", atol=5e-4), Number("a similarity", atol=5e-4)),
                     ("at 64", "at 4096")),
             _similarities,
             "0.7004 and 0.7246 beside 0.7225 at 512: the width sets how many pairs share the work, "
             "not how alike two positions are.",
             (Mistake("the similarities with the doubled exponent (base 10^8)", lambda: _similarities(BASE**2),
                      "Those are the table of the doubled exponent: check the exponent 2i/d_model."),
              Mistake("dot products, not cosine similarities",
                      lambda: tuple(value * width / 2 for value, width in zip(_similarities(), WIDTHS)),
                      "Divide the dot product by the norms, sqrt(d_model / 2) each (cosine_similarity does)."),
              Mistake("the integral, the limit of very wide tables, twice",
                      lambda: (_similarity(2**16),) * 2,
                      "The integral is what the similarity tends to; compute the two widths' own values.")),
             first_hint=2),
    ),
    hints=(
        "The similarity is the mean over the pairs of cos(8 omega_i). What does a wider table change "
        "about the omega_i: their range, or how finely they sample it?",
        "The exponents 2i/d_model are evenly spaced in [0, 1) at every width.",
        "Compute cosine_similarity(*sinusoidal_encoding([2, 10], width)) for width 64 and 4096.",
    ),
)

register(COLUMN_LOOP, ROW_NORM, FIRST_RETURN, SIMILARITY_WIDTH)
