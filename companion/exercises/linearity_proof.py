"""The exercises of the chapter *Shifting a position is a rotation* (notebooks/05_linearity_proof.ipynb)."""

from __future__ import annotations

import numpy as np

from ..analysis.linearity import fit_linear_map, one_function_shift_matrix, relative_dot_product, rotation_matrix
from ..encoding.frequencies import angular_frequencies
from ..encoding.table import sinusoidal_encoding
from .answers import Array, Choice, Number
from .registry import Exercise, Mistake, Part, register

CHAPTER = "05_linearity_proof"
YES_NO = Choice(("yes", "no"), aliases=((True, "yes"), (False, "no")), what="'yes' or 'no'")


# ex-sines-recurrence -----------------------------------------------------------------------------

def _cosine_blocks(k: float, d_model: int, factor: float = 2.0) -> np.ndarray:
    return factor * np.diag(np.cos(k * angular_frequencies(d_model)))


def _recurrence_holds_for_cosines() -> str:
    k, width = 7, 64
    table = sinusoidal_encoding(np.arange(2_000 + 2 * k), width)[:, 1::2]
    two_earlier = np.hstack([table[k:-k], table[: -2 * k]])
    residual = np.abs(two_earlier @ one_function_shift_matrix(k, width).T - table[2 * k:]).max()
    return "yes" if residual < 1e-10 else "no"


SINES_RECURRENCE = Exercise(
    "ex-sines-recurrence", CHAPTER,
    parts=(
        Part("the matrix M(7) at d_model = 64, shape (32, 64)",
             Array("the matrix M(7)", atol=1e-12),
             lambda: one_function_shift_matrix(7, 64),
             "sin(a + b) + sin(a - b) = 2 cos(b) sin(a): M(k) = [2 D_c(k), -I], with "
             "D_c(k) = diag cos(omega_i k), and no p in it.",
             (Mistake("the wrong sign on S(p - k)",
                      lambda: np.hstack([_cosine_blocks(7, 64), np.eye(32)]),
                      "The sum of the two angle-addition formulas gives sin(a + b) = 2 cos(b) sin(a) "
                      "- sin(a - b): the earlier position enters with a minus sign."),
              Mistake("a missing factor 2 on the cosines",
                      lambda: np.hstack([_cosine_blocks(7, 64, factor=1.0), -np.eye(32)]),
                      "Adding sin(a + b) and sin(a - b) gives cos(b) sin(a) twice."),
              Mistake("the rotation's sine rows, [D_c(k), D_s(k)]",
                      lambda: np.hstack([_cosine_blocks(7, 64, factor=1.0),
                                         np.diag(np.sin(7 * angular_frequencies(64)))]),
                      "That acts on (S(p), C(p)): it needs the cosines, which this exercise does not "
                      "have. Use S(p - k) instead: add the formulas for sin(a + b) and sin(a - b)."),
              Mistake("sines of omega_i k where their cosines belong",
                      lambda: np.hstack([2 * np.diag(np.sin(7 * angular_frequencies(64))), -np.eye(32)]),
                      "Adding the two formulas leaves 2 cos(b) sin(a): the coefficient of S(p) is "
                      "2 cos(omega_i k)."),
              Mistake("the transposed matrix",
                      lambda: one_function_shift_matrix(7, 64).T,
                      "M(k) maps the 64 numbers (S(p), S(p - k)) to the 32 of S(p + k): shape (32, 64)."))),
        Part("does it work for cosines alone?",
             YES_NO, _recurrence_holds_for_cosines,
             "cos(a + b) + cos(a - b) = 2 cos(b) cos(a): the cosines obey the same recurrence, with "
             "the same matrix.",
             (Mistake("a guess that the cosines need another matrix", lambda: "no",
                      "Add the angle-addition formulas for cos(a + b) and cos(a - b): what is left?"),)),
    ),
    hints=(
        "Write sin(a + b) and sin(a - b) with the angle-addition formula and add them: the cos(a) "
        "terms cancel.",
        "With a = omega_i p and b = omega_i k: sin omega_i (p + k) = 2 cos(omega_i k) sin omega_i p "
        "- sin omega_i (p - k). Now stack the pairs into a matrix.",
        "M = np.hstack([2 * np.diag(np.cos(7 * angular_frequencies(64))), -np.eye(32)]); compare "
        "with one_function_shift_matrix(7, 64).",
    ),
)


# ex-rotations-compose ----------------------------------------------------------------------------

IDENTITIES = ("R(7) R(100) = R(107)", "R(7) R(7)^T = I", "R(-7) = R(7)^T")


def _exact_identity() -> str:
    r7 = rotation_matrix(7, 128)
    sides = {IDENTITIES[0]: (r7 @ rotation_matrix(100, 128), rotation_matrix(107, 128)),
             IDENTITIES[1]: (r7 @ r7.T, np.eye(128)),
             IDENTITIES[2]: (rotation_matrix(-7, 128), r7.T)}
    exact = [name for name, (left, right) in sides.items() if np.array_equal(left, right)]
    return exact[0] if len(exact) == 1 else "more than one"


def _offset_of(matrix: np.ndarray) -> int:
    """The integer k, |k| <= 1000, with R(k) = `matrix` to rounding (pair 0's block picks the candidates)."""
    offsets = np.arange(-1000, 1001)
    candidates = offsets[(np.abs(np.cos(offsets) - matrix[0, 0]) < 1e-6) & (np.abs(np.sin(offsets) - matrix[0, 1]) < 1e-6)]
    for k in candidates.tolist():
        if np.allclose(rotation_matrix(k, matrix.shape[0]), matrix, rtol=0, atol=1e-9):
            return k
    raise ValueError("no rotation R(k) with |k| <= 1000 matches")


ROTATIONS_COMPOSE = Exercise(
    "ex-rotations-compose", CHAPTER,
    parts=(
        Part("which identity holds exactly in floating point",
             Choice(IDENTITIES, aliases=tuple((name.replace(" ", ""), name) for name in IDENTITIES),
                    what="one of the three identities, as written in the exercise"),
             _exact_identity,
             "The angles -7 omega_i are exactly the negatives of 7 omega_i, and the math library "
             "computes cosine as an even and sine as an odd function; the products round their sums.",
             (Mistake("an identity that holds only to rounding", lambda: IDENTITIES[0],
                      "Each entry of R(7) R(100) is a sum of products of rounded sines and cosines, "
                      "and R(107) rounds other numbers: they agree within 1e-13, not exactly. Compare "
                      "with np.array_equal."),
              Mistake("an identity that holds only to rounding", lambda: IDENTITIES[1],
                      "cos^2 + sin^2 of rounded numbers is 1 only to rounding: R(7) R(7)^T is within "
                      "1e-14 of I. Compare with np.array_equal.")),
             first_hint=1),
        Part("the offset k with R(7) R(100) = R(k)",
             Number("an offset", integer=True),
             lambda: _offset_of(rotation_matrix(7, 128) @ rotation_matrix(100, 128)),
             "Shifts compose like the offsets they stand for: rho(theta) rho(phi) = rho(theta + phi).",
             (Mistake("the offsets multiplied", lambda: 7 * 100,
                      "Multiplying the matrices adds the angles: cos(t)cos(f) - sin(t)sin(f) = cos(t + f)."),
              Mistake("a transposed rotation", lambda: _offset_of(rotation_matrix(7, 128) @ rotation_matrix(100, 128).T),
                      "R(100)^T is R(-100): a transposed rotation turns the other way."),
              Mistake("a transposed rotation", lambda: _offset_of(rotation_matrix(7, 128).T @ rotation_matrix(100, 128)),
                      "R(7)^T is R(-7): a transposed rotation turns the other way."))),
    ),
    hints=(
        "Multiply the two 2 x 2 matrices entry by entry: the top-left entry is cos(t)cos(f) - "
        "sin(t)sin(f). Which formula is that?",
        "For the floating-point question, compare each identity with np.array_equal, not np.allclose.",
        "R(-7) is built from the angles -7 omega_i, exact negatives of 7 omega_i; what do cos(-x) "
        "and sin(-x) give in the math library?",
    ),
)


# ex-fit-shift ------------------------------------------------------------------------------------

RANGES = (50_000, 2_000)
FIT_OPTIONS = ("both", "50,000 only", "2,000 only", "neither")


def _fits_that_are_r7() -> str:
    close = []
    for n_positions in RANGES:
        encodings = sinusoidal_encoding(np.arange(n_positions + 7), 64)
        fitted, _ = fit_linear_map(encodings[:n_positions], encodings[7:])
        close.append(np.abs(fitted - rotation_matrix(7, 64)).max() < 1e-8)
    return {(True, True): "both", (True, False): "50,000 only", (False, True): "2,000 only"}.get(tuple(close), "neither")


FIT_SHIFT = Exercise(
    "ex-fit-shift", CHAPTER,
    parts=(
        Part("over which range the fitted matrix is R(7)",
             Choice(FIT_OPTIONS, aliases=(("50000 only", "50,000 only"), ("2000 only", "2,000 only"),
                                          ("long", "50,000 only"), ("short", "2,000 only")),
                    what="one of " + ", ".join(map(repr, FIT_OPTIONS))),
             _fits_that_are_r7,
             "Both residuals are at rounding level, but over 2,000 positions the slow pairs' columns are "
             "nearly straight lines: many matrices fit as well, and least squares returns one far from R(7).",
             (Mistake("a small residual read as a unique fit", lambda: "both",
                      "Both fits leave a residual at rounding level. But is the best matrix unique when "
                      "the slowest pairs hardly turn? Look at the condition number of the data matrix."),
              Mistake("a guess that the fit fails on both", lambda: "neither",
                      "Over 50,000 positions, about one turn of the slowest pair, the data pin every "
                      "block of R(7) down."))),
        Part("how far the slowest pair turns in 2,000 positions, in radians",
             Number("an angle in radians", atol=0.005),
             lambda: float(2_000 * angular_frequencies(64)[-1]),
             "omega_31 = 10000^(-62/64): a quarter of a radian in 2,000 positions, so its columns are "
             "nearly straight.",
             (Mistake("turns, not radians", lambda: float(2_000 * angular_frequencies(64)[-1] / (2 * np.pi)),
                      "Multiply by 2 pi: the angle is 2,000 * omega in radians."),
              Mistake("degrees, not radians", lambda: float(np.degrees(2_000 * angular_frequencies(64)[-1])),
                      "Give the angle in radians, 2,000 * omega_31."),
              Mistake("the slowest frequency of tensor2tensor's spacing, 1 / base",
                      lambda: float(2_000 * angular_frequencies(64, spacing="tensor2tensor")[-1]),
                      "In the paper the slowest pair, i = 31, turns at 10000^(-2 * 31 / 64), a little "
                      "faster than 1/10000."),
              Mistake("the fastest pair", lambda: float(2_000 * angular_frequencies(64)[0]),
                      "Pair 0 turns one radian per position; the slowest is the last pair, i = 31.")),
             first_hint=1),
    ),
    hints=(
        "A fit can leave a tiny residual and still not be unique: what happens to least squares when "
        "some columns of the data are nearly combinations of others?",
        "The slowest pair turns 2,000 * angular_frequencies(64)[-1] radians in 2,000 positions: over "
        "so little of a turn its sine is nearly a straight line.",
        "Fit both with fit_linear_map and compare each with rotation_matrix(7, 64); "
        "np.linalg.cond(encodings) tells how singular the data are.",
    ),
)


# ex-rotation-eigenvalues -------------------------------------------------------------------------

def _eigenvalue_angles(k: float = 7, d_model: int = 8) -> np.ndarray:
    return np.angle(np.linalg.eigvals(rotation_matrix(k, d_model)))


PAIR_CHOICES = ("pairs 0 and 1", "pairs 1 and 2", "pairs 2 and 3")


def _closest_pairs(angles: np.ndarray) -> str:
    gaps = [abs(angles[i] - angles[i + 1]) for i in range(3)]
    return PAIR_CHOICES[int(np.argmin(gaps))]


def _wrapped_pair_angles() -> np.ndarray:
    """Each pair's angle 7 omega_i, up to whole turns: where its eigenvalues e^(+-i 7 omega_i) lie."""
    return np.abs(np.angle(np.exp(7j * angular_frequencies(8))))


ROTATION_EIGENVALUES = Exercise(
    "ex-rotation-eigenvalues", CHAPTER,
    parts=(
        Part("the angles of the eight eigenvalues of R(7) at d_model = 8, in radians, in (-pi, pi] or "
             "[0, 2 pi) (or the eigenvalues themselves), in any order",
             # a prediction by hand to three decimals passes (0.717 for 7 - 2 pi); two decimals are close
             Array("the eigenvalues' angles", atol=2e-3, unordered=True, angles=True, near=1e-2),
             _eigenvalue_angles,
             "Each block rho(7 omega_i) has the eigenvalues e^(+-i 7 omega_i), on the unit circle; 7 "
             "radians is 0.717 past a whole turn.",
             (Mistake("angles not wrapped to a turn",
                      lambda: np.concatenate([7 * angular_frequencies(8), -7 * angular_frequencies(8)]),
                      "They name the right eigenvalues, but an angle counts only up to whole turns: "
                      "e^(7i) = e^((7 - 2 pi) i). Give each angle within one turn, in (-pi, pi] as np.angle "
                      "does (7 - 2 pi = 0.717) or in [0, 2 pi): that shows which eigenvalues lie close."),
              Mistake("angles in degrees", lambda: np.degrees(_eigenvalue_angles()),
                      "np.angle and the encoding measure angles in radians: 7 radians is 0.717 past a "
                      "whole turn."),
              Mistake("one eigenvalue per pair", lambda: np.sort(np.abs(_eigenvalue_angles()))[::2],
                      "Each 2 x 2 rotation has two eigenvalues, e^(i theta) and e^(-i theta): eight in all."),
              Mistake("the frequencies, without the offset 7",
                      lambda: np.concatenate([angular_frequencies(8), -angular_frequencies(8)]),
                      "R(7) turns pair i by 7 omega_i, not by omega_i."))),
        Part("which two pairs' eigenvalues lie closest together",
             Choice(PAIR_CHOICES, aliases=(("0 and 1", PAIR_CHOICES[0]), ("1 and 2", PAIR_CHOICES[1]),
                                           ("2 and 3", PAIR_CHOICES[2])),
                    what="one of " + ", ".join(map(repr, PAIR_CHOICES))),
             lambda: _closest_pairs(_wrapped_pair_angles()),
             "7 radians is 0.717 past a whole turn, next to pair 1's 0.7.",
             (Mistake("the closest angles before wrapping", lambda: _closest_pairs(7 * angular_frequencies(8)),
                      "Before wrapping, 0.07 and 0.007 are closest; but 7 radians is a turn plus 0.717, "
                      "right beside 0.7."),
              Mistake("the two middle frequencies, 0.7 and 0.07", lambda: PAIR_CHOICES[1],
                      "Pairs 1 and 2 are at 0.7 and 0.07. Where is pair 0's 7 radians, up to a whole turn?")),
             first_hint=1),
    ),
    hints=(
        "A 2 x 2 rotation by theta has the eigenvalues e^(i theta) and e^(-i theta); R(7) is "
        "block-diagonal, so its eigenvalues are its blocks'.",
        "Pair i turns by 7 omega_i: 7, 0.7, 0.07, 0.007 radians. An angle counts only up to whole turns.",
        "np.angle(np.linalg.eigvals(rotation_matrix(7, 8))) gives the angles.",
    ),
)


# ex-far-position-same-encoding -------------------------------------------------------------------

def _first_closer(d_model: int, limit: int = 700_000) -> int:
    """The first offset beyond 1 whose dot product exceeds that of offset 1 (the solution's search)."""
    offsets = np.arange(1, limit)
    similarity = relative_dot_product(offsets, d_model)
    beyond = offsets[1:][similarity[1:] > similarity[0]]
    return int(beyond[0])


def _first_rise(d_model: int) -> int:
    values = relative_dot_product(np.arange(0, 1_000), d_model)
    return int(np.flatnonzero(np.diff(values) > 0)[0]) + 1


def _never_equal() -> str:
    half = 8
    return "no" if relative_dot_product(np.arange(1, 700_000), 16).max() < half else "yes"


FAR_POSITION = Exercise(
    "ex-far-position-same-encoding", CHAPTER,
    parts=(
        Part("can it equal m again for an integer k != 0?",
             YES_NO, _never_equal,
             "It would need cos(k) = 1, k a multiple of 2 pi, which no nonzero integer is; so no two "
             "positions share an encoding, at any width.",
             (Mistake("a return at a multiple of 2 pi", lambda: "yes",
                      "Every term must be 1, pair 0's too: cos(k) = 1 needs k to be a multiple of 2 pi, "
                      "and pi is irrational."),)),
        Part("at d_model = 16, the first offset beyond k = 1 whose dot product exceeds that of k = 1",
             Number("an offset", integer=True),
             lambda: _first_closer(16),
             "By Dirichlet's theorem some offset turns every pair close to a whole turn; at width 16 the "
             "first that beats the very next position is far away.",
             (Mistake("the answer for one pair (d_model = 2)", lambda: _first_closer(2, 1_000),
                      "With one pair only pair 0 must come back; at d_model = 16 all eight must."),
              Mistake("where the dot product first rises again", lambda: _first_rise(16),
                      "The dot product rises again early, but stays below its value at k = 1 for a "
                      "long way: search for the first offset that exceeds it.")),
             first_hint=1),
    ),
    hints=(
        "The sum is m only if every term cos(omega_i k) is 1. What does that ask of pair 0, with "
        "omega_0 = 1?",
        "For the number: relative_dot_product(np.arange(1, 700_000), 16) gives the dot products; "
        "compare each with the one at k = 1.",
        "It is far: more than half a million positions.",
    ),
)

register(SINES_RECURRENCE, ROTATIONS_COMPOSE, FIT_SHIFT, ROTATION_EIGENVALUES, FAR_POSITION)
