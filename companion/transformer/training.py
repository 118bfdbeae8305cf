"""Deterministic training and per-position evaluation of the small Transformer.

Every batch is drawn from a numpy generator seeded by the caller, the model's initial weights
from a seeded torch generator (see :mod:`~companion.transformer.experiments`), and torch runs on
a fixed number of threads (:func:`fixed_threads`): the same run gives the same model on the same
machine. Other CPUs and kernels round differently, and training amplifies the difference, so
trained accuracies are figures that vary a little from machine to machine.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from .._environment import require

torch = require("torch")
import torch.nn.functional as F  # noqa: E402

from .._checks import check_count  # noqa: E402
from .tasks import IGNORE  # noqa: E402

__all__ = ["PositionAccuracy", "evaluate", "fixed_threads", "train"]


@contextlib.contextmanager
def fixed_threads(num_threads: int = 1):
    """Run the enclosed code with torch on `num_threads` intra-op threads, then restore the count.

    A sum split over threads is added in another order, so its last bits depend on the thread
    count; a fixed count makes training repeatable.

    Parameters
    ----------
    num_threads : int, default 1
        Positive.

    Yields
    ------
    None

    Raises
    ------
    ValueError
        If `num_threads` is not a positive integer.

    Examples
    --------
    >>> with fixed_threads(1):
    ...     torch.get_num_threads()
    1
    """
    if check_count(num_threads, "num_threads") == 0:
        raise ValueError("num_threads must be a positive integer, got 0")
    previous = torch.get_num_threads()
    torch.set_num_threads(num_threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def train(model: torch.nn.Module, task, *, seq_len: int, steps: int, batch_size: int = 64,
          learning_rate: float = 3e-3, rng: np.random.Generator) -> np.ndarray:
    """Train `model` on fresh batches of `task` with Adam and cross-entropy at every position.

    Parameters
    ----------
    model : torch.nn.Module
        Maps tokens ``[b, s]`` to logits ``[b, s, task.num_classes]``; trained in place.
    task : CopyOffsetTask, LatestMarkerTask or KeyRecallTask
        Anything with ``sample(rng, num_sequences, seq_len)``.
    seq_len : int
        The training length :math:`L`: every batch has this length.
    steps : int
        Number of optimiser steps, one fresh batch each.
    batch_size : int, default 64
        Sequences per batch.
    learning_rate : float, default 3e-3
        Adam's step size (no weight decay: rows of a learned table that training never reaches
        keep their initial values).
    rng : numpy.random.Generator
        Draws the batches.

    Returns
    -------
    ndarray, shape (steps,), float64
        The loss of each step (mean cross-entropy over the positions that have a label).

    Raises
    ------
    TypeError, ValueError
        If a size is not a positive integer.

    Examples
    --------
    >>> from companion.transformer.model import SmallTransformer
    >>> from companion.transformer.tasks import KeyRecallTask
    >>> task = KeyRecallTask()
    >>> _ = torch.manual_seed(0)
    >>> model = SmallTransformer(task.vocab_size, task.num_classes, scheme="none")
    >>> with fixed_threads(1):
    ...     losses = train(model, task, seq_len=8, steps=60, rng=np.random.default_rng(0))
    >>> bool(losses[-5:].mean() < losses[:5].mean() / 4)
    True
    """
    for value, name in [(seq_len, "seq_len"), (steps, "steps"), (batch_size, "batch_size")]:
        if check_count(value, name) == 0:
            raise ValueError(f"{name} must be a positive integer, got 0")
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    losses = np.empty(steps)
    model.train()
    for step in range(steps):
        tokens, targets = (torch.from_numpy(array) for array in task.sample(rng, batch_size, seq_len))
        logits = model(tokens)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses[step] = loss.item()
    model.eval()
    return losses


@dataclass(frozen=True)
class PositionAccuracy:
    """How many predictions were right at each position, out of how many labelled ones.

    Parameters
    ----------
    correct, counted : ndarray of int64, shape (seq_len,)
        Right predictions and labelled sequences at each position.

    Examples
    --------
    >>> accuracy = PositionAccuracy(np.array([0, 3, 4]), np.array([0, 4, 4]))
    >>> accuracy.between(1, 3)
    0.875
    """

    correct: np.ndarray
    counted: np.ndarray

    def by_position(self) -> np.ndarray:
        """Accuracy at each position (NaN where no sequence has a label).

        Returns
        -------
        ndarray, shape (seq_len,), float64
        """
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.counted > 0, self.correct / np.maximum(self.counted, 1), np.nan)

    def between(self, start: int, stop: int) -> float:
        """Accuracy over positions ``start .. stop - 1``, every labelled prediction weighing the same.

        Parameters
        ----------
        start, stop : int
            A range of positions.

        Returns
        -------
        float
            In [0, 1].

        Raises
        ------
        ValueError
            If no position in the range has a label.
        """
        counted = int(self.counted[start:stop].sum())
        if counted == 0:
            raise ValueError(f"no labelled position between {start} and {stop}")
        return int(self.correct[start:stop].sum()) / counted


@torch.no_grad()
def evaluate(model: torch.nn.Module, task, *, seq_len: int, num_sequences: int = 256,
             rng: np.random.Generator) -> PositionAccuracy:
    """Accuracy of `model` at every position of `num_sequences` fresh sequences of length `seq_len`.

    With a causal model, position ``p`` of a long sequence sees exactly what it would see in any
    sequence of length ``p + 1`` or more: one evaluation at length ``4L`` gives the accuracy at
    lengths ``L``, ``2L`` and ``4L`` by its ranges of positions.

    Parameters
    ----------
    model : torch.nn.Module
        Maps tokens ``[b, s]`` to logits ``[b, s, task.num_classes]``.
    task : CopyOffsetTask, LatestMarkerTask or KeyRecallTask
        Draws the sequences.
    seq_len : int
        Length of the evaluation sequences.
    num_sequences : int, default 256
        How many.
    rng : numpy.random.Generator
        Draws the sequences.

    Returns
    -------
    PositionAccuracy

    Raises
    ------
    TypeError, ValueError
        If a size is not a non-negative integer, or the model refuses the length (a learned table
        that is too short).

    Examples
    --------
    >>> from companion.transformer.model import SmallTransformer
    >>> from companion.transformer.tasks import CopyOffsetTask
    >>> model = SmallTransformer(16, 16, scheme="none")
    >>> accuracy = evaluate(model, CopyOffsetTask(), seq_len=6, rng=np.random.default_rng(0))
    >>> accuracy.counted.tolist()  # positions 0 and 1 have nothing 2 back
    [0, 0, 256, 256, 256, 256]
    """
    model.eval()
    tokens, targets = task.sample(rng, num_sequences, seq_len)
    predictions = model(torch.from_numpy(tokens)).argmax(dim=-1).numpy()
    labelled = targets != IGNORE
    return PositionAccuracy(((predictions == targets) & labelled).sum(axis=0), labelled.sum(axis=0))
