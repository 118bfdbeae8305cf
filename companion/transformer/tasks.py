"""Three synthetic tasks for the small Transformer: two that need positions, one control that does not.

Each task draws sequences of token ids with a numpy generator (``np.random.default_rng(seed)``,
the same numbers on every machine) and labels every position:

- :class:`CopyOffsetTask`: output the token `offset` positions back. It needs *relative* position,
  exactly: the answer is one particular earlier token, picked by its distance alone.
- :class:`LatestMarkerTask`: some tokens are markers; output the most recent marker so far (or
  "none"). It needs *order*: which of the markers came last.
- :class:`KeyRecallTask`, the control: the first token is a key, from a vocabulary of its own;
  output it at every position. The key is found by its content; shuffling the other tokens
  changes no label, so a model needs no positions at all.

Labels a task leaves undefined (the first `offset` positions of :class:`CopyOffsetTask`) are
:data:`IGNORE`, the value ``torch.nn.functional.cross_entropy`` skips by default.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np

from .._checks import check_count

__all__ = ["IGNORE", "TASKS", "CopyOffsetTask", "KeyRecallTask", "LatestMarkerTask"]

#: The label of a position without an answer (``ignore_index`` of torch's cross-entropy).
IGNORE = -100


def _check_sizes(rng, num_sequences, seq_len) -> tuple[int, int]:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {type(rng).__name__}")
    return check_count(num_sequences, "num_sequences"), check_count(seq_len, "seq_len")


def _check_positive(value, name: str) -> int:
    if check_count(value, name) == 0:
        raise ValueError(f"{name} must be a positive integer, got 0")
    return int(value)


@lru_cache(maxsize=None)
def _sequences_with_counts_at_most(length: int, symbols: int, bound: int) -> int:
    """Number of sequences of `length` draws from `symbols` symbols where no symbol occurs more than `bound` times."""
    if symbols == 0:
        return int(length == 0)
    # choose how many times the last symbol occurs, and where
    return sum(comb(length, j) * _sequences_with_counts_at_most(length - j, symbols - 1, bound)
               for j in range(min(bound, length) + 1))


@lru_cache(maxsize=None)
def _expected_largest_share(draws: int, symbols: int) -> Fraction:
    """E[largest count among `draws` uniform draws from `symbols` symbols] / `draws`, exactly; `draws` > 0."""
    # E[max count] = sum over m >= 0 of P(max count > m), over the symbols ** draws sequences
    expected_max = sum(1 - Fraction(_sequences_with_counts_at_most(draws, symbols, m), symbols**draws)
                       for m in range(draws))
    return expected_max / draws


@dataclass(frozen=True)
class CopyOffsetTask:
    """Output, at position ``p``, the token at position ``p - offset``.

    Parameters
    ----------
    offset : int, default 2
        How far back; positive. Positions ``0 .. offset - 1`` have no answer (:data:`IGNORE`).
    symbols : int, default 16
        Token ids ``0 .. symbols - 1``, drawn uniformly; also the classes.

    Raises
    ------
    TypeError, ValueError
        If `offset` or `symbols` is not a positive integer.

    Examples
    --------
    >>> tokens, targets = CopyOffsetTask(offset=2).sample(np.random.default_rng(0), 1, 6)
    >>> tokens.tolist(), targets.tolist()
    ([[13, 10, 8, 4, 4, 0]], [[-100, -100, 13, 10, 8, 4]])
    """

    offset: int = 2
    symbols: int = 16
    needs_positions = True

    def __post_init__(self):
        _check_positive(self.offset, "offset"), _check_positive(self.symbols, "symbols")

    @property
    def name(self) -> str:
        """What the task asks, in words."""
        return f"copy the token {self.offset} back"

    @property
    def vocab_size(self) -> int:
        """Number of token ids the model reads."""
        return self.symbols

    @property
    def num_classes(self) -> int:
        """Number of labels."""
        return self.symbols

    def sample(self, rng: np.random.Generator, num_sequences: int, seq_len: int) -> tuple[np.ndarray, np.ndarray]:
        """Draw `num_sequences` sequences of length `seq_len` and their labels.

        Parameters
        ----------
        rng : numpy.random.Generator
            The source of randomness.
        num_sequences, seq_len : int
            Non-negative.

        Returns
        -------
        tokens, targets : ndarray of int64, shape (num_sequences, seq_len)

        Raises
        ------
        TypeError, ValueError
            If `rng` is not a Generator or a size is not a non-negative integer.
        """
        num_sequences, seq_len = _check_sizes(rng, num_sequences, seq_len)
        tokens = rng.integers(0, self.symbols, size=(num_sequences, seq_len))
        targets = np.full_like(tokens, IGNORE)
        targets[:, self.offset:] = tokens[:, : max(seq_len - self.offset, 0)]
        return tokens, targets

    def order_blind_accuracy(self, seq_len: int) -> np.ndarray:
        """The best accuracy at each position of a model that sees the earlier tokens but not their order.

        Such a model (a causal Transformer without positions, say) knows its own token and the
        multiset of the ``p`` tokens before it. The target, the token ``offset`` back, is one of
        those ``p`` draws, and the draws are independent and uniform, so given the multiset it is
        each symbol with probability (its count) / ``p``. The best guess is the most frequent
        earlier token, right with probability ``E[max count] / p``, computed here exactly from the
        number of sequences whose counts all stay below a bound.

        Parameters
        ----------
        seq_len : int
            Number of positions; non-negative.

        Returns
        -------
        ndarray, shape (seq_len,), float64
            ``E[largest count among p uniform draws from `symbols` symbols] / p`` at position
            ``p``; NaN for ``p < offset`` (no label). It does not depend on `offset` otherwise.

        Raises
        ------
        TypeError, ValueError
            If `seq_len` is not a non-negative integer.

        Examples
        --------
        Two earlier tokens out of 16 symbols are equal with probability 1/16; the best guess is
        then right, otherwise right half of the time: (1/16) + (15/16) / 2 = 17/32.

        >>> accuracy = CopyOffsetTask(offset=2).order_blind_accuracy(16)
        >>> float(accuracy[2]) == 17 / 32, accuracy.shape, bool(np.isnan(accuracy[:2]).all())
        (True, (16,), True)
        """
        seq_len = check_count(seq_len, "seq_len")
        accuracy = np.full(seq_len, np.nan)
        for p in range(self.offset, seq_len):
            accuracy[p] = float(_expected_largest_share(p, self.symbols))
        return accuracy


@dataclass(frozen=True)
class LatestMarkerTask:
    """Output, at position ``p``, the most recent marker among positions ``0 .. p``, or "none".

    Token ids ``0 .. symbols - 1`` are ordinary; ids ``symbols .. symbols + markers - 1`` are the
    markers, each position holding one with probability `marker_rate`. Labels ``0 .. markers - 1``
    name a marker, label ``markers`` means none has appeared yet.

    Parameters
    ----------
    symbols : int, default 16
        Ordinary token ids.
    markers : int, default 4
        Marker ids.
    marker_rate : float, default 0.2
        Probability that a position holds a marker; in (0, 1).

    Raises
    ------
    TypeError, ValueError
        If a size is not a positive integer or `marker_rate` is not in (0, 1).

    Examples
    --------
    >>> tokens, targets = LatestMarkerTask().sample(np.random.default_rng(9), 1, 8)
    >>> tokens.tolist()  # markers are 16 .. 19
    [[6, 13, 15, 4, 17, 9, 10, 19]]
    >>> targets.tolist()  # 4: none yet; then marker 17 - 16 = 1, then 19 - 16 = 3
    [[4, 4, 4, 4, 1, 1, 1, 3]]
    """

    symbols: int = 16
    markers: int = 4
    marker_rate: float = 0.2
    name = "the latest marker"
    needs_positions = True

    def __post_init__(self):
        _check_positive(self.symbols, "symbols"), _check_positive(self.markers, "markers")
        if not isinstance(self.marker_rate, float) or not 0 < self.marker_rate < 1:
            raise ValueError(f"marker_rate must be a float in (0, 1), got {self.marker_rate!r}")

    @property
    def vocab_size(self) -> int:
        """Number of token ids the model reads."""
        return self.symbols + self.markers

    @property
    def num_classes(self) -> int:
        """Number of labels: a marker, or none yet."""
        return self.markers + 1

    def sample(self, rng: np.random.Generator, num_sequences: int, seq_len: int) -> tuple[np.ndarray, np.ndarray]:
        """Draw `num_sequences` sequences of length `seq_len` and their labels.

        Parameters
        ----------
        rng : numpy.random.Generator
            The source of randomness.
        num_sequences, seq_len : int
            Non-negative.

        Returns
        -------
        tokens, targets : ndarray of int64, shape (num_sequences, seq_len)

        Raises
        ------
        TypeError, ValueError
            If `rng` is not a Generator or a size is not a non-negative integer.
        """
        num_sequences, seq_len = _check_sizes(rng, num_sequences, seq_len)
        ordinary = rng.integers(0, self.symbols, size=(num_sequences, seq_len))
        is_marker = rng.random((num_sequences, seq_len)) < self.marker_rate
        marker = rng.integers(0, self.markers, size=(num_sequences, seq_len))
        tokens = np.where(is_marker, self.symbols + marker, ordinary)
        # index of the latest marker at or before each position (-1: none yet)
        latest = np.maximum.accumulate(np.where(is_marker, np.arange(seq_len), -1), axis=1)
        seen = np.take_along_axis(marker, np.maximum(latest, 0), axis=1)
        return tokens, np.where(latest >= 0, seen, self.markers)

    def order_blind_accuracy(self, seq_len: int) -> np.ndarray:
        """The best accuracy at each position of a model that sees the tokens so far but not their order.

        Such a model (one causal layer without positions, say) knows its own token and the multiset
        of the ``p`` tokens before it. If its own token is a marker, that is the answer; if no
        earlier token is, the answer is "none". Otherwise every order of the earlier tokens is
        equally likely, so the latest of their ``n`` markers is each marker id with probability (its
        count) / ``n``, and the best guess, the most frequent marker, is right with probability
        ``E[largest count] / n``. The number of earlier markers is binomial, ``n ~ B(p, marker_rate)``.

        Parameters
        ----------
        seq_len : int
            Number of positions; non-negative.

        Returns
        -------
        ndarray, shape (seq_len,), float64
            At position ``p``: ``marker_rate + (1 - marker_rate) * E[share of the most frequent of
            the n earlier markers]``, the share being 1 when ``n = 0``.

        Raises
        ------
        TypeError, ValueError
            If `seq_len` is not a non-negative integer.

        Examples
        --------
        At position 0 the answer is the token itself or "none"; at position 1, with one earlier
        marker or none, the guess is still certain; from two earlier markers on it can fail.

        >>> accuracy = LatestMarkerTask().order_blind_accuracy(4)
        >>> accuracy[:2].tolist(), bool(accuracy[2] < 1)
        ([1.0, 1.0], True)
        """
        seq_len, rate = check_count(seq_len, "seq_len"), self.marker_rate
        accuracy = np.empty(seq_len)
        for p in range(seq_len):
            # n earlier markers, with binomial probability; with none, "none" is certain
            earlier = (1 - rate) ** p + sum(
                comb(p, n) * rate**n * (1 - rate) ** (p - n) * float(_expected_largest_share(n, self.markers))
                for n in range(1, p + 1))
            accuracy[p] = rate + (1 - rate) * earlier
        return accuracy


@dataclass(frozen=True)
class KeyRecallTask:
    """The control: the first token is a key; output it at every position.

    Keys have ids ``symbols .. symbols + keys - 1``, used nowhere else, so attention finds the key
    by its content; the other tokens are ordinary ids drawn uniformly. No label depends on where
    any token stands.

    Parameters
    ----------
    symbols : int, default 16
        Ordinary token ids.
    keys : int, default 4
        Key ids; also the classes.

    Raises
    ------
    TypeError, ValueError
        If a size is not a positive integer.

    Examples
    --------
    >>> tokens, targets = KeyRecallTask().sample(np.random.default_rng(0), 1, 5)
    >>> tokens.tolist(), targets.tolist()
    ([[19, 8, 4, 4, 0]], [[3, 3, 3, 3, 3]])
    """

    symbols: int = 16
    keys: int = 4
    name = "recall the key"
    needs_positions = False

    def __post_init__(self):
        _check_positive(self.symbols, "symbols"), _check_positive(self.keys, "keys")

    @property
    def vocab_size(self) -> int:
        """Number of token ids the model reads."""
        return self.symbols + self.keys

    @property
    def num_classes(self) -> int:
        """Number of labels: one per key."""
        return self.keys

    def sample(self, rng: np.random.Generator, num_sequences: int, seq_len: int) -> tuple[np.ndarray, np.ndarray]:
        """Draw `num_sequences` sequences of length `seq_len` and their labels.

        Parameters
        ----------
        rng : numpy.random.Generator
            The source of randomness.
        num_sequences, seq_len : int
            Non-negative.

        Returns
        -------
        tokens, targets : ndarray of int64, shape (num_sequences, seq_len)

        Raises
        ------
        TypeError, ValueError
            If `rng` is not a Generator or a size is not a non-negative integer.
        """
        num_sequences, seq_len = _check_sizes(rng, num_sequences, seq_len)
        key = rng.integers(0, self.keys, size=(num_sequences, 1))
        tokens = rng.integers(0, self.symbols, size=(num_sequences, seq_len))
        if seq_len:
            tokens[:, 0] = self.symbols + key[:, 0]
        return tokens, np.broadcast_to(key, (num_sequences, seq_len)).copy()


#: The chapter's tasks, by short name.
TASKS = {"copy": CopyOffsetTask(), "marker": LatestMarkerTask(), "key": KeyRecallTask()}
