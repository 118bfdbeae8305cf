"""The exercises of the chapter *Precision and speed* (notebooks/08_precision_and_speed.ipynb)."""

from __future__ import annotations

import functools
import math

import numpy as np

from ..analysis.linearity import rotation_matrix
from ..analysis.shift_precision import angle_encoding, rope_scores, shift_residual
from ..encoding.table import sinusoidal_encoding
from .answers import Choice, Number, Several
from .registry import Exercise, Mistake, Part, register

CHAPTER = "08_precision_and_speed"


# ex-rope-one-percent -----------------------------------------------------------------------------

EXPONENTS = range(10, 24)


@functools.cache
def _query_and_key() -> tuple[np.ndarray, np.ndarray, float]:
    """The rotary section's query and key (head dimension 128, seed 0) and their exact score at offset 3."""
    query, key = np.random.default_rng(0).normal(size=(2, 128))
    exact = float(rope_scores(query, key, [10], [7], precision="float64")[0])
    return query, key, exact


def _first_window(precision: str = "float32", level: float = 0.01) -> int:
    """The exponent e of the first window of 64 query positions from 2**e whose score moves by more than `level`."""
    query, key, exact = _query_and_key()
    for e in EXPONENTS:
        positions = np.arange(2**e, 2**e + 64)
        drifted = rope_scores(query, key, positions, positions - 3, precision=precision)
        if np.abs(drifted - exact).max() / abs(exact) > level:
            return e
    raise ValueError(f"no window from 2^{EXPONENTS[0]} to 2^{EXPONENTS[-1]} moves by more than {level}")


def _as_exponent(value: float) -> float:
    """A window is named by its exponent e; its first position 2**e names it too."""
    if value >= 2**EXPONENTS[0] and math.log2(value).is_integer():
        return math.log2(value)
    return value


ROPE_ONE_PERCENT = Exercise(
    "ex-rope-one-percent", CHAPTER,
    parts=(
        Part("the exponent e of the first window (from 2^e) where the score moves by more than 1%",
             Number("an exponent", integer=True, canonical=_as_exponent),
             _first_window,
             "The drift grows like |p| 2^-24 times a few: the window from 2^18 comes close (0.95%), "
             "the one from 2^19 passes 1%.",
             (Mistake("the window that comes close", lambda: _first_window() - 1,
                      "The window from 2^18 moves the score by 0.95% at most: close, but below 1%. Take "
                      "the first window whose largest move is above 1%."),
              Mistake("where float32 stops holding every integer, 2^24",
                      lambda: 24,
                      "Positions are exact up to 2^24; what drifts long before is the rounding of the "
                      "frequency and of the product p omega_i, by up to |p| omega_i 2^-24."),
              Mistake("the first window with bfloat16 angles", lambda: _first_window("bfloat16"),
                      "Scan with precision='float32' (rope_scores' default): bfloat16 angles are off "
                      "by 1% already at p = 10."))),
    ),
    hints=(
        "The drift is of the order of |p| 2^-24 times a factor of 2 to 4 (the random-walk estimate); "
        "1% of the exact score is about 0.04. Solve for p.",
        "Scan: for e in range(10, 24), positions = np.arange(2**e, 2**e + 64), scores = "
        "rope_scores(query, key, positions, positions - 3), and compare with the exact score.",
        "The largest relative move in each window, np.abs(scores - exact).max() / abs(exact), roughly "
        "doubles from one window to the next.",
    ),
)


# ex-rounded-values -------------------------------------------------------------------------------

@functools.cache
def _largest_rotated_entry() -> float:
    """max over theta of the largest |entry| of rho(theta) e, for |e_1|, |e_2| <= 1: max |cos| + |sin|."""
    thetas = np.linspace(0, 2 * np.pi, 801)  # holds pi / 4, where the maximum is
    return float(max(np.abs(rotation_matrix(theta, 2)).sum(axis=1).max() for theta in thetas))


ROUNDED_VALUES = Exercise(
    "ex-rounded-values", CHAPTER,
    parts=(
        Part("the bound on each entry of R(k) PE~(p) - PE~(p + k), in units of u (a number c, bound c u)",
             Number("the factor c", atol=0.01),
             lambda: _largest_rotated_entry() + 1,
             "R(k) e(p) has entries at most u (|cos| + |sin|) <= sqrt(2) u, and e(p + k) adds u: "
             "(1 + sqrt 2) u at every position.",
             (Mistake("the rounding of the shifted table forgotten", _largest_rotated_entry,
                      "The residual is R(k) e(p) - e(p + k): the second table's rounding, up to u, adds to it."),
              Mistake("|cos| + |sin| taken as at most 1", lambda: 2.0,
                      "|cos theta| + |sin theta| reaches sqrt 2 at theta = pi / 4; it is cos^2 + sin^2 that is 1."),
              Mistake("|cos| + |sin| bounded by 2", lambda: 3.0,
                      "That bound holds, but it is not tight: |cos theta| + |sin theta| is at most sqrt 2."))),
    ),
    hints=(
        "Since R(k) PE(p) = PE(p + k) exactly, the residual is R(k) e(p) - e(p + k).",
        "One pair of R(k) e(p) has the entries e_1 cos(theta) + e_2 sin(theta) and e_2 cos(theta) - "
        "e_1 sin(theta); how large can each be when |e_1|, |e_2| <= u?",
        "The largest value of |cos theta| + |sin theta| is at theta = pi / 4.",
    ),
)


# ex-rounded-frequency ----------------------------------------------------------------------------

TRENDS = ("grows with p", "stays at rounding level")
MILLION = 10**6


def _trend(values_at: dict[int, float]) -> str:
    return TRENDS[0] if values_at[MILLION] > 100 * values_at[10] else TRENDS[1]


def _stored_frequency_trends() -> tuple[str, str]:
    """(a) the values' error and (b) the shift residual at p = 10 and 10**6, with float32 frequencies."""
    value_error, residual = {}, {}
    for start in (10, MILLION):
        block = np.arange(start, start + 17)
        stored = angle_encoding(block, 512, rounded=("frequency",))
        value_error[start] = np.abs(stored - sinusoidal_encoding(block, 512)).max()
        residual[start] = max(shift_residual(stored[:-1], stored[1:], 1).max(), 1e-17)
    return _trend(value_error), _trend(residual)


TREND_CHOICE = Choice(TRENDS, aliases=(("grows", TRENDS[0]), ("drifts", TRENDS[0]), ("stays", TRENDS[1]),
                                       ("fixed", TRENDS[1]), ("holds", TRENDS[1])),
                      what="one of " + " or ".join(map(repr, TRENDS)))

ROUNDED_FREQUENCY = Exercise(
    "ex-rounded-frequency", CHAPTER,
    parts=(
        Part("(a) the table's values, (b) the shift residual, each 'grows with p' or 'stays at rounding level'",
             Several((TREND_CHOICE, TREND_CHOICE), ("(a) the values", "(b) the shift residual")),
             _stored_frequency_trends,
             "A rounded frequency is the exact encoding of a slightly different frequency: the values "
             "drift by p omega_i epsilon_i, but the angle between p + k and p stays k omega~_i.",
             (Mistake("the shift taken to break with the values", lambda: (TRENDS[0], TRENDS[0]),
                      "The shift compares the angle at p + k with the angle at p: with exact positions "
                      "and a float64 product, their difference is k omega~_i, off by at most "
                      "k 2^-24, whatever p."),
              Mistake("a rounded frequency taken for a fixed error", lambda: (TRENDS[1], TRENDS[1]),
                      "The frequency's relative error epsilon_i becomes the angle error p omega_i "
                      "epsilon_i: it grows with p, like a float32 angle's."),
              Mistake("the two effects swapped", lambda: (TRENDS[1], TRENDS[0]),
                      "Which one grows: the distance to the exact table, or the failure of the shift?"))),
    ),
    hints=(
        "Write the stored frequency as omega_i (1 + epsilon_i), |epsilon_i| <= 2^-24. What is the angle "
        "error at position p?",
        "The shift residual depends on the angle at p + k minus the angle at p. How large is that "
        "difference's error?",
        "Check with angle_encoding(block, 512, rounded=('frequency',)) near 10**6: compare it with "
        "sinusoidal_encoding, and pass it to shift_residual.",
    ),
)

register(ROPE_ONE_PERCENT, ROUNDED_VALUES, ROUNDED_FREQUENCY)
