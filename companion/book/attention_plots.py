"""Figures of the attention chapter: attention maps, and accuracy by position against the training length.

Every helper draws into the Axes it is given (or a new one), labels it, and returns it; none calls
``plt.show()``. Attention weights are magnitudes in [0, 1], drawn with ``viridis``; accuracy
curves differ by line style and marker, not by colour alone.
"""

from __future__ import annotations

from .._environment import require

require("matplotlib")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

__all__ = ["plot_accuracy_by_position", "plot_attention_map"]

LINE_STYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)))
MARKERS = ("o", "s", "^", "v", "d")


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax


def plot_attention_map(weights, *, ax=None, title=None, train_len: int | None = None, colorbar: bool = True):
    """Draw attention weights: query positions down, key positions across.

    Parameters
    ----------
    weights : array_like, shape (seq_len, seq_len)
        Row ``p``: how much position ``p`` attends to each position; values in [0, 1].
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    title : str, optional
        Axes title.
    train_len : int, optional
        Draw dashed lines where positions reach the training length.
    colorbar : bool, default True
        Add a labelled colorbar.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        If `weights` is not a square 2-D array.

    Examples
    --------
    >>> ax = plot_attention_map(np.eye(4), title="each position attends to itself")
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('key position', 'query position')
    """
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2 or weights.shape[0] != weights.shape[1]:
        raise ValueError(f"weights must be a square (seq_len, seq_len) array, got shape {weights.shape}")
    ax = _axes(ax)
    image = ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0, interpolation="nearest")
    if train_len is not None:
        ax.axhline(train_len - 0.5, color="white", linestyle="--", linewidth=1)
        ax.axvline(train_len - 0.5, color="white", linestyle="--", linewidth=1)
    ax.set_xlabel("key position")
    ax.set_ylabel("query position")
    if title is not None:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="attention weight")
    return ax


def plot_accuracy_by_position(accuracies, train_len: int, *, ax=None, title=None, chance: float | None = None):
    """Draw each model's accuracy at every position, with the training length marked.

    Parameters
    ----------
    accuracies : dict of str to array_like, shape (seq_len,) or (seeds, seq_len)
        Label -> accuracy at each position (NaN where a position has no label). With one row per
        seed, the line is the mean over the seeds and a shaded band spans their smallest to
        largest value.
    train_len : int
        :math:`L`; dotted lines at :math:`L` and :math:`2L`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    title : str, optional
        Axes title.
    chance : float, optional
        Draw the accuracy of a uniform guess as a thin grey line (in the legend, which sits to the
        right of the axes: make the figure with ``layout="constrained"``).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        If `accuracies` is empty, or its arrays differ in length or are not 1-D or 2-D.

    Examples
    --------
    >>> ax = plot_accuracy_by_position({"a": [1.0, 1.0, 0.5, 0.2]}, train_len=2)
    >>> [float(limit) for limit in ax.get_ylim()]
    [0.0, 1.02]
    >>> ax = plot_accuracy_by_position({"two seeds": [[1.0, 0.5], [1.0, 0.7]]}, train_len=1)
    >>> ax.lines[0].get_ydata().tolist(), len(ax.collections)  # the mean, and the band
    ([1.0, 0.6], 1)
    """
    curves = {label: np.atleast_2d(np.asarray(values, dtype=float)) for label, values in accuracies.items()}
    if (not curves or len({curve.shape[1] for curve in curves.values()}) != 1
            or any(np.ndim(values) not in (1, 2) for values in accuracies.values())):
        raise ValueError("accuracies must map labels to arrays of the same length, 1-D or one row per seed")
    ax = _axes(ax)
    for index, (label, curve) in enumerate(curves.items()):
        line, = ax.plot(np.mean(curve, axis=0), label=label, linestyle=LINE_STYLES[index % len(LINE_STYLES)],
                        marker=MARKERS[index % len(MARKERS)], markersize=3, markevery=4, zorder=3)
        if len(curve) > 1:  # the range over the seeds, faint and behind every line, so a wide band hides none
            ax.fill_between(np.arange(curve.shape[1]), curve.min(axis=0), curve.max(axis=0),
                            color=line.get_color(), alpha=0.12, linewidth=0, zorder=1)
    for multiple in (1, 2):
        ax.axvline(multiple * train_len - 0.5, color="black", linestyle=":", linewidth=1)
    if chance is not None:
        ax.axhline(chance, color="grey", linewidth=0.8, label="a uniform guess")
    ax.set_xlabel("position in the test sequence")
    ax.set_ylabel("accuracy")
    ax.set_ylim(0.0, 1.02)
    if title is not None:
        ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")  # outside: curves overlap
    return ax
