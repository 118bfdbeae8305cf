"""The exercises of the chapter *Why a Transformer needs positions* (notebooks/01_why_positions.ipynb)."""

from __future__ import annotations

import numpy as np

from ..encoding.table import sinusoidal_encoding
from .answers import Number
from .registry import Exercise, Mistake, Part, register

CHAPTER = "01_why_positions"
WIDTH = 512


def _shared_code_similarity(squared_norm: float, d_model: int = WIDTH) -> float:
    """|c|^2 / (d_model + |c|^2): two unrelated words of squared norm d_model, plus one code c."""
    return squared_norm / (d_model + squared_norm)


def _sinusoidal_squared_norm() -> float:
    return float(np.sum(sinusoidal_encoding([37], WIDTH) ** 2))


SHARED_CODE = Exercise(
    "ex-shared-code", CHAPTER,
    parts=(
        Part("the predicted similarity of two unrelated words plus the sinusoidal code, at width 512",
             Number("a similarity", atol=0.01),
             lambda: _shared_code_similarity(_sinusoidal_squared_norm()),
             "The sinusoidal code has |c|^2 = d_model / 2 at every position: (d/2) / (d + d/2) = 1/3.",
             (Mistake("|c|^2 taken as d_model", lambda: _shared_code_similarity(WIDTH),
                      "Each pair of the code lies on the unit circle: |c|^2 = d_model / 2, not d_model."),
              Mistake("|c| used where |c|^2 belongs",
                      lambda: _shared_code_similarity(np.sqrt(_sinusoidal_squared_norm())),
                      "The code adds |c|^2 to the dot product and to each squared norm."),
              Mistake("no effect of the shared code", lambda: 0.0,
                      "Adding c to both words adds about |c|^2 to their dot product."))),
    ),
    hints=(
        "Expand (u + c) . (v + c) and |u + c|^2 with u . v near 0 and u . c, v . c small.",
        "The similarity is about |c|^2 / (d_model + |c|^2).",
        "Every row of the sinusoidal table has |c|^2 = d_model / 2.",
    ),
)


def _distances(d_model: int, last: int = 100) -> np.ndarray:
    table = sinusoidal_encoding(np.arange(last + 1), d_model)
    return np.linalg.norm(table[1:] - table[0], axis=1)  # entry p - 1 is position p


def _closest(d_model: int) -> int:
    return int(np.argmin(_distances(d_model))) + 1


def _first_dip(d_model: int) -> int:
    distance = _distances(d_model)
    dips = np.flatnonzero((distance[1:-1] < distance[:-2]) & (distance[1:-1] < distance[2:]))
    return int(dips[0]) + 2


CLOSEST_POSITION = Exercise(
    "ex-closest-position", CHAPTER,
    parts=(
        Part("the position among 1 to 100 whose encoding is closest to PE(0), at d_model = 4",
             Number("a position", integer=True), lambda: _closest(4),
             "Position 19 strikes the best balance: pair 0 is 0.15 radians from its start, pair 1 has "
             "moved only 0.19.",
             (Mistake("the answer for pair 0 alone", lambda: _closest(2),
                      "Position 44 brings pair 0 closest to its start, but by then pair 1 has turned "
                      "0.44 radians away: the distance counts both pairs."),
              Mistake("pair 0's first near-return", lambda: _first_dip(4),
                      "Position 6 is close to 2 pi, but 0.28 radians off: a later return of pair 0 "
                      "comes closer while pair 1 has moved little."))),
    ),
    hints=(
        "Pair 0 comes back near its start when p is near a multiple of 2 pi; pair 1 moves 0.01 "
        "radians per position.",
        "Candidates: the nearest integers to 2 pi, 4 pi, ..., 14 pi. For each, weigh pair 0's miss "
        "against pair 1's angle 0.01 p.",
        "Compute: table = sinusoidal_encoding(np.arange(101), 4); the argmin over p >= 1 of "
        "np.linalg.norm(table[p] - table[0]).",
    ),
)


def _smallest_width(last: int = 1000, level: float = 0.5, squared: bool = False, offsets=None) -> int:
    for width in range(2, 40, 2):
        distances = _distances(width, last) if offsets is None else _distances(width, last)[offsets]
        if (distances**2 if squared else distances).min() >= level:
            return width
    raise ValueError("no width below 40")


HALF_APART = Exercise(
    "ex-half-apart", CHAPTER,
    parts=(
        Part("the smallest d_model with positions 0 to 1000 all at least 0.5 apart",
             Number("a width", integer=True), _smallest_width,
             "|PE(p) - PE(s)| depends only on s - p; at width 6 positions 132 apart come within 0.33, "
             "at width 8 no two are closer than 0.65.",
             (Mistake("neighbours compared, not every pair", lambda: _smallest_width(offsets=[0]),
                      "Neighbours are far apart already at width 2; distant positions can come back "
                      "close: compare position 0 with every position 1 to 1000."),
              Mistake("squared distances", lambda: _smallest_width(squared=True),
                      "The condition is on the distance, not its square."),
              Mistake("the last width that fails", lambda: _smallest_width() - 2,
                      "At that width positions 132 apart come within 0.33 of each other: the next even "
                      "width is the first that keeps every pair 0.5 apart."))),
    ),
    hints=(
        "With the dot product depending only on the offset, |PE(p) - PE(s)|^2 = d_model - 2 sum_i "
        "cos(omega_i (s - p)): compare position 0 with positions 1 to 1000.",
        "For each even width, the smallest of np.linalg.norm(table[1:] - table[0], axis=1).",
        "Try widths 2, 4, 6, 8, ...: one of them is the first whose smallest distance is at least 0.5.",
    ),
)

register(SHARED_CODE, CLOSEST_POSITION, HALF_APART)
