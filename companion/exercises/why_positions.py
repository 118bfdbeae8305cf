"""The exercises of the chapter *Why a Transformer needs positions* (notebooks/01_why_positions.ipynb)."""

from __future__ import annotations

import numpy as np

from ..encoding.table import sinusoidal_encoding
from ..transformer.attention import attention_weights
from .answers import Choice, Number
from .registry import Exercise, Mistake, Part, register

CHAPTER = "01_why_positions"
WIDTH = 512


def _shared_code_similarity(squared_norm: float, d_model: int = WIDTH) -> float:
    """|c|^2 / (d_model + |c|^2): two unrelated words of squared norm d_model, plus one code c."""
    return squared_norm / (d_model + squared_norm)


def _sinusoidal_squared_norm() -> float:
    return float(np.sum(sinusoidal_encoding([37], WIDTH) ** 2))


# ex-equivariance: the proof's checkable step, which product of P, softmax(S) and P^T softmax(P S P^T) is.

PRODUCTS = ("P softmax(S) P^T", "P softmax(S)", "softmax(S) P^T", "softmax(S)")


def _permuted_softmax() -> str:
    """The product equal to softmax(P S P^T), found on random scores S and a cyclic permutation P."""
    scores = np.random.default_rng(0).normal(size=(5, 5))
    p = np.roll(np.eye(5), 1, axis=0)
    weights = attention_weights(scores)
    candidates = dict(zip(PRODUCTS, (p @ weights @ p.T, p @ weights, weights @ p.T, weights)))
    permuted = attention_weights(p @ scores @ p.T)
    matching = [name for name, value in candidates.items() if np.allclose(value, permuted, rtol=0, atol=1e-12)]
    return matching[0] if len(matching) == 1 else "more than one"


EQUIVARIANCE = Exercise(
    "ex-equivariance", CHAPTER,
    parts=(
        Part("the proof's step: softmax(P S P^T), the weights of PX, as a product of P, softmax(S) and P^T",
             Choice(PRODUCTS, aliases=tuple((name.replace(" ", "@").replace("^T", ".T"), name) for name in PRODUCTS),
                    what="one of " + ", ".join(map(repr, PRODUCTS))),
             _permuted_softmax,
             "P S P^T permutes the rows of S and the entries of each row alike; a row-wise softmax "
             "permutes with them: softmax(P S P^T) = P softmax(S) P^T, and P^T P V = V.",
             (Mistake("the rows permuted but not the keys", lambda: PRODUCTS[1],
                      "The keys are permuted too: S becomes P S P^T, whose P^T permutes the entries of "
                      "each row."),
              Mistake("the keys permuted but not the queries", lambda: PRODUCTS[2],
                      "The queries are permuted too: the P on the left permutes the rows of S."),
              Mistake("the weights unchanged", lambda: PRODUCTS[3],
                      "Each query keeps its weights, but they move: to its new row, and within the row "
                      "with the keys."))),
    ),
    hints=(
        "With PX in place of X, Q, K and V become PQ, PK and PV: what do the scores Q K^T / sqrt(d_k) become?",
        "The scores become P S P^T. The softmax acts on each row alone: what does permuting a row's "
        "entries do to its softmax?",
        "Try it: attention_weights(P @ S @ P.T) against each product, with "
        "P = np.roll(np.eye(5), 1, axis=0) and S random.",
    ),
)


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

register(EQUIVARIANCE, SHARED_CODE, HALF_APART)
