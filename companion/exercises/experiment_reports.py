"""The exercises of the appendix *Experiment reports* (notebooks/experiment_reports.ipynb)."""

from __future__ import annotations

import numpy as np

from ..analysis.linearity import rotation_matrix
from ..encoding.context_extension import ntk_aware_base
from ..encoding.table import sinusoidal_encoding
from ..transformer.tasks import CopyOffsetTask
from .answers import Array, Choice, Function, Number, Several
from .registry import Exercise, Mistake, Part, register

CHAPTER = "experiment_reports"
ANGLES = np.linspace(0.1, 6.2, 13)


def _commutes(matrix: np.ndarray) -> bool:
    """True if the real 2 x 2 `matrix` commutes with the rotations of ANGLES (the checker refuses complex ones)."""
    if matrix.shape != (2, 2):
        return False
    with np.errstate(all="ignore"):  # entries near the float64 limit overflow: then it does not commute
        return all(np.allclose(rotation_matrix(theta, 2).T @ matrix @ rotation_matrix(theta, 2), matrix,
                               rtol=0, atol=1e-9) for theta in ANGLES)


def _multiple_of_identity(matrix: np.ndarray) -> bool:
    return matrix.shape == (2, 2) and np.allclose(matrix, matrix[0, 0] * np.eye(2), rtol=0, atol=1e-9)


class _CommutingBlock(Array):
    """A real 2 x 2 matrix that is right when it commutes with every rotation and is not a multiple of I.

    The expected answer is the property itself (a string). A known mistake that is a multiple of I
    stands for every multiple of I (I, 3 I, the zero matrix): they all commute, and all are excluded.
    """

    def matches(self, value, expected) -> bool:
        if isinstance(expected, str):  # the expected "answer" is the property itself
            return _commutes(value) and not _multiple_of_identity(value)
        if _multiple_of_identity(np.asarray(expected)):
            return _multiple_of_identity(value)
        return super().matches(value, expected)

    def expected_shape(self, expected) -> tuple[int, int]:
        return (2, 2)

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
             (Mistake("a multiple of I: it commutes with every rotation, but the exercise asks for one "
                      "that is not", lambda: np.eye(2),
                      "With M_ii = a I (a = 0 too), pair i adds a cos omega_i (s - p): the raw similarity, "
                      "weighted. Which other 2 x 2 matrices commute with the quarter turn rho(pi / 2) = "
                      "[[0, 1], [-1, 0]]?"),
              Mistake("a diagonal block with unequal entries", lambda: np.diag([1.0, 2.0]),
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
        Part("beyond L, NoPE's copying accuracy",
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
                      "The order-blind model does better than chance: compute order_blind_accuracy.")),
             first_hint=2),
    ),
    hints=(
        "A model without positions knows which tokens came before, not their order. What is its best guess?",
        "The most frequent earlier token; its share shrinks as more tokens come before.",
        "copy_task.order_blind_accuracy(4 * L) gives the accuracy at each position.",
    ),
)

register(NOPE_BEYOND, RELATIVE_TERMS, KEY_BEHIND, NTK_BASE)
