"""The exercises of the chapter *Reading the encoding* (notebooks/07_reading_the_encoding.ipynb)."""

from __future__ import annotations

import numpy as np

from ..analysis.distinguishability import offset_distances, similarity_trend_scales
from ..encoding.table import sinusoidal_encoding
from .answers import Choice, Number, Several
from .registry import Exercise, Mistake, Part, register

CHAPTER = "07_reading_the_encoding"
WIDTH = 16_384


def _distance_per_root_width(d_model: int = WIDTH) -> float:
    return float(offset_distances([1], d_model)[0] / np.sqrt(d_model))


NEIGHBOUR_DISTANCE = Exercise(
    "ex-neighbour-distance", CHAPTER,
    parts=(
        Part("how |PE(p + 1) - PE(p)| grows with d_model",
             Choice(("like sqrt(d_model)", "like d_model", "like log(d_model)", "not at all"),
                    aliases=(("sqrt", "like sqrt(d_model)"), ("linearly", "like d_model")),
                    what="one of 'like sqrt(d_model)', 'like d_model', 'like log(d_model)', 'not at all'"),
             lambda: "like sqrt(d_model)" if abs(_distance_per_root_width(4 * WIDTH) / _distance_per_root_width() - 1)
             < 0.01 else "like d_model",
             "The squared distance is a sum over d_model / 2 pairs of terms that do not depend on the width.",
             (Mistake("the squared distance's growth", lambda: "like d_model",
                      "The squared distance grows like d_model; the distance is its square root."),
              Mistake("a guess that the distance is fixed", lambda: "not at all",
                      "Each pair adds 2 (1 - cos omega_i) to the squared distance; more pairs add more."))),
        Part("the constant distance / sqrt(d_model) for wide tables",
             Number("a constant", atol=0.001, near=0.01), _distance_per_root_width,
             "sqrt(C / ln 10000) with C = 0.2398: 0.1614, reached at width 16,384.",
             (Mistake("the square root forgotten", lambda: _distance_per_root_width() ** 2,
                      "That is the squared distance over d_model; take the square root."),
              Mistake("the 2 of 2 sum (1 - cos omega_i) dropped",
                      lambda: _distance_per_root_width() / np.sqrt(2),
                      "Each pair contributes (sin a - sin b)^2 + (cos a - cos b)^2 = 2 - 2 cos(a - b)."))),
    ),
    hints=(
        "Each pair contributes (sin a - sin b)^2 + (cos a - cos b)^2 = 2 - 2 cos(a - b), with a - b = omega_i.",
        "The sum over the d_model / 2 pairs is close to (d_model / (2 ln 10000)) times an integral that "
        "does not depend on d_model.",
        "Check: dist.offset_distances([1], width)[0] / np.sqrt(width) for widths up to 16,384.",
    ),
)

def _scales(base: float) -> tuple[float, float]:
    scales = similarity_trend_scales(base)
    return float(scales.half), float(scales.zero)


DOUBLED_BASE = Exercise(
    "ex-doubled-base", CHAPTER,
    parts=(
        Part("(where the trend halves, where it reaches 0) with base 10^8, in positions",
             Several((Number("an offset", rtol=0.01), Number("an offset", rtol=0.01)), ("halves", "reaches 0")),
             lambda: _scales(1e8),
             "The trend halves near e^(-gamma) sqrt(b) and reaches 0 near 0.6165 b: 100 and 10,000 times "
             "farther than with base 10,000.",
             (Mistake("the scales of base 10,000", lambda: _scales(1e4),
                      "The doubled exponent turns the base into 10^8: compute with that base."),
              Mistake("both scales moved by the same factor",
                      lambda: tuple(value * 1e4 for value in _scales(1e4)),
                      "The half-way point grows like sqrt(b), the zero like b: 100 and 10,000 times farther."),
              Mistake("the two scales swapped", lambda: _scales(1e8)[::-1],
                      "The trend halves first, near e^(-gamma) sqrt(b), and reaches 0 much later."))),
    ),
    hints=(
        "With base b the trend halves near e^(-gamma) sqrt(b) and reaches 0 near 0.6165 b.",
        "The doubled exponent makes b = 10^8.",
        "dist.similarity_trend_scales(1e8) computes both.",
    ),
)

PATCHES = ("(8, 8)", "(7, 9)", "(10, 10)", "(7, 13)")


def _patch_similarity(patch: tuple[int, int]) -> float:
    rows, columns = np.divmod(np.arange(14 * 14), 14)
    codes = np.hstack([sinusoidal_encoding(rows, 64), sinusoidal_encoding(columns, 64)])
    centre, other = codes[7 * 14 + 7], codes[patch[0] * 14 + patch[1]]
    return float(other @ centre / (np.linalg.norm(other) * np.linalg.norm(centre)))


def _more_like(first: str, second: str) -> str:
    return max((first, second), key=lambda name: _patch_similarity(tuple(int(v) for v in name.strip("()").split(","))))


PATCH_CHOICE = Choice(PATCHES, aliases=tuple((name.replace(" ", ""), name) for name in PATCHES),
                      what="a patch, written '(8, 8)'")

TWO_DIMENSIONS = Exercise(
    "ex-two-dimensions", CHAPTER,
    parts=(
        Part("(the patch more like (7, 7) of (8, 8) and (7, 9), the one of (10, 10) and (7, 13)), as strings",
             Several((PATCH_CHOICE, PATCH_CHOICE), ("first comparison", "second comparison")),
             lambda: (_more_like(*PATCHES[:2]), _more_like(*PATCHES[2:])),
             "The similarity is (s(dr) + s(dc)) / 2: a shared row keeps half the code identical, so "
             "(7, 13) beats (10, 10), though farther on the image.",
             (Mistake("distance on the image", lambda: ("(8, 8)", "(10, 10)"),
                      "The code measures the two offsets, not the distance: (7, 13) shares the row, "
                      "half of its code, with (7, 7)."),
              Mistake("a shared row taken to win every time", lambda: ("(7, 9)", "(7, 13)"),
                      "(8, 8) scores s(1); (7, 9) scores (1 + s(2)) / 2, and s(1) is the larger."))),
    ),
    hints=(
        "The two halves have squared norm 32 each: the similarity is (s(dr) + s(dc)) / 2.",
        "s falls fast at first, then slowly: compare s(1) with (1 + s(2)) / 2, and s(3) with (1 + s(6)) / 2.",
        "dist.offset_similarity(np.arange(14), 64) gives s.",
    ),
)

register(NEIGHBOUR_DISTANCE, DOUBLED_BASE, TWO_DIMENSIONS)
