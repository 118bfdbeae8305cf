"""Figures of the encoding.

Every helper draws into the Axes it is given (or a new one), labels it with
units, and returns it; none calls ``plt.show()``.  Colormaps are readable
with the common colour-vision deficiencies: ``RdBu`` (ColorBrewer's
colour-blind-safe diverging map) for values in [-1, 1] and ``viridis``
(perceptually uniform) for positions; line plots also differ by marker or
line style, not by colour alone.
"""

from __future__ import annotations

from .._environment import require

require("matplotlib")

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["plot_clock", "plot_frequencies", "plot_heatmap", "plot_nearest_distances", "plot_similarity_matrix"]

DIVERGING_CMAP = "RdBu"
SEQUENTIAL_CMAP = "viridis"
LINE_STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "v", "d", "x")


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax


def plot_heatmap(table, *, ax=None, title=None, first_position: int = 0, colorbar: bool = True):
    """Heatmap of an encoding table: positions down, encoding columns across.

    Parameters
    ----------
    table : array_like, shape (seq_len, d_model)
        An encoding table, values in [-1, 1].
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    title : str, optional
        Axes title; a default naming the table's shape is used if omitted.
    first_position : int, default 0
        Position of the first row, for the y-axis labels.
    colorbar : bool, default True
        Add a labelled colorbar (turn off to share one colorbar in a grid).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes, with labelled axes (and a labelled colorbar).

    Raises
    ------
    ValueError
        If `table` is not 2-D.

    Examples
    --------
    >>> from companion import sinusoidal_encoding
    >>> ax = plot_heatmap(sinusoidal_encoding(np.arange(50), 64))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('encoding column (dimension)', 'position')
    """
    table = np.asarray(table)
    if table.ndim != 2:
        raise ValueError(f"table must be 2-D (seq_len, d_model), got shape {table.shape}")
    ax = _axes(ax)
    seq_len, d_model = table.shape
    image = ax.imshow(
        table,
        cmap=DIVERGING_CMAP,
        vmin=-1,
        vmax=1,
        aspect="auto",
        interpolation="nearest",
        extent=(-0.5, d_model - 0.5, first_position + seq_len - 0.5, first_position - 0.5),
    )
    ax.set_xlabel("encoding column (dimension)")
    ax.set_ylabel("position")
    ax.set_title(title if title is not None else f"Sinusoidal encoding, {seq_len} positions x {d_model} columns")
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="encoding value (sine or cosine, no unit)")
    return ax


def plot_clock(table, pair: int, *, ax=None, first_position: int = 0, colorbar: bool = True):
    """One (sin, cos) pair of a table as a clock: points on the unit circle, coloured by position.

    The picture of the blog post *Understanding positional encoding*: as the position grows, the point ``(sin, cos)`` of
    pair ``i`` turns clockwise by ``omega_i`` radians per position.

    Parameters
    ----------
    table : array_like, shape (seq_len, d_model)
        An encoding table in the interleaved layout.
    pair : int
        Pair index ``i``; columns ``2i`` (sine, x axis) and ``2i + 1`` (cosine, y axis).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    first_position : int, default 0
        Position of the first row, for the colours.
    colorbar : bool, default True
        Add a colorbar of positions.

    Returns
    -------
    matplotlib.axes.Axes
        Square Axes with labelled axes; its scatter is ``ax.collections[0]``.

    Raises
    ------
    ValueError
        If `table` is not 2-D or `pair` is out of range.

    Examples
    --------
    >>> from companion import sinusoidal_encoding
    >>> ax = plot_clock(sinusoidal_encoding(np.arange(100), 18), pair=8)
    >>> ax.get_title()
    'pair 8'
    """
    table = np.asarray(table)
    if table.ndim != 2 or not 0 <= pair < table.shape[1] // 2:
        raise ValueError(f"pair must index a (sin, cos) pair of a 2-D table, got pair {pair} for shape {table.shape}")
    ax = _axes(ax)
    circle = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.sin(circle), np.cos(circle), color="0.85", lw=1, zorder=0)
    positions = first_position + np.arange(table.shape[0])
    points = ax.scatter(table[:, 2 * pair], table[:, 2 * pair + 1], c=positions, cmap=SEQUENTIAL_CMAP, s=12)
    ax.set_aspect("equal")
    ax.set_xlim(-1.15, 1.15)
    ax.set_ylim(-1.15, 1.15)
    ax.set_xlabel(f"sin (column {2 * pair})")
    ax.set_ylabel(f"cos (column {2 * pair + 1})")
    ax.set_title(f"pair {pair}")
    if colorbar:
        ax.figure.colorbar(points, ax=ax, label="position")
    return ax


def plot_frequencies(d_model: int, bases=(1e2, 1e4, 1e8), *, quantity: str = "angular_frequency", ax=None):
    """Angular frequency or wavelength of each pair, for several bases (log scale).

    Parameters
    ----------
    d_model : int
        Encoding width; a positive even integer.
    bases : sequence of float, default (1e2, 1e4, 1e8)
        Bases to compare; each finite and > 1.
    quantity : {"angular_frequency", "wavelength"}, default "angular_frequency"
        ``omega_i`` in radians per position, or ``2 pi / omega_i`` in positions.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.

    Returns
    -------
    matplotlib.axes.Axes
        One labelled line per base, logarithmic y axis.

    Raises
    ------
    ValueError
        If `quantity` is unknown, or on bad `d_model` or a bad base.

    Examples
    --------
    >>> ax = plot_frequencies(128, quantity="wavelength")
    >>> ax.get_ylabel(), len(ax.get_lines())
    ('wavelength 2π/ω_i (positions)', 3)
    """
    from ..encoding.frequencies import angular_frequencies, wavelengths

    if quantity not in ("angular_frequency", "wavelength"):
        raise ValueError(f"quantity must be 'angular_frequency' or 'wavelength', got {quantity!r}")
    ax = _axes(ax)
    for index, base in enumerate(bases):
        values = angular_frequencies(d_model, base) if quantity == "angular_frequency" else wavelengths(d_model, base)
        ax.semilogy(values, ls=LINE_STYLES[index % len(LINE_STYLES)], label=f"base {base:.0e}")
    ax.set_xlabel(f"pair index i (0 to {d_model // 2 - 1})")
    ax.set_ylabel("angular frequency ω_i (radians per position)" if quantity == "angular_frequency"
                  else "wavelength 2π/ω_i (positions)")
    ax.set_title(f"{'Angular frequencies' if quantity == 'angular_frequency' else 'Wavelengths'}, d_model = {d_model}")
    ax.legend()
    return ax


def plot_similarity_matrix(positions, d_model: int, *, base: float = 10_000.0, ax=None, colorbar: bool = True):
    """Cosine similarity of the encodings of every pair of positions.

    Because ``PE(p) . PE(q)`` depends only on ``q - p`` (chapter 4), the
    matrix is constant along every diagonal.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Positions, in the order of the rows and columns.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    colorbar : bool, default True
        Add a labelled colorbar.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes; ``ax.get_images()[0].get_array()`` holds the matrix.

    Raises
    ------
    TypeError, ValueError
        On bad positions, `d_model` or `base`.

    Examples
    --------
    >>> ax = plot_similarity_matrix(np.arange(64), 32)
    >>> ax.get_images()[0].get_array().shape
    (64, 64)
    """
    from ..encoding.table import sinusoidal_encoding

    table = sinusoidal_encoding(positions, d_model, base=base)
    similarity = table @ table.T / (d_model / 2)
    ax = _axes(ax)
    positions = np.asarray(positions)
    image = ax.imshow(similarity, cmap=DIVERGING_CMAP, vmin=-1, vmax=1, interpolation="nearest",
                      extent=(positions[0] - 0.5, positions[-1] + 0.5, positions[-1] + 0.5, positions[0] - 0.5))
    ax.set_xlabel("position q")
    ax.set_ylabel("position p")
    ax.set_title(f"Cosine similarity of PE(p) and PE(q), d_model = {d_model}")
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="cosine similarity (no unit)")
    return ax


def plot_nearest_distances(max_lens, curves, *, ax=None):
    """Distance from each position to its nearest other position, against the table length.

    Parameters
    ----------
    max_lens : array_like, shape (n,)
        Table lengths (x axis, logarithmic).
    curves : dict of str to array_like, shape (n,)
        Label -> smallest distance for each length, e.g. from
        :func:`~companion.analysis.distinguishability.nearest_position_distance`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.

    Returns
    -------
    matplotlib.axes.Axes
        Log-log Axes, one labelled line (with its own marker) per curve.
        Zero distances, two positions with identical rows, are drawn at the
        bottom edge as downward triangles.

    Raises
    ------
    ValueError
        If a curve's length differs from `max_lens`.

    Examples
    --------
    >>> ax = plot_nearest_distances([16, 256], {"exact": [1.5, 1.5]})
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'log')
    """
    max_lens = np.asarray(max_lens)
    ax = _axes(ax)
    all_values = np.concatenate([np.asarray(v, dtype=float) for v in curves.values()]) if curves else np.ones(1)
    positive = all_values[all_values > 0]
    floor = positive.min() / 10 if positive.size else 1e-12
    for index, (label, values) in enumerate(curves.items()):
        values = np.asarray(values, dtype=float)
        if values.shape != max_lens.shape:
            raise ValueError(f"curve {label!r} has {values.size} values for {max_lens.size} lengths")
        line, = ax.loglog(max_lens, np.where(values > 0, values, np.nan), marker=MARKERS[index % len(MARKERS)],
                          ls=LINE_STYLES[index % len(LINE_STYLES)], label=label)
        zeros = values == 0
        if zeros.any():
            ax.loglog(max_lens[zeros], np.full(zeros.sum(), floor), marker="v", ls="none", color=line.get_color())
    ax.set_xlabel("table length max_len (positions)")
    ax.set_ylabel("distance to the nearest other position")
    ax.set_title("How far apart the encodings of different positions stay")
    ax.legend(fontsize=8)
    return ax
