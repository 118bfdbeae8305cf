r"""The picture of the book's one-page summary, "The encoding at a glance" (book/glance.md).

One figure shows the encoding both ways the book draws it: on the left the table as an image,
positions down and columns across (:func:`companion.book.plotting.plot_heatmap`, the picture of
chapter 2), on the right four of its (sin, cos) pairs as the hands of clocks
(:func:`companion.book.plotting.plot_clock`), each turning :math:`\omega_i` radians per position.
The book's build draws it (the Sphinx extension ``book/_ext/glance_figure.py`` calls
:func:`write_glance_figure` before the pages are read), so the page shows what this code draws.
"""

from __future__ import annotations

from pathlib import Path

from .._environment import require

require("matplotlib")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..encoding.frequencies import wavelengths  # noqa: E402
from ..encoding.table import sinusoidal_encoding  # noqa: E402
from .plotting import plot_clock, plot_heatmap  # noqa: E402

__all__ = ["GLANCE_CLOCK_PAIRS", "GLANCE_D_MODEL", "GLANCE_POSITIONS", "glance_figure", "write_glance_figure"]

#: The table drawn: positions 0 to 49 of a 64-wide encoding.
GLANCE_POSITIONS, GLANCE_D_MODEL = 50, 64
#: The pairs drawn as clocks, from fast to slow.
GLANCE_CLOCK_PAIRS = (0, 4, 8, 16)
# Wide and short: the summary must fit one printed page with its text.
_SIZE_INCHES = (8.0, 2.2)
_DPI = 150
# The chapters' figure style (sizes legible in the book's column); the clocks' titles a point smaller, to
# fit above their clocks.
_STYLE = "companion.book.figures"
_CLOCK_TITLE_PT = 10


def glance_figure():
    """Draw the summary's picture: the table as a heatmap beside four pairs as clocks.

    The table is :func:`companion.sinusoidal_encoding` of positions ``0 .. 49`` at
    ``d_model = 64`` (Vaswani et al., 2017, Sec. 3.5); each clock is one of its pairs
    (:data:`GLANCE_CLOCK_PAIRS`), its hand at the last position, titled with its wavelength.

    Returns
    -------
    matplotlib.figure.Figure
        The figure: its Axes are the heatmap (its image ``axes[0].images[0]``), the heatmap's
        colorbar, then the clocks in the order of :data:`GLANCE_CLOCK_PAIRS` (the hand of each the
        line with gid ``"hand"``).

    Raises
    ------
    RuntimeError
        If matplotlib is not installed (raised when the module is imported).

    Examples
    --------
    >>> figure = glance_figure()
    >>> [axes.get_title() for axes in figure.axes[2:]]
    ['pair 0: a turn in 6.3', 'pair 4: a turn in 20', 'pair 8: a turn in 63', 'pair 16: a turn in 628']
    >>> plt.close(figure)
    """
    table = sinusoidal_encoding(np.arange(GLANCE_POSITIONS), GLANCE_D_MODEL)
    with plt.style.context(_STYLE):
        return _draw(table)


def _draw(table):
    figure = plt.figure(figsize=_SIZE_INCHES, dpi=_DPI, layout="constrained")
    left, right = figure.subfigures(1, 2, width_ratios=[1.25, 1])
    heatmap = left.subplots()
    plot_heatmap(table, ax=heatmap, colorbar=False,
                 title=f"The table: {GLANCE_POSITIONS} positions, d_model = {GLANCE_D_MODEL}")
    left.colorbar(heatmap.images[0], ax=heatmap, label="sine or cosine")
    heatmap.set_xlabel("column (pair i: columns 2i and 2i + 1)")
    right.suptitle(f"Pairs as clocks, hands at position {GLANCE_POSITIONS - 1}", fontsize="medium")
    for pair, ax in zip(GLANCE_CLOCK_PAIRS, right.subplots(2, 2).flat):
        plot_clock(table, pair, ax=ax, colorbar=False)
        turn = wavelengths(GLANCE_D_MODEL)[pair]
        ax.set_title(f"pair {pair}: a turn in {turn:.1f}" if turn < 10 else f"pair {pair}: a turn in {turn:,.0f}",
                     fontsize=_CLOCK_TITLE_PT)
        ax.set(xlabel="", ylabel="", xticks=[], yticks=[])
    return figure


def write_glance_figure(path) -> Path:
    """Draw :func:`glance_figure` and save it as a PNG at `path` (its folder is created).

    Parameters
    ----------
    path : str or os.PathLike
        Where to write the image; a ``.png`` file name.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ValueError
        If `path` does not end in ``.png``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_glance_figure(Path(folder) / "glance.png")
    ...     written.read_bytes()[:4]
    b'\\x89PNG'
    """
    path = Path(path)
    if path.suffix != ".png":
        raise ValueError(f"path must name a .png file, got {str(path)!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure = glance_figure()
    try:
        # No date or software version in the file: the same drawing gives the same bytes.
        figure.savefig(path, dpi=_DPI, metadata={"Software": None})
    finally:
        plt.close(figure)
    return path
