"""The exercises of the chapter *Black and brown: word vectors meet positions* (notebooks/04_word2vec_black_brown.ipynb)."""

from __future__ import annotations

import numpy as np

from ..analysis.similarity import cosine_similarity
from ..encoding.table import sinusoidal_encoding
from ..word2vec.blend import blend_weight, blended_similarity
from .answers import Number, Several
from .registry import Exercise, Mistake, Part, register

CHAPTER = "04_word2vec_black_brown"
WIDTH = 512
#: The rerun's word similarity of "black" and "brown", which the exercise gives (a datum, not an answer).
RERUN_WORD_SIMILARITY = 0.9993


def _positional(p: int, q: int, d_model: int = WIDTH) -> float:
    return float(cosine_similarity(*sinusoidal_encoding([p, q], d_model)))


def _blend(word: float, positions: tuple[int, int], norm: float, *, scale: bool = True,
           squared_scale: float | None = None) -> float:
    if squared_scale is None:
        return float(blended_similarity(word, _positional(*positions), norm, norm, WIDTH, scale=scale))
    # a scale s^2 other than the paper's d_model or 1, for the mistake of scaling twice
    lam = squared_scale * norm**2 / (squared_scale * norm**2 + WIDTH / 2)
    return float(lam * word + (1 - lam) * _positional(*positions))


def _pair(**options) -> tuple[float, float]:
    return tuple(_blend(0.0, positions, 1.0, **options) for positions in ((5, 5), (2, 10)))


UNRELATED_WORDS = Exercise(
    "ex-unrelated-words", CHAPTER,
    parts=(
        Part("(similarity at the same position, similarity at positions 2 and 10)",
             Several((Number("a similarity", atol=0.005), Number("a similarity", atol=0.005)),
                     ("same position", "positions 2 and 10")),
             lambda: _pair(),
             "With r = 1 the weight of the words is lambda = 2/3: the blend is 1/3 at the same "
             "position and 0.7225 / 3 at positions 2 and 10.",
             (Mistake("the blend without the sqrt(d_model) scaling", lambda: _pair(scale=False),
                      "The exercise scales the word vectors by sqrt(d_model): lambda = 2r^2 / (2r^2 + 1)."),
              Mistake("the blend with the scaling applied twice, or the word similarity alone",
                      lambda: _pair(squared_scale=WIDTH**2),
                      "The shared position adds (1 - lambda) times the positional similarity, with "
                      "lambda = 2r^2 / (2r^2 + 1): multiply by sqrt(d_model) once, s^2 = d_model."),
              Mistake("weights of one half each", lambda: (0.5, _positional(2, 10) / 2),
                      "The weights come from the squared norms: s^2 r^2 = d_model against d_model / 2."))),
    ),
    hints=(
        "With the scaling, lambda = 2r^2 / (2r^2 + 1); here r = 1.",
        "The blend is lambda * cos(words) + (1 - lambda) * cos(PE(p), PE(q)), and cos(words) is about 0.",
        "blend.blended_similarity(0, positional, 1, 1, 512) computes it.",
    ),
)


def _longer(norm: float = 3.0, **options) -> float:
    return _blend(RERUN_WORD_SIMILARITY, (2, 10), norm, **options)


LONGER_VECTORS = Exercise(
    "ex-longer-vectors", CHAPTER,
    parts=(
        Part("the similarity of the scaled sums for word vectors of norm 3",
             Number("a similarity", atol=0.002), _longer,
             "lambda = 18/19: the position's share falls from a third to a nineteenth, and the blend "
             "is 0.985.",
             (Mistake("the blend at norm 1", lambda: _longer(1.0),
                      "The words now have norm 3: lambda = 2 * 9 / (2 * 9 + 1)."),
              Mistake("the norm used where its square belongs",
                      lambda: (lambda lam: lam * RERUN_WORD_SIMILARITY + (1 - lam) * _positional(2, 10))(
                          float(blend_weight(np.sqrt(3.0), WIDTH))),
                      "lambda = 2r^2 / (2r^2 + 1) with r^2 = 9, not r = 3 in place of r^2."),
              Mistake("the blend without the scaling", lambda: _longer(scale=False),
                      "The exercise keeps the sqrt(d_model) scaling."))),
    ),
    hints=(
        "Compute lambda = 2r^2 / (2r^2 + 1) for r = 3.",
        "Then blend: lambda * 0.9993 + (1 - lambda) * 0.7225.",
        "blend.blend_weight(3.0, 512) gives lambda.",
    ),
)


def _smallest_width(share: float = 0.01) -> int:
    """The first even width at which unscaled word vectors of norm 1 keep less than `share` of the weight."""
    return next(width for width in range(2, 2_000, 2) if blend_weight(1.0, width, scale=False) < share)


def _norm_for_share(share: float = 0.99, **options) -> float:
    norms = np.linspace(0.1, 20, 400_001)
    return float(norms[np.argmin(np.abs(blend_weight(norms, WIDTH, **options) - share))])


UNSCALED_WIDTH = Exercise(
    "ex-unscaled-width", CHAPTER,
    parts=(
        Part("(the smallest even width without the scaling, the norm r with the scaling)",
             Several((Number("a width", integer=True), Number("a norm", atol=0.05)), ("width", "norm")),
             lambda: (_smallest_width(), _norm_for_share()),
             "Without the scaling lambda = 2 / (2 + d_model) < 0.01 from d_model = 200; with it, "
             "2r^2 / (2r^2 + 1) = 0.99 at r^2 = 49.5, r about 7.",
             (Mistake("r^2 given for r", lambda: (_smallest_width(), _norm_for_share() ** 2),
                      "2r^2 = 99 gives r^2 = 49.5: the norm is its square root."),
              Mistake("the boundary width itself", lambda: (_smallest_width() - 2, _norm_for_share()),
                      "At d_model = 198, lambda = 2/200 = 0.01 exactly: not less than 1%."),
              Mistake("the encoding's squared norm taken as d_model", lambda: (_smallest_width() // 2,
                                                                              _norm_for_share()),
                      "Every encoding has squared norm d_model / 2, not d_model: lambda = 2 / (2 + d_model)."))),
    ),
    hints=(
        "Without the scaling, lambda = r^2 / (r^2 + d_model / 2) with r = 1.",
        "lambda < 0.01 when d_model / 2 > 99 r^2.",
        "With the scaling, solve 2r^2 / (2r^2 + 1) = 0.99 for r.",
    ),
)

register(UNRELATED_WORDS, LONGER_VECTORS, UNSCALED_WIDTH)
