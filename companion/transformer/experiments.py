"""The chapter's experiments: train at length L, evaluate at L, 2L and 4L, per scheme, base and seed.

One model is built from a seed (its initial weights from a torch generator, its batches and its
test sequences from numpy generators derived from the same seed), trained on sequences of length
:math:`L` = ``Setup.train_len`` and evaluated on sequences of length :math:`4L`. The model is
causal, so positions ``0 .. L - 1`` of the test give the accuracy at the training length, positions
``L .. 2L - 1`` the accuracy on the new positions of a sequence of length :math:`2L`, and positions
``2L .. 4L - 1`` those of a sequence of length :math:`4L`. Every experiment of the chapter is
repeated from several seeds (``SEEDS``, ``SeedRuns``) and reported as a mean with its range.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._environment import require

torch = require("torch")

from .attention import weight_on_offset  # noqa: E402
from .model import SmallTransformer  # noqa: E402
from .positions import POSITION_SCHEMES  # noqa: E402
from .training import PositionAccuracy, evaluate, fixed_threads, train  # noqa: E402

__all__ = ["RANGES", "SEEDS", "Run", "SeedRuns", "Setup", "accuracy_table", "compare_schemes", "comparison_table",
           "look_back_weights", "mean_and_range", "mean_attention_maps", "results_table", "train_and_evaluate",
           "train_over_seeds"]

#: The ranges of positions reported, as multiples of L: the training length, then the new
#: positions of sequences twice and four times as long.
RANGES = {"L": (0, 1), "2L": (1, 2), "4L": (2, 4)}

#: The seeds of the chapter's runs (a fourth, 3, is trained by the tests).
SEEDS = (0, 1, 2)


@dataclass(frozen=True)
class Setup:
    """The size of the model and of its training (the chapter's defaults: seconds per model on a CPU).

    Parameters
    ----------
    train_len : int
        :math:`L`, the length of every training sequence.
    d_model, num_heads, num_layers, d_ff : int
        The model's size.
    steps, batch_size : int
        Optimiser steps, each on a fresh batch of this many sequences.
    learning_rate : float
        Adam's step size.
    test_sequences : int
        Sequences of length :math:`4L` in the test.
    threads : int
        Torch threads while training and testing.

    Examples
    --------
    >>> setup = Setup(steps=60)
    >>> setup.train_len, setup.steps, 4 * setup.train_len  # trained at L, tested to 4L
    (16, 60, 64)
    """

    train_len: int = 16
    d_model: int = 32
    num_heads: int = 4
    num_layers: int = 1
    d_ff: int = 64
    steps: int = 100
    batch_size: int = 64
    learning_rate: float = 1e-2
    test_sequences: int = 256
    threads: int = 1


@dataclass
class Run:
    """A trained model, its losses and its accuracy at every position of the test.

    Parameters
    ----------
    model : SmallTransformer
        Trained, in eval mode.
    losses : ndarray, shape (steps,)
        The training loss at each step.
    accuracy : PositionAccuracy
        On sequences of length ``4 * setup.train_len``.
    setup : Setup
        How it was trained.

    Examples
    --------
    >>> from companion.transformer.tasks import KeyRecallTask
    >>> run = train_and_evaluate(KeyRecallTask(), "none", setup=Setup(steps=60))
    >>> run.losses.shape, run.accuracy.counted.shape  # one loss per step, one count per test position
    ((60,), (64,))
    """

    model: SmallTransformer
    losses: np.ndarray
    accuracy: PositionAccuracy
    setup: Setup

    def at(self, length: str) -> float:
        """Accuracy on the range ``"L"``, ``"2L"`` or ``"4L"`` of :data:`RANGES`.

        Parameters
        ----------
        length : {"L", "2L", "4L"}
            Which range of positions.

        Returns
        -------
        float
            In [0, 1].

        Raises
        ------
        KeyError
            If `length` is not a key of :data:`RANGES`.
        """
        start, stop = RANGES[length]
        return self.accuracy.between(start * self.setup.train_len, stop * self.setup.train_len)


def train_and_evaluate(task, scheme: str, *, seed: int = 0, setup: Setup = Setup(), base: float = 10_000.0,
                       learn_frequencies: bool = False) -> Run:
    """Build a :class:`~companion.transformer.model.SmallTransformer` from `seed`, train it at L, test it to 4L.

    Parameters
    ----------
    task : CopyOffsetTask, LatestMarkerTask or KeyRecallTask
        What to learn.
    scheme : str
        One of :data:`~companion.transformer.positions.POSITION_SCHEMES`.
    seed : int, default 0
        Seeds the initial weights (torch), the batches and the test (numpy); the global torch
        generator is left as it was.
    setup : Setup, optional
        Sizes; the chapter's by default.
    base : float, default 10000.0
        Base of the sinusoidal or rotary frequencies.
    learn_frequencies : bool, default False
        Train the sinusoidal frequencies too.

    Returns
    -------
    Run

    Raises
    ------
    TypeError, ValueError
        On a bad scheme, size or base.

    Examples
    --------
    >>> from companion.transformer.tasks import KeyRecallTask
    >>> run = train_and_evaluate(KeyRecallTask(), "none", setup=Setup(steps=60))
    >>> run.at("L") > 0.9
    True
    """
    train_rng, test_rng = (np.random.default_rng([seed, stream]) for stream in (0, 1))
    with torch.random.fork_rng(devices=[]), fixed_threads(setup.threads):
        torch.manual_seed(seed)
        model = SmallTransformer(
            task.vocab_size, task.num_classes, scheme=scheme, d_model=setup.d_model, num_heads=setup.num_heads,
            num_layers=setup.num_layers, d_ff=setup.d_ff, max_len=4 * setup.train_len, base=base,
            learn_frequencies=learn_frequencies)
        losses = train(model, task, seq_len=setup.train_len, steps=setup.steps, batch_size=setup.batch_size,
                       learning_rate=setup.learning_rate, rng=train_rng)
        accuracy = evaluate(model, task, seq_len=4 * setup.train_len, num_sequences=setup.test_sequences,
                            rng=test_rng)
    return Run(model, losses, accuracy, setup)


@dataclass(frozen=True)
class SeedRuns:
    """The same experiment trained from several seeds: accuracies as arrays with one value per seed.

    Parameters
    ----------
    runs : tuple of Run
        One run per seed, in the order of the seeds.

    Raises
    ------
    ValueError
        If `runs` is empty.

    Examples
    --------
    >>> from companion.transformer.tasks import KeyRecallTask
    >>> runs = train_over_seeds(KeyRecallTask(), "none", seeds=(0, 1), setup=Setup(steps=60))
    >>> runs.at("L").shape, runs.by_position().shape  # one value per seed; per seed and position
    ((2,), (2, 64))
    """

    runs: tuple

    def __post_init__(self):
        if not self.runs:
            raise ValueError("runs is empty: a SeedRuns needs at least one run")

    def at(self, length: str) -> np.ndarray:
        """Accuracy on the range ``"L"``, ``"2L"`` or ``"4L"``, one value per seed (see :meth:`Run.at`).

        Parameters
        ----------
        length : {"L", "2L", "4L"}
            Which range of positions.

        Returns
        -------
        ndarray, shape (seeds,), float64
        """
        return np.array([run.at(length) for run in self.runs])

    def by_position(self) -> np.ndarray:
        """Accuracy at every test position, one row per seed (NaN where no position has a label).

        Returns
        -------
        ndarray, shape (seeds, 4 * train_len), float64
        """
        return np.stack([run.accuracy.by_position() for run in self.runs])


def train_over_seeds(task, scheme: str, *, seeds=SEEDS, setup: Setup = Setup(), **options) -> SeedRuns:
    """:func:`train_and_evaluate` from each seed: one experiment, repeated.

    Parameters
    ----------
    task : CopyOffsetTask, LatestMarkerTask or KeyRecallTask
        What to learn.
    scheme : str
        One of :data:`~companion.transformer.positions.POSITION_SCHEMES`.
    seeds : sequence of int, default SEEDS
        One run per seed.
    setup : Setup, optional
        Sizes; the chapter's by default.
    **options
        ``base`` or ``learn_frequencies``, passed to :func:`train_and_evaluate`.

    Returns
    -------
    SeedRuns

    Raises
    ------
    TypeError, ValueError
        On a bad scheme, size, base or option, or no seed.

    Examples
    --------
    >>> from companion.transformer.tasks import KeyRecallTask
    >>> runs = train_over_seeds(KeyRecallTask(), "alibi", seeds=(0, 1), setup=Setup(steps=60))
    >>> bool(runs.at("L").min() > 0.9)
    True
    """
    return SeedRuns(tuple(train_and_evaluate(task, scheme, seed=seed, setup=setup, **options) for seed in seeds))


def compare_schemes(task, schemes=POSITION_SCHEMES, *, seeds=SEEDS, setup: Setup = Setup()) -> dict[str, SeedRuns]:
    """Train every scheme on `task` from each seed: the chapter's comparison.

    Parameters
    ----------
    task : CopyOffsetTask, LatestMarkerTask or KeyRecallTask
        What to learn.
    schemes : sequence of str, optional
        Default all six.
    seeds : sequence of int, default SEEDS
        Every scheme is trained once from each seed.
    setup : Setup, optional
        Sizes; the chapter's by default.

    Returns
    -------
    dict of str to SeedRuns
        In the order of `schemes`.

    Raises
    ------
    TypeError, ValueError
        On a bad scheme or size, or no seed.

    Examples
    --------
    >>> from companion.transformer.tasks import KeyRecallTask
    >>> runs = compare_schemes(KeyRecallTask(), ["none", "alibi"], seeds=(0,), setup=Setup(steps=60))
    >>> list(runs), len(runs["none"].runs)
    (['none', 'alibi'], 1)
    """
    return {scheme: train_over_seeds(task, scheme, seeds=seeds, setup=setup) for scheme in schemes}


def accuracy_table(runs: dict) -> str:
    """A plain-text table of accuracies, one row per experiment, one column per range of :data:`RANGES`.

    Parameters
    ----------
    runs : dict of str to Run or SeedRuns
        Label -> a run (its accuracy), or runs over seeds (their mean, then their range).

    Returns
    -------
    str
        Accuracies with two decimals: ``0.42`` for a run, ``0.42 [0.30, 0.55]`` for the mean and
        the smallest and largest over the seeds.

    Raises
    ------
    ValueError
        If `runs` is empty.

    Examples
    --------
    >>> from companion.transformer.tasks import KeyRecallTask
    >>> runs = compare_schemes(KeyRecallTask(), ["none"], seeds=(0, 1), setup=Setup(steps=60))
    >>> print(accuracy_table(runs))
    scheme                     at L              at 2L              at 4L
    none          1.00 [1.00, 1.00]  1.00 [1.00, 1.00]  1.00 [1.00, 1.00]
    >>> print(accuracy_table({"seed 0": runs["none"].runs[0]}))
    scheme       at L  at 2L  at 4L
    seed 0       1.00   1.00   1.00
    """
    if not runs:
        raise ValueError("runs is empty: nothing to tabulate")
    over_seeds = any(isinstance(run, SeedRuns) for run in runs.values())
    column = 19 if over_seeds else 7
    width = max(12, *(len(str(label)) + 1 for label in runs))
    lines = ["scheme".ljust(width) + "".join(f"{'at ' + length:>{column}s}" for length in RANGES)]
    for label, run in runs.items():
        cells = [mean_and_range(run.at(length)) for length in RANGES]
        lines.append(str(label).ljust(width) + "".join(f"{cell:>{column}s}" for cell in cells))
    return "\n".join(lines)


def results_table(runs_by_task: dict) -> str:
    """Several tasks' accuracies in one plain-text table: a line per task, then a row per scheme.

    Parameters
    ----------
    runs_by_task : dict of str to dict of str to Run or SeedRuns
        Task label -> (scheme label -> a run, or runs over seeds), as :func:`accuracy_table` takes.

    Returns
    -------
    str
        Columns at L, 2L and 4L; ``0.42 [0.30, 0.55]`` for the mean and range over seeds.

    Raises
    ------
    ValueError
        If `runs_by_task` or one of its tasks is empty.

    Examples
    --------
    >>> from companion.transformer.tasks import KeyRecallTask
    >>> runs = compare_schemes(KeyRecallTask(), ["none"], seeds=(0, 1), setup=Setup(steps=60))
    >>> print(results_table({"recall the key": runs}))
                              at L              at 2L              at 4L
    recall the key
      none       1.00 [1.00, 1.00]  1.00 [1.00, 1.00]  1.00 [1.00, 1.00]
    """
    if not runs_by_task or not all(runs_by_task.values()):
        raise ValueError("runs_by_task is empty, or one of its tasks is: nothing to tabulate")
    width = max(12, *(len(str(label)) + 3 for runs in runs_by_task.values() for label in runs))
    lines = [" " * width + "".join(f"{'at ' + length:>19s}" for length in RANGES)]
    for task, runs in runs_by_task.items():
        lines.append(str(task))
        for label, run in runs.items():
            cells = [mean_and_range(run.at(length)) for length in RANGES]
            lines.append(f"  {str(label):{width - 2}s}" + "".join(f"{cell:>19s}" for cell in cells))
    return "\n".join(lines)


def comparison_table(schemes, facts: dict, runs_by_task: dict, *, lengths=("2L", "4L")) -> str:
    """Schemes side by side, one column each: rows of facts, then the range of accuracies over seeds.

    Parameters
    ----------
    schemes : sequence of str
        The columns, in order.
    facts : dict of str to dict of str to str
        Row label -> (scheme -> a short text); a scheme missing from a row prints ``-``.
    runs_by_task : dict of str to dict of str to SeedRuns
        Task label -> (scheme -> its runs); a scheme not trained on a task prints ``-``.
    lengths : sequence of str, default ("2L", "4L")
        Keys of :data:`RANGES`; one row per task and length.

    Returns
    -------
    str
        Accuracies as ``lowest-highest`` over the seeds, two decimals (one value alone if they agree to
        two decimals).

    Raises
    ------
    ValueError
        If `schemes` is empty.
    KeyError
        If a length is not a key of :data:`RANGES`.

    Examples
    --------
    >>> from companion.transformer.tasks import KeyRecallTask
    >>> runs = compare_schemes(KeyRecallTask(), ["none"], seeds=(0, 1), setup=Setup(steps=60))
    >>> print(comparison_table(["none", "other"], {"enters": {"none": "nowhere"}}, {"key": runs}))
                    none       other
    enters          nowhere    -
    key at 2L       1.00       -
    key at 4L       1.00       -
    """
    schemes = list(schemes)
    if not schemes:
        raise ValueError("schemes is empty: nothing to tabulate")
    unknown = [length for length in lengths if length not in RANGES]
    if unknown:
        raise KeyError(f"lengths must be keys of RANGES {list(RANGES)}, got {unknown}")
    rows = {label: [texts.get(scheme, "-") for scheme in schemes] for label, texts in facts.items()}
    for task, runs in runs_by_task.items():
        for length in lengths:
            rows[f"{task} at {length}"] = [_range_over_seeds(runs[scheme].at(length)) if scheme in runs else "-"
                                           for scheme in schemes]
    label_width = max(len(label) for label in rows) + 2
    column = max(11, *(len(text) + 2 for texts in rows.values() for text in texts), *(len(s) + 2 for s in schemes))
    lines = [" " * label_width + "".join(f"{scheme:{column}s}" for scheme in schemes).rstrip()]
    lines += [f"{label:{label_width}s}" + "".join(f"{text:{column}s}" for text in texts).rstrip()
              for label, texts in rows.items()]
    return "\n".join(lines)


def _range_over_seeds(values) -> str:
    low, high = (f"{round(float(value), 2) + 0.0:.2f}" for value in (np.min(values), np.max(values)))
    return low if low == high else f"{low}-{high}"


def mean_and_range(values) -> str:
    """One value as ``0.42``; several (one per seed) as their mean and range, ``0.42 [0.30, 0.55]``.

    Parameters
    ----------
    values : float or array_like, shape (seeds,)
        For example :meth:`~companion.transformer.experiments.SeedRuns.at`.

    Returns
    -------
    str
        Two decimals (a value that rounds to zero prints as ``0.00``, never ``-0.00``).

    Raises
    ------
    ValueError
        If `values` is empty.

    Examples
    --------
    >>> mean_and_range([0.3, 0.55, 0.41])
    '0.42 [0.30, 0.55]'
    >>> mean_and_range([-0.004, -0.012])
    '-0.01 [-0.01, 0.00]'
    >>> mean_and_range(1.0)
    '1.00'
    """
    values = np.atleast_1d(np.asarray(values, dtype=float))
    if values.size == 0:
        raise ValueError("values is empty")
    mean, low, high = (f"{round(float(value), 2) + 0.0:.2f}" for value in (values.mean(), values.min(), values.max()))
    return mean if values.size == 1 else f"{mean} [{low}, {high}]"


def look_back_weights(run: Run, task, offset: int, *, num_sequences: int = 64, seed: int = 5) -> np.ndarray:
    """How much each head of the first block attends ``offset`` positions back, at each position up to 2L.

    Parameters
    ----------
    run : Run
        A trained model.
    task : CopyOffsetTask, LatestMarkerTask or KeyRecallTask
        Draws the sequences (length ``2 * run.setup.train_len``).
    offset : int
        How far back.
    num_sequences : int, default 64
        The weights are averaged over this many sequences.
    seed : int, default 5
        Seeds the sequences.

    Returns
    -------
    ndarray, shape (num_heads, 2 * train_len), float64
        Mean weight that position ``p`` puts on ``p - offset``; NaN for ``p < offset``.

    Raises
    ------
    ValueError, TypeError
        On a bad offset (see :func:`~companion.transformer.attention.weight_on_offset`).

    Examples
    --------
    >>> from companion.transformer.tasks import CopyOffsetTask
    >>> run = train_and_evaluate(CopyOffsetTask(), "rotary", setup=Setup(steps=60))
    >>> look_back_weights(run, CopyOffsetTask(), 2).shape
    (4, 32)
    """
    maps = mean_attention_maps(run, task, 2 * run.setup.train_len, num_sequences=num_sequences, seed=seed)
    return weight_on_offset(maps, offset)


def mean_attention_maps(run: Run, task, seq_len: int, *, num_sequences: int = 64, seed: int = 5) -> np.ndarray:
    """The first block's attention maps, one per head, averaged over sequences of the task.

    Parameters
    ----------
    run : Run
        A trained model.
    task : CopyOffsetTask, LatestMarkerTask or KeyRecallTask
        Draws the sequences.
    seq_len : int
        Their length (any, for the schemes without a table; at most the table's for ``"learned"``).
    num_sequences : int, default 64
        How many sequences are averaged.
    seed : int, default 5
        Seeds the sequences.

    Returns
    -------
    ndarray, shape (num_heads, seq_len, seq_len), float64
        Mean weight query ``p`` puts on key ``s`` (0 for ``s > p``).

    Raises
    ------
    TypeError, ValueError
        If a size is not a non-negative integer (see the task's ``sample``).

    Examples
    --------
    >>> from companion.transformer.tasks import CopyOffsetTask
    >>> run = train_and_evaluate(CopyOffsetTask(), "rotary", setup=Setup(steps=20))
    >>> maps = mean_attention_maps(run, CopyOffsetTask(), 40, num_sequences=4)
    >>> maps.shape, bool(np.allclose(maps.sum(axis=-1), 1))
    ((4, 40, 40), True)
    """
    tokens, _ = task.sample(np.random.default_rng(seed), num_sequences, seq_len)
    with fixed_threads(run.setup.threads), torch.no_grad():
        maps = run.model.attention_maps(torch.from_numpy(tokens))[0].mean(dim=0)
    return maps.double().numpy()
