r"""Linear probes: can a token's position be read back from the residual stream of a trained model?

A linear probe (Alain and Bengio, 2017, "Understanding intermediate layers using linear classifier
probes") is a least-squares fit from the hidden state :math:`h_p` of the token at position :math:`p`
to a property of the token, here :math:`p` itself: :math:`\hat p = h_p w + b`. It is fitted on the
states of some sequences and scored on others, by the coefficient of determination

.. math::

    R^2 = 1 - \frac{\sum (p - \hat p)^2}{\sum (p - \bar p)^2},

1 when the position is a linear function of the state, about 0 (or below) when nothing linear in
the state tracks it. A high :math:`R^2` says the information is there, readable by a linear layer;
it does not say the model uses it.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_count, check_real_array
from .._environment import require

torch = require("torch")

from .training import fixed_threads  # noqa: E402

__all__ = ["linear_probe_r2", "position_probe"]


def linear_probe_r2(fit_states, fit_positions, test_states, test_positions) -> float:
    r"""Fit positions as a linear function of states by least squares; return :math:`R^2` on other states.

    Parameters
    ----------
    fit_states : array_like, shape (n, d)
        Hidden states the probe is fitted on, one row per token.
    fit_positions : array_like, shape (n,)
        Their positions.
    test_states : array_like, shape (m, d)
        Held-out states (other sequences).
    test_positions : array_like, shape (m,)
        Their positions; not all equal.

    Returns
    -------
    float
        :math:`R^2` of the fitted probe on the held-out states: at most 1, negative when the probe
        predicts worse than the mean position.

    Raises
    ------
    ValueError
        If the shapes do not match or the held-out positions are all equal.
    TypeError
        If an argument does not hold real numbers.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> positions = np.tile(np.arange(8.0), 20)
    >>> states = np.column_stack([3 * positions + 1, rng.normal(size=160)])  # one column tracks p
    >>> round(linear_probe_r2(states[:80], positions[:80], states[80:], positions[80:]), 6)
    1.0
    >>> bool(linear_probe_r2(states[:80, 1:], positions[:80], states[80:, 1:], positions[80:]) < 0.1)  # noise
    True
    """
    fit_states, test_states, fit_positions, test_positions = _checked(
        fit_states, fit_positions, test_states, test_positions)
    with_bias = np.column_stack([fit_states, np.ones(len(fit_states))])  # a weight per feature, and b
    weights, *_ = np.linalg.lstsq(with_bias, fit_positions, rcond=None)
    predicted = np.column_stack([test_states, np.ones(len(test_states))]) @ weights
    unexplained = np.sum((test_positions - predicted) ** 2)
    return float(1 - unexplained / np.sum((test_positions - test_positions.mean()) ** 2))


def _checked(fit_states, fit_positions, test_states, test_positions):
    """The probe's arguments as float64 arrays of matching shapes."""
    arrays = [check_real_array(value, name) for value, name in [
        (fit_states, "fit_states"), (test_states, "test_states"),
        (fit_positions, "fit_positions"), (test_positions, "test_positions")]]
    fit_states, test_states, fit_positions, test_positions = arrays
    if fit_states.ndim != 2 or test_states.ndim != 2 or fit_states.shape[1] != test_states.shape[1]:
        raise ValueError(f"fit_states and test_states must have shapes (n, d) and (m, d), got {fit_states.shape} "
                         f"and {test_states.shape}")
    if fit_positions.shape != fit_states.shape[:1] or test_positions.shape != test_states.shape[:1]:
        raise ValueError(f"positions must have one value per state: got {fit_positions.shape} for "
                         f"{fit_states.shape[0]} states and {test_positions.shape} for {test_states.shape[0]}")
    if np.ptp(test_positions) == 0:
        raise ValueError("test_positions are all equal: R^2 is undefined")
    return fit_states, test_states, fit_positions, test_positions


def position_probe(run, task, seq_len: int, *, fit_len: int | None = None, num_sequences: int = 128,
                   seed: int = 11) -> np.ndarray:
    """:math:`R^2` of a linear probe for the position, at each point of a trained model's residual stream.

    The probe of each point (the first block's input, then each block's output) is fitted on the
    states of `num_sequences` sequences of the task and scored on as many others. With `fit_len`, it is
    fitted on positions ``0 .. fit_len - 1`` only and scored on positions ``fit_len .. seq_len - 1``
    only: whether a read-out learned on the training length still holds beyond it. Without, it is fitted
    and scored on every position ``0 .. seq_len - 1``, which asks less: when the state is as wide as the
    number of positions, some linear map reads back any table of independent rows.

    Parameters
    ----------
    run : Run
        A trained model (:func:`~companion.transformer.experiments.train_and_evaluate`).
    task : CopyOffsetTask, LatestMarkerTask or KeyRecallTask
        Draws the sequences.
    seq_len : int
        Their length, at least 2 (any, for the schemes without a table; at most the table's for
        ``"learned"``).
    fit_len : int, optional
        Fit on the positions below it, score on the others: at least 2 and at most ``seq_len - 2``.
    num_sequences : int, default 128
        Sequences to fit the probe on, and as many to score it on.
    seed : int, default 11
        Seeds the sequences.

    Returns
    -------
    ndarray, shape (num_layers + 1,), float64
        :math:`R^2` at the input of the first block, then after each block.

    Raises
    ------
    TypeError, ValueError
        If a size is not a positive integer, `seq_len` is below 2, `fit_len` leaves fewer than two
        positions on either side, or the model refuses the length.

    Examples
    --------
    >>> from companion.transformer.experiments import Setup, train_and_evaluate
    >>> from companion.transformer.tasks import CopyOffsetTask
    >>> run = train_and_evaluate(CopyOffsetTask(), "rotary", setup=Setup(steps=20))
    >>> r2 = position_probe(run, CopyOffsetTask(), 16, num_sequences=64)
    >>> r2.shape, bool(abs(r2[0]) < 0.1)  # rotary adds nothing to the embeddings
    ((2,), True)
    >>> bool(position_probe(run, CopyOffsetTask(), 32, fit_len=16, num_sequences=64)[0] < 0)  # nor beyond
    True
    """
    if check_count(seq_len, "seq_len") < 2 or check_count(num_sequences, "num_sequences") == 0:
        raise ValueError(f"seq_len must be at least 2 and num_sequences positive, got {seq_len} and {num_sequences}")
    fit = slice(None), slice(None)
    if fit_len is not None:
        if not 2 <= check_count(fit_len, "fit_len") <= seq_len - 2:
            raise ValueError(f"fit_len must leave at least two positions on each side of it, between 2 and "
                             f"seq_len - 2 = {seq_len - 2}, got {fit_len}")
        fit = slice(0, fit_len), slice(fit_len, seq_len)
    rng = np.random.default_rng(seed)
    fit_tokens, test_tokens = (task.sample(rng, num_sequences, seq_len)[0] for _ in range(2))
    with fixed_threads(run.setup.threads):
        fit_states, test_states = (run.model.residual_stream(torch.from_numpy(tokens)).double().numpy()
                                   for tokens in (fit_tokens, test_tokens))
    fit_positions, test_positions = (np.tile(np.arange(seq_len, dtype=float)[part], num_sequences) for part in fit)
    width = fit_states.shape[-1]
    return np.array([linear_probe_r2(fit_states[i][:, fit[0]].reshape(-1, width), fit_positions,
                                     test_states[i][:, fit[1]].reshape(-1, width), test_positions)
                     for i in range(len(fit_states))])
