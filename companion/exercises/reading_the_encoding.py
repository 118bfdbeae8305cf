"""The exercises of the chapter *Reading the encoding* (notebooks/07_reading_the_encoding.ipynb)."""

from __future__ import annotations

import numpy as np

from ..analysis.distinguishability import offset_distances, similarity_trend_scales
from ..analysis.linearity import rotation_matrix
from ..encoding.context_extension import ntk_aware_base
from ..encoding.table import sinusoidal_encoding
from .answers import Choice, Function, Number, Several
from .registry import Exercise, Mistake, Part, register

CHAPTER = "07_reading_the_encoding"
WIDTH = 16_384


def _distance_per_root_width(d_model: int = WIDTH) -> float:
    return float(offset_distances([1], d_model)[0] / np.sqrt(d_model))


NEIGHBOUR_DISTANCE = Exercise(
    "ex-neighbour-distance", CHAPTER,
    parts=(
        Part("how |PE(p + 1) - PE(p)| grows with d_model: 'like sqrt(d_model)', 'like d_model', 'like log(d_model)' "
             "or 'not at all'",
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
             Number("a constant", atol=0.001), _distance_per_root_width,
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

NTK_PROBES = ((10_000.0, 8.0, 128), (10_000.0, 4.0, 64), (500_000.0, 16.0, 128))


NTK_BASE = Exercise(
    "ex-ntk-base", CHAPTER,
    parts=(
        Part("a function new_base(base, scale, d_model) giving b'",
             Function(NTK_PROBES, Number("a base", rtol=1e-9), "new_base(base, scale, d_model) returning b'"),
             lambda: Function.outputs(ntk_aware_base, NTK_PROBES),
             "b' = b s^(d/(d - 2)): pair 0 keeps omega_0 = 1, the slowest turns s times more slowly; pair i "
             "is slowed by s^(2i/(d - 2)).",
             (Mistake("the base multiplied by the scale", lambda: Function.outputs(lambda b, s, d: b * s, NTK_PROBES),
                      "That slows the slowest pair by s^((d - 2)/d), a little less than s."),
              Mistake("the exponent inverted, s^((d - 2)/d)",
                      lambda: Function.outputs(lambda b, s, d: b * s ** ((d - 2) / d), NTK_PROBES),
                      "Solve b'^((d - 2)/d) = s b^((d - 2)/d) for b': raise both sides to d / (d - 2)."),
              Mistake("the exponent d / 2", lambda: Function.outputs(lambda b, s, d: b * s ** (d / 2), NTK_PROBES),
                      "The slowest pair is i = d/2 - 1, with the exponent 2i/d = (d - 2)/d."))),
    ),
    hints=(
        "Pair 0 has omega_0 = b'^0 = 1 for every base. The slowest pair, i = d/2 - 1, turns at b'^(-(d-2)/d).",
        "Require b'^(-(d - 2)/d) = b^(-(d - 2)/d) / s and solve for b'.",
        "Compare with context_extension.ntk_aware_base(base, scale, d_model).",
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

KEYS = np.arange(40, 61)


def _winner(matrix: np.ndarray) -> int:
    query = sinusoidal_encoding([50], 128)[0]
    return int(KEYS[np.argmax(query @ matrix @ sinusoidal_encoding(KEYS, 128).T)])


KEY_BEHIND = Exercise(
    "ex-key-behind", CHAPTER,
    parts=(
        Part("(the winning key with the raw dot product, the winning key with M = R(3))",
             Several((Number("a key position", integer=True),) * 2, ("raw", "with R(3)")),
             lambda: (float(_winner(np.eye(128))), float(_winner(rotation_matrix(3, 128)))),
             "M PE(s)^T = PE(s + 3)^T: the score is the raw similarity at offset s + 3 - 50, largest "
             "three keys back, at 47.",
             (Mistake("the sign of the offset", lambda: (float(_winner(np.eye(128))),
                                                          float(_winner(rotation_matrix(-3, 128)))),
                      "R(3) PE(s) = PE(s + 3), so the key s scores like position s + 3: the best s is 50 - 3."),
              Mistake("the rotation ignored", lambda: (float(_winner(np.eye(128))),) * 2,
                      "With M = R(3) the score is no longer the raw similarity of 50 and s."))),
    ),
    hints=(
        "The raw similarity depends only on |s - 50| and is largest at offset 0.",
        "R(3) PE(s)^T = PE(s + 3)^T by the shift theorem.",
        "Compute query @ rotation_matrix(3, 128) @ key_rows.T and take the argmax over keys 40 to 60.",
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

register(NEIGHBOUR_DISTANCE, NTK_BASE, DOUBLED_BASE, KEY_BEHIND, TWO_DIMENSIONS)
