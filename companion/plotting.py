"""Figures of the encoding.

Every helper draws into the Axes it is given (or a new one), labels it with
units, and returns it; none calls ``plt.show()``.  Colormaps are readable
with the common colour-vision deficiencies: ``RdBu`` (ColorBrewer's
colour-blind-safe diverging map) for values in [-1, 1].
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["plot_heatmap"]

DIVERGING_CMAP = "RdBu"


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax


def plot_heatmap(table, *, ax=None, title=None, first_position: int = 0):
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

    Returns
    -------
    matplotlib.axes.Axes
        The Axes, with labelled axes and a labelled colorbar.

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
    ax.figure.colorbar(image, ax=ax, label="encoding value (sine or cosine, no unit)")
    return ax
