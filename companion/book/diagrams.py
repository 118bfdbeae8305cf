r"""Diagrams of the model around the encoding, drawn with matplotlib.

:func:`draw_encoding_entry` draws where the encoding enters a Transformer (Vaswani et al.,
2017): each token's embedding is multiplied by :math:`\sqrt{d_{model}}` (Sec. 3.4), the
encoding of its position is added (Sec. 3.5), dropout is applied to the sum (Sec. 5.4),
and the result is the input of the first attention layer, where it becomes queries, keys
and values (Sec. 3.2).  Boxes on the token path and on the position path are filled with
two colours of the Okabe-Ito palette, which stay distinct with the common colour-vision
deficiencies; every box is also labelled.
"""

from __future__ import annotations

from .._environment import require

require("matplotlib")

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.patches import Circle, FancyBboxPatch

__all__ = ["ENCODING_ENTRY_EDGES", "draw_encoding_entry"]

TOKEN_COLOUR = "#cfe6f5"  # a light tint of Okabe-Ito sky blue
POSITION_COLOUR = "#fbe3c2"  # a light tint of Okabe-Ito orange
NEUTRAL_COLOUR = "#eeeeee"

# name: (x, y, label, colour); the sum node is drawn as a circle.
_NODES = {
    "tokens": (0.7, 2.0, "tokens\n\"the black cat\"", NEUTRAL_COLOUR),
    "embedding": (2.55, 2.0, "token embedding\n$E[w_{pos}]$", TOKEN_COLOUR),
    "scale": (4.35, 2.0, r"$\times\sqrt{d_{\mathrm{model}}}$", TOKEN_COLOUR),
    "sum": (5.75, 2.0, "$+$", NEUTRAL_COLOUR),
    "dropout": (7.0, 2.0, "dropout", NEUTRAL_COLOUR),
    "attention": (8.85, 2.0, "first attention layer\nqueries, keys, values", NEUTRAL_COLOUR),
    "positions": (2.55, 0.55, "positions\n$pos = 0, 1, 2, \\ldots$", NEUTRAL_COLOUR),
    "encoding": (5.75, 0.55, "positional encoding\n$PE(pos)$, no weights", POSITION_COLOUR),
}
_WIDTHS = {"tokens": 1.3, "embedding": 1.55, "scale": 1.2, "dropout": 0.95, "attention": 1.9,
           "positions": 1.55, "encoding": 2.0}
_SUM_RADIUS = 0.22
_HEIGHT = 0.8
_PAD = 0.04  # the rounded boxes' padding, outside their nominal size

#: The arrows of the diagram, as (from, to) pairs of node names.
ENCODING_ENTRY_EDGES = (
    ("tokens", "embedding"),
    ("embedding", "scale"),
    ("scale", "sum"),
    ("sum", "dropout"),
    ("dropout", "attention"),
    ("positions", "encoding"),
    ("encoding", "sum"),
)


def draw_encoding_entry(ax=None):
    r"""Draw where the positional encoding enters the model, as boxes and arrows.

    Token path, left to right: the tokens (ids :math:`w_{pos}` in a vocabulary), their
    embeddings (rows :math:`E[w_{pos}]` of a learned matrix :math:`E`), multiplication by
    :math:`\sqrt{d_{model}}` (Vaswani et al., 2017, Sec. 3.4), a sum node, dropout
    (Sec. 5.4), the first attention layer (Sec. 3.2).  Position path, below: the
    positions and their encoding :math:`PE(pos)` (Sec. 3.5), whose arrow enters the sum
    node from below.  Each node's label is a text centred on the node; each arrow is an
    annotation from the edge of one node to the edge of the next (``ENCODING_ENTRY_EDGES``),
    along a row or a column.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new 10 x 3 inch figure is made if omitted.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes, with its frame and ticks turned off and equal aspect.

    Raises
    ------
    TypeError
        If `ax` is given and is not a matplotlib Axes.

    Examples
    --------
    >>> ax = draw_encoding_entry()
    >>> [text.get_text() for text in ax.texts if text.get_text()][3]
    '$+$'
    >>> sum(getattr(text, "arrow_patch", None) is not None for text in ax.texts)  # the arrows
    7
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3))
    elif not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    for name, (x, y, label, colour) in _NODES.items():
        if name == "sum":
            ax.add_patch(Circle((x, y), _SUM_RADIUS, facecolor=colour, edgecolor="black", linewidth=1.2))
            ax.text(x, y, label, ha="center", va="center", fontsize=14)
            continue
        width = _WIDTHS[name]
        ax.add_patch(FancyBboxPatch((x - width / 2, y - _HEIGHT / 2), width, _HEIGHT,
                                    boxstyle=f"round,pad={_PAD},rounding_size=0.1",
                                    facecolor=colour, edgecolor="black", linewidth=1.0))
        ax.text(x, y, label, ha="center", va="center", fontsize=9.5)
    for start, end in ENCODING_ENTRY_EDGES:
        ax.annotate("", xy=_edge_point(end, towards=start), xytext=_edge_point(start, towards=end),
                    arrowprops=dict(arrowstyle="-|>", color="black", linewidth=1.2, shrinkA=0, shrinkB=0))
    ax.text(6.95, 0.55, "a fixed table:\nthe same for every\nsequence length", ha="left", va="center",
            fontsize=10, style="italic", color="#444444")
    ax.set_xlim(-0.05, 9.95)
    ax.set_ylim(0.0, 2.55)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title("Where the positional encoding enters the model (Vaswani et al., 2017)")
    return ax


def _edge_point(name: str, towards: str) -> tuple[float, float]:
    """Where an arrow between `name` and `towards` (in a row or a column) meets the edge of `name`."""
    x, y, *_ = _NODES[name]
    other_x, other_y, *_ = _NODES[towards]
    if name == "sum":
        half_width = half_height = _SUM_RADIUS
    else:
        half_width, half_height = _WIDTHS[name] / 2 + _PAD, _HEIGHT / 2 + _PAD
    if other_y == y:  # same row
        return (x + half_width, y) if other_x > x else (x - half_width, y)
    return (x, y + half_height) if other_y > y else (x, y - half_height)
