r"""The two column layouts of the encoding, drawn side by side.

Vaswani et al. (2017), Sec. 3.5, put the sine of pair :math:`i` in column :math:`2i` and its cosine
in column :math:`2i + 1` (*interleaved*); tensor2tensor, fairseq and Marian put all the sines first,
then all the cosines (*concatenated*). :func:`plot_layouts` draws the same table both ways, each
column labelled with the function and the pair it holds, so that the permutation between them
(:func:`companion.layout_permutation`) can be read off the labels.
"""

from __future__ import annotations

from .._environment import require

require("matplotlib")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .._checks import check_count, check_d_model  # noqa: E402
from ..encoding.layouts import layout_permutation  # noqa: E402
from ..encoding.table import sinusoidal_encoding  # noqa: E402
from .plotting import plot_heatmap  # noqa: E402

__all__ = ["column_labels", "plot_layouts"]


def column_labels(d_model: int, layout: str = "interleaved") -> list[str]:
    """What each column of a table in `layout` holds: ``"sin i"`` or ``"cos i"`` for pair ``i``.

    Parameters
    ----------
    d_model : int
        Encoding width; positive and even.
    layout : {"interleaved", "concatenated"}, default "interleaved"
        The paper's order (sine and cosine of each pair side by side) or tensor2tensor's (all the
        sines, then all the cosines).

    Returns
    -------
    list of str
        One label per column, ``d_model`` of them.

    Raises
    ------
    TypeError
        If `d_model` is not an integer or `layout` not a str.
    ValueError
        If `d_model` is not positive and even, or `layout` is unknown.

    Examples
    --------
    >>> column_labels(4)
    ['sin 0', 'cos 0', 'sin 1', 'cos 1']
    >>> column_labels(4, "concatenated")
    ['sin 0', 'sin 1', 'cos 0', 'cos 1']
    """
    d_model = check_d_model(d_model)
    interleaved = [f"{name} {pair}" for pair in range(d_model // 2) for name in ("sin", "cos")]
    # layout_permutation checks `layout`: column j of the layout holds interleaved column order[j]
    order = layout_permutation(d_model, "interleaved", layout)
    return [interleaved[column] for column in order]


def plot_layouts(seq_len: int = 24, d_model: int = 16, *, axes=None):
    """Draw the encoding of positions ``0 .. seq_len - 1`` in both layouts, side by side.

    Each panel is a heatmap (:func:`companion.book.plotting.plot_heatmap`), positions down and columns
    across, its columns labelled by :func:`column_labels`; one colorbar serves both.

    Parameters
    ----------
    seq_len : int, default 24
        Number of positions; positive.
    d_model : int, default 16
        Encoding width; positive and even.
    axes : sequence of two matplotlib.axes.Axes, optional
        Where to draw the interleaved and the concatenated table; a new figure is made if omitted.

    Returns
    -------
    tuple of two matplotlib.axes.Axes
        The interleaved panel and the concatenated panel; each holds its table as
        ``ax.images[0]`` and its column labels as x tick labels.

    Raises
    ------
    TypeError
        If `seq_len` or `d_model` is not an integer.
    ValueError
        If `seq_len` is not positive, `d_model` is not positive and even, or `axes` is not two Axes.

    Examples
    --------
    >>> left, right = plot_layouts(8, 4)
    >>> [label.get_text() for label in right.get_xticklabels()]
    ['sin 0', 'sin 1', 'cos 0', 'cos 1']
    >>> plt.close(left.figure)
    """
    seq_len, d_model = check_count(seq_len, "seq_len"), check_d_model(d_model)
    if seq_len == 0:
        raise ValueError("seq_len must be a positive integer, got 0")
    if axes is None:
        figure, axes = plt.subplots(1, 2, figsize=(8, 3.8), layout="constrained", sharey=True)
    elif len(axes) != 2:
        raise ValueError(f"axes must be two Axes (interleaved, concatenated), got {len(axes)}")
    positions = np.arange(seq_len)
    titles = {"interleaved": "Interleaved (the paper)", "concatenated": "Concatenated (tensor2tensor, fairseq)"}
    for ax, layout in zip(axes, titles):
        table = sinusoidal_encoding(positions, d_model, layout=layout)
        plot_heatmap(table, ax=ax, colorbar=False, title=titles[layout])
        ax.set_xticks(np.arange(d_model), column_labels(d_model, layout), rotation=90, fontsize="small")
        ax.set_xlabel("column: the function and the pair i it holds")
    axes[1].set_ylabel("")
    axes[0].figure.colorbar(axes[0].images[0], ax=list(axes), label="encoding value")
    return tuple(axes)
