"""The exercises of the chapter *The vectorized version* (notebooks/03_vectorized_version.ipynb)."""

from __future__ import annotations

import numpy as np

from ..analysis.shift_precision import rounded_angles
from ..encoding.frequencies import angular_frequencies
from ..encoding.table import sinusoidal_encoding
from .answers import Array, Choice, Function, Number, Several
from .registry import Exercise, Mistake, Part, register

CHAPTER = "03_vectorized_version"

#: Position ids as the chapter's solution uses them: one sequence of 6, then two packed sequences of 3.
IDS = np.array([[0, 1, 2, 3, 4, 5], [0, 1, 2, 0, 1, 2]])
PROBES = ((IDS, 16), (np.array([[3, 1], [0, 7], [2, 2]]), 8))


def _from_ids(ids: np.ndarray, d_model: int, **options) -> np.ndarray:
    ids = np.asarray(ids)
    return sinusoidal_encoding(ids.ravel(), d_model, **options).reshape(*ids.shape, d_model)


def _outputs(function) -> tuple:
    return Function.outputs(function, PROBES)


BROADCAST_IDS = Exercise(
    "ex-broadcast-position-ids", CHAPTER,
    parts=(
        Part("the shape of ids[..., None] * omega for ids of shape (2, 6) and d_model = 16",
             Several((Number("a size", integer=True),) * 3, ("batch", "seq_len", "last axis")),
             lambda: tuple(float(n) for n in (IDS[..., None] * angular_frequencies(16)).shape),
             "(batch, seq_len, 1) against (d_model / 2,) broadcasts to (batch, seq_len, d_model / 2): "
             "one angle per pair.",
             (Mistake("d_model on the last axis", lambda: (2.0, 6.0, 16.0),
                      "omega has one entry per pair, d_model / 2 of them; the sines and cosines fill "
                      "the d_model columns afterwards."),
              Mistake("the new axis kept at size 1", lambda: (2.0, 6.0, 1.0),
                      "Broadcasting stretches the axis of size 1 to omega's length."))),
        Part("a function encodings(ids, d_model) returning shape ids.shape + (d_model,)",
             Function(PROBES, Array("the encodings", atol=1e-6),
                      "encodings(ids, d_model) returning an array of shape ids.shape + (d_model,)",
                      calls=("(the solution's ids of shape (2, 6), 16)", "(ids of shape (3, 2), 8)")),
             lambda: _outputs(_from_ids),
             "Every token gets the encoding of its own id: the layer's result with x all zeros.",
             (Mistake("the concatenated layout", lambda: _outputs(lambda ids, d: _from_ids(ids, d, layout="concatenated")),
                      "The paper's layout interleaves: [..., 0::2] for the sines, [..., 1::2] for the cosines. "
                      "Stacking on the wrong axis gives [sin | cos]."),
              Mistake("the ids ignored (positions 0, 1, 2, ... in every row)",
                      lambda: _outputs(lambda ids, d: _from_ids(np.broadcast_to(np.arange(np.shape(ids)[-1]),
                                                                                np.shape(ids)), d)),
                      "Packed sequences restart at 0: use the ids themselves, ids[..., None] * omega."),
              Mistake("ids off by one", lambda: _outputs(lambda ids, d: _from_ids(np.asarray(ids) + 1, d)),
                      "An id is the position itself: id 0 is encoded as PE(0) = (0, 1, 0, 1, ...).")),
             first_hint=1),
    ),
    hints=(
        "ids[..., None] has shape (batch, seq_len, 1); omega = angular_frequencies(d_model) has shape "
        "(d_model / 2,).",
        "Fill an empty array of shape ids.shape + (d_model,): [..., 0::2] with the sines of the angles, "
        "[..., 1::2] with their cosines.",
        "Compare with SinusoidalPositionalEncoding(d_model)(torch.zeros(*ids.shape, d_model), "
        "positions=torch.from_numpy(ids)).",
    ),
)

DECODING = Exercise(
    "ex-decoding-without-offset", CHAPTER,
    parts=(
        Part("the encodings the five generated tokens receive, shape (5, 16)",
             Array("the encodings, shape (5, 16)", atol=1e-6),
             lambda: sinusoidal_encoding(np.zeros(5), 16),
             "Without positions, a one-token input is position 0: every generated token gets PE(0), "
             "and the encoding says nothing about their order.",
             (Mistake("what the layer gives with positions=t", lambda: sinusoidal_encoding(np.arange(5), 16),
                      "That is the fix. Without positions=, each call numbers its one token from 0."),
              Mistake("positions 1 to 5", lambda: sinusoidal_encoding(np.arange(1, 6), 16),
                      "Each call sees a one-token input, numbered from 0, whatever came before."))),
    ),
    hints=(
        "Without positions, the layer numbers the tokens of its input from 0.",
        "Each step's input holds one token. Which position does it get?",
        "Run it: five calls layer(step) on zero embeddings of shape (1, 1, 16), then compare the rows.",
    ),
)

P = 100_000


def _frequency_error(position: float, precision: str = "float32") -> float:
    exact = rounded_angles([position], 512, precision="float64")
    return float(np.abs(rounded_angles([position], 512, precision=precision, rounded=("frequency",)) - exact).max())


def _error_bound(position: float = P, bits: int = 24) -> float:
    """|p| omega_0 2^-bits: one rounding of the fastest frequency's relative error, at position p."""
    return float(position * angular_frequencies(512).max() * 2.0**-bits)


EXP_LOG_FORMS = Exercise(
    "ex-exp-log-forms", CHAPTER,
    parts=(
        Part("the angle error that a relative error in omega_i gives, as the position p grows",
             Choice(("fixed", "grows with p"), aliases=(("grows", "grows with p"),), what="'fixed' or 'grows with p'"),
             lambda: "grows with p" if _frequency_error(10**6) > 100 * _frequency_error(10**2) else "fixed",
             "The angle is p omega_i: a relative error epsilon in omega_i is an absolute error p omega_i "
             "epsilon in the angle.",
             (Mistake("a relative error taken for an absolute one", lambda: "fixed",
                      "The angle p omega_i multiplies the error by p."),)),
        Part("how large the angle error is at p = 10^5 in float32, in radians, from one rounding of omega_i "
             "(one significant figure)",
             Number("an angle error in radians", rtol=0.6), _error_bound,
             "About 10^5 * 6e-8 = 6e-3 radians for the fast pairs, in either form.",
             (Mistake("epsilon alone, without the factor p", lambda: 2.0**-24,
                      "The angle error is p omega_i epsilon: multiply by the position."),
              Mistake("float64's epsilon", lambda: _error_bound(bits=53),
                      "The exercise asks about float32, 24 significant bits: epsilon up to 2^-24."),
              Mistake("bfloat16's epsilon", lambda: _error_bound(bits=8),
                      "The exercise asks about float32, 24 significant bits: epsilon up to 2^-24."),
              Mistake("two roundings counted", lambda: 2 * _error_bound(),
                      "Right as a bound for the whole angle (omega_i and the product are each rounded); "
                      "the exercise asks for one rounding of omega_i: p * 2^-24.")),
             first_hint=1),
    ),
    hints=(
        "b^x = e^(x ln b): the two forms are one number. What does a relative error in omega_i do to "
        "the product p omega_i?",
        "The error of the angle is p omega_i epsilon; the fast pairs have omega_i near 1.",
        "With epsilon = 2^-24 and p = 10^5: multiply.",
    ),
)

register(BROADCAST_IDS, DECODING, EXP_LOG_FORMS)
