"""The exercises of the chapter *The encoding at work* (notebooks/06_attention_and_a_trained_model.ipynb)."""

from __future__ import annotations

import numpy as np

from ..analysis.equivariance import self_attention
from ..analysis.linearity import rotation_matrix
from ..transformer.attention import attention_weights
from ..transformer.tasks import CopyOffsetTask
from .answers import Array, Choice, Number
from .registry import Exercise, Mistake, Part, register

CHAPTER = "06_attention_and_a_trained_model"
YES_NO = Choice(("yes", "no"), aliases=((True, "yes"), (False, "no")), what="'yes' or 'no'")
ANGLES = np.linspace(0.1, 6.2, 13)


def _commutes(matrix: np.ndarray) -> bool:
    matrix = np.asarray(matrix, dtype=float)
    return matrix.shape == (2, 2) and all(
        np.allclose(rotation_matrix(theta, 2).T @ matrix @ rotation_matrix(theta, 2), matrix, rtol=0, atol=1e-9)
        for theta in ANGLES)


class _CommutingBlock(Array):
    """A 2 x 2 matrix that is right when it commutes with every rotation and is not a multiple of I."""

    def matches(self, value, expected) -> bool:
        if isinstance(expected, str):  # the expected "answer" is the property itself
            return value.shape == (2, 2) and _commutes(value) and not np.allclose(value, value[0, 0] * np.eye(2))
        return super().matches(value, expected)

    def show(self, value) -> str:
        return "a block a I + b J" if isinstance(value, str) else super().show(value)

    def tolerance(self) -> str:
        return "by testing rho(theta)^T M rho(theta) = M at 13 angles, to within 1e-9"


RELATIVE_TERMS = Exercise(
    "ex-relative-terms", CHAPTER,
    parts=(
        Part("a 2 x 2 block M_ii, not a multiple of I, that commutes with every rotation rho(theta)",
             _CommutingBlock("a 2 x 2 matrix", atol=1e-9),
             lambda: "commutes with every rotation",
             "Such a block is a I + b J, J the quarter turn: pair i then contributes a_i cos omega_i (s - p) "
             "+ b_i sin omega_i (s - p), a function of the offset alone.",
             (Mistake("a diagonal block with unequal entries", lambda: np.diag([1.0, 2.0]),
                      "diag(a, b) with a != b adds a multiple of cos omega_i (p + s): write out "
                      "rho(pi/2)^T M rho(pi/2)."),
              Mistake("a reflection", lambda: np.array([[1.0, 0.0], [0.0, -1.0]]),
                      "A reflection turns a rotation around: rho(theta)^T M rho(theta) = M rho(2 theta)."),
              Mistake("a symmetric block", lambda: np.array([[0.0, 1.0], [1.0, 0.0]]),
                      "J, the quarter turn, is antisymmetric: [[0, 1], [-1, 0]]. A symmetric "
                      "off-diagonal block does not commute with rotations."))),
    ),
    hints=(
        "Write M = [[a, b], [c, d]] and require rho(theta) M = M rho(theta) at theta = pi / 2.",
        "rho(pi / 2) is the quarter turn J = [[0, 1], [-1, 0]]: which matrices commute with J?",
        "Test your block: np.allclose(rotation_matrix(t, 2).T @ M @ rotation_matrix(t, 2), M) for a few t.",
    ),
)


def _most_weighted(slope: float, query: int = 7) -> int:
    distances = np.subtract.outer(np.arange(query + 1), np.arange(query + 1))
    return int(np.argmax(attention_weights(-slope * distances, causal=True)[query]))


ALIBI_RECENCY = Exercise(
    "ex-alibi-recency", CHAPTER,
    parts=(
        Part("for a query at p = 7, the position that gets the most weight",
             Number("a position", integer=True), lambda: _most_weighted(0.5),
             "The weights are proportional to e^(-m (p - s)): largest at s = p, for any slope m > 0; so "
             "p - 2 never gets more than p - 1.",
             (Mistake("the slope's sign reversed", lambda: _most_weighted(-0.5),
                      "ALiBi subtracts m (p - s) from the score: farther keys get less, not more."),
              Mistake("the token before the query", lambda: _most_weighted(0.5) - 1,
                      "A causal head sees position p itself, and the bias there is 0, the largest."))),
        Part("can such a head ever prefer p - 2?",
             YES_NO,
             lambda: "yes" if any(_most_weighted(m) == 5 for m in (0.01, 0.1, 1.0)) else "no",
             "With equal contents only the bias counts, and it decreases with the distance.",
             (Mistake("content and bias mixed up", lambda: "yes",
                      "With keys of the same content, the scores differ only by -m (p - s)."),)),
    ),
    hints=(
        "With equal contents the score of key s is -m (p - s): which s maximises it?",
        "The softmax is monotonic in the score.",
        "attention.attention_weights(-m * distances, causal=True) computes the weights.",
    ),
)


NOPE_OPTIONS = ("yes", "no", "only with more layers")


def _reads_position() -> str:
    """Two stacked heads without positions or mask, on six identical tokens: do the outputs differ by position?"""
    rng = np.random.default_rng(0)
    x = np.repeat(rng.normal(size=(1, 8)), 6, axis=0)  # six identical tokens, no positions
    for _ in range(2):
        x = x + self_attention(x, *rng.normal(size=(3, 8, 8)))
    return "no" if np.allclose(x, x[0], rtol=0, atol=1e-12) else "yes"


NOPE_ENCODER = Exercise(
    "ex-nope-encoder", CHAPTER,
    parts=(
        Part("can a model without positions and without a causal mask read off a token's position?",
             Choice(NOPE_OPTIONS, aliases=((True, "yes"), (False, "no")),
                    what="one of " + ", ".join(map(repr, NOPE_OPTIONS))),
             _reads_position,
             "In a sequence of identical tokens, swapping two positions changes nothing, so by "
             "equivariance their outputs are equal, whatever the model computes.",
             (Mistake("the causal head's trick carried over", lambda: "yes",
                      "The causal head reads 1/(p + 1) from how many keys it sees; without a mask every "
                      "query sees them all."),
              Mistake("a guess that depth helps", lambda: "only with more layers",
                      "Each layer is permutation-equivariant, and so is a stack of them: the argument "
                      "holds for the whole model."))),
    ),
    hints=(
        "Take a sequence of identical tokens and a permutation that swaps two of them.",
        "The input is unchanged by the swap; by equivariance the output is the swapped output.",
        "So the two outputs are equal: no position can be read off.",
    ),
)

BEYOND = ("falls to chance", "stays near its value at L", "in between")


def _order_blind(seq_len_multiple: int, length: int = 16) -> float:
    accuracy = CopyOffsetTask().order_blind_accuracy(4 * length)
    start, stop = {2: (1, 2), 4: (2, 4)}[seq_len_multiple]
    return float(np.nanmean(accuracy[start * length:stop * length]))


def _beyond() -> str:
    at_2l, at_4l = _order_blind(2), _order_blind(4)
    chance = 1 / CopyOffsetTask().symbols
    return BEYOND[2] if chance < at_4l < at_2l < 0.28 else BEYOND[0]


NOPE_BEYOND = Exercise(
    "ex-nope-beyond", CHAPTER,
    parts=(
        Part("beyond L, NoPE's copying: " + ", ".join(map(repr, BEYOND)),
             Choice(BEYOND, aliases=(("chance", BEYOND[0]), ("between", BEYOND[2])),
                    what="one of " + ", ".join(map(repr, BEYOND))),
             _beyond,
             "Over more earlier tokens the most frequent one is a smaller share: the order-blind "
             "accuracy falls towards 1/16 without reaching it.",
             (Mistake("chance", lambda: BEYOND[0],
                      "A model blind to order still guesses the most frequent earlier token, which is "
                      "right more often than 1/16."),
              Mistake("no change", lambda: BEYOND[1],
                      "The most frequent earlier token is a smaller share of more tokens."))),
        Part("the order-blind accuracy at 4L (positions 32 to 63)",
             Number("an accuracy", atol=0.002), lambda: _order_blind(4),
             "0.135 at 4L, beside 0.169 at 2L: between chance and 0.28.",
             (Mistake("the accuracy at 2L", lambda: _order_blind(2),
                      "4L is positions 2L to 4L - 1, 32 to 63."),
              Mistake("chance", lambda: 1 / 16,
                      "The order-blind model does better than chance: compute order_blind_accuracy."))),
    ),
    hints=(
        "A model without positions knows which tokens came before, not their order. What is its best guess?",
        "The most frequent earlier token; its share shrinks as more tokens come before.",
        "copy_task.order_blind_accuracy(4 * L) gives the accuracy at each position.",
    ),
)

register(RELATIVE_TERMS, ALIBI_RECENCY, NOPE_ENCODER, NOPE_BEYOND)
