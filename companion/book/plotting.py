r"""Figures of the encoding.

Every helper draws into the Axes it is given (or a new one), labels it with
units, and returns it; none calls ``plt.show()``.  Colormaps are readable
with the common colour-vision deficiencies: ``RdBu`` (ColorBrewer's
colour-blind-safe diverging map) for values in [-1, 1], ``viridis``
(perceptually uniform) for positions and ``twilight`` (cyclic, so that an
angle of :math:`2\pi - \epsilon` looks like an angle of :math:`\epsilon`) for
angles; line plots also differ by marker or line style, not by colour alone.

Images refuse to draw more rows than their Axes has pixel rows.  A screen
cannot show 26 rows in one pixel row, and what it shows instead depends on how
the image is resampled.  With nearest-neighbour resampling (what the images here
use) it keeps about one row in 26, and the fast columns of the encoding alias:
a pair whose 26-row step is close to a whole turn draws broad bands, one close
to half a turn draws stripes whose contrast swells and fades (moiré); neither is
in the data.  Matplotlib's default instead low-pass filters the image after
colour mapping, in RGBA space, and averages red and blue into a purple-grey
that is not on the colormap at all.  Draw fewer positions, or the columns
against position (:func:`plot_columns`), instead; :func:`rendered_pixels` reads
back what a figure really shows.
"""

from __future__ import annotations

from .._environment import require

require("matplotlib")

import matplotlib.pyplot as plt
import numpy as np

__all__ = [
    "colormap_distance",
    "plot_angle_map",
    "plot_clock",
    "plot_columns",
    "plot_frequencies",
    "plot_frequency_scaling",
    "plot_heatmap",
    "plot_nearest_distances",
    "plot_similarity_by_offset",
    "plot_similarity_matrix",
    "rendered_pixels",
    "rows_per_pixel",
]

DIVERGING_CMAP = "RdBu"
SEQUENTIAL_CMAP = "viridis"
CYCLIC_CMAP = "twilight"
LINE_STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "v", "d", "x")


def _positions(length: float) -> str:
    """A length in positions for a label: one decimal below 10 (2π is 6.3, not 6), whole numbers above."""
    return f"{length:.1f}" if length < 10 else f"{length:,.0f}"


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax


def rows_per_pixel(ax, n_rows: int) -> float:
    """How many rows of an image would share one pixel row of `ax`.

    Measured on the Axes as it is laid out when called, at the figure's dpi
    (the resolution a notebook shows it at).  Above 1, an image of `n_rows`
    rows cannot be shown: the renderer keeps one row in this many.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The Axes the image would be drawn in.
    n_rows : int
        Rows of the image (positions of a table).

    Returns
    -------
    float
        ``n_rows`` divided by the Axes' height in pixels.

    Raises
    ------
    ValueError
        If `n_rows` is not positive.

    Examples
    --------
    >>> fig, ax = plt.subplots(figsize=(8, 5), dpi=100)  # 385 pixels tall inside the margins
    >>> round(rows_per_pixel(ax, 10_000))
    26
    """
    if n_rows < 1:
        raise ValueError(f"n_rows must be positive, got {n_rows}")
    return n_rows / ax.get_window_extent().height


def _check_resolution(ax, n_rows: int) -> None:
    ratio = rows_per_pixel(ax, n_rows)
    if ratio > 1:
        raise ValueError(
            f"{n_rows} rows do not fit in an Axes {n_rows / ratio:.0f} pixels tall: the screen would show one "
            f"row in {ratio:.0f}, and fast columns would alias into bands that are not in the data. Draw fewer "
            "rows, a taller figure, or the columns against position (plot_columns); "
            "check_resolution=False draws it anyway."
        )


def rendered_pixels(ax) -> np.ndarray:
    """The colours the screen shows inside `ax`: its figure rendered, the Axes' interior cut out.

    Draws the figure at its dpi (with its own canvas, or with matplotlib's Agg renderer
    if that canvas cannot give pixels, as after ``plt.show()`` in a notebook) and
    returns the pixels strictly inside the Axes' frame, top row first, so that a figure can be checked for what it
    really shows rather than for what was passed to it.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The Axes to read.

    Returns
    -------
    ndarray, shape (height, width, 3), dtype uint8
        RGB values; rows run down the screen, columns across.

    Raises
    ------
    ValueError
        If the Axes is too small to have an interior.

    Examples
    --------
    >>> fig, ax = plt.subplots(figsize=(2, 2), dpi=50)
    >>> _ = ax.imshow(np.zeros((4, 4)), cmap="RdBu", vmin=-1, vmax=1)
    >>> pixels = rendered_pixels(ax)
    >>> pixels.dtype, bool(np.all(pixels == plt.get_cmap("RdBu")(0.5, bytes=True)[:3]))  # RdBu's middle
    (dtype('uint8'), True)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = ax.figure
    # a figure already shown in a notebook is left with a bare canvas that cannot give pixels
    canvas = figure.canvas if hasattr(figure.canvas, "buffer_rgba") else FigureCanvasAgg(figure)
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    box = ax.get_window_extent()
    height = rgba.shape[0]
    top, bottom = height - int(np.floor(box.y1)) + 1, height - int(np.ceil(box.y0)) - 1
    left, right = int(np.ceil(box.x0)) + 1, int(np.floor(box.x1)) - 1
    if bottom <= top or right <= left:
        raise ValueError(f"the Axes has no interior pixels ({box.width:.0f} x {box.height:.0f} pixels)")
    return rgba[top:bottom, left:right, :3].copy()


def colormap_distance(pixels, cmap: str = DIVERGING_CMAP) -> np.ndarray:
    """How far each pixel's colour is from the nearest colour of a colormap, in RGB units (0 to 255).

    0 for a pixel a colormap could have drawn; large for a colour it never draws, such as
    the purple-grey that smoothing red and blue pixels together makes.

    Parameters
    ----------
    pixels : array_like of uint8, shape (..., 3)
        RGB colours, e.g. from :func:`rendered_pixels`.
    cmap : str, default "RdBu"
        A matplotlib colormap name; its 256 colours are compared.

    Returns
    -------
    ndarray, shape pixels.shape[:-1], dtype float64
        Euclidean distance in RGB space to the nearest of the colormap's colours.

    Raises
    ------
    ValueError
        If the last axis of `pixels` is not 3 (RGB), or `cmap` is not a colormap.

    Examples
    --------
    >>> white, purple_grey = [247, 247, 247], [132, 109, 131]
    >>> colormap_distance(np.array([white, purple_grey], dtype=np.uint8)).round()
    array([ 1., 97.])
    """
    pixels = np.asarray(pixels)
    if pixels.shape[-1:] != (3,):
        raise ValueError(f"pixels must have RGB colours on the last axis, got shape {pixels.shape}")
    colours = np.asarray(plt.get_cmap(cmap)(np.linspace(0, 1, 256), bytes=True))[:, :3].astype(np.int32)
    flat = pixels.reshape(-1, 3).astype(np.int32)
    distances = np.empty(len(flat))
    for start in range(0, len(flat), 4096):  # a 4096 x 256 x 3 block at a time
        block = flat[start : start + 4096, None, :] - colours[None]
        distances[start : start + 4096] = np.sqrt((block**2).sum(axis=-1).min(axis=1))
    return distances.reshape(pixels.shape[:-1])


def plot_heatmap(
    table,
    *,
    ax=None,
    title=None,
    first_position: int = 0,
    colorbar: bool = True,
    check_resolution: bool = True,
    interpolation: str | None = "nearest",
    interpolation_stage: str | None = "data",
):
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
    check_resolution : bool, default True
        Refuse a table with more rows than the Axes has pixel rows (see :func:`rows_per_pixel`).
    interpolation, interpolation_stage : str or None, default "nearest" and "data"
        Passed to matplotlib's ``Axes.imshow``; None takes matplotlib's defaults
        (``rcParams["image.interpolation"]``, ``"auto"``: when an image is shrunk, a
        low-pass filter applied after colour mapping).  Nearest-neighbour resampling
        shows each pixel the value of one table entry: exact while every row has its
        pixel row, aliased when rows are skipped (see the module's notes).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes, with labelled axes (and a labelled colorbar).

    Raises
    ------
    ValueError
        If `table` is not 2-D, or has more rows than the Axes has pixel rows.

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
    if check_resolution:
        _check_resolution(ax, seq_len)
    image = ax.imshow(
        table,
        cmap=DIVERGING_CMAP,
        vmin=-1,
        vmax=1,
        aspect="auto",
        interpolation=interpolation,
        interpolation_stage=interpolation_stage,
        extent=(-0.5, d_model - 0.5, first_position + seq_len - 0.5, first_position - 0.5),
    )
    ax.set_xlabel("encoding column (dimension)")
    ax.set_ylabel("position")
    ax.set_title(title if title is not None else f"Sinusoidal encoding, {seq_len} positions x {d_model} columns")
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="encoding value (sine or cosine, no unit)")
    return ax


def plot_angle_map(
    positions, d_model: int, *, base: float = 10_000.0, ax=None, colorbar: bool = True, check_resolution: bool = True
):
    r"""The angle of every pair at every position, :math:`\omega_i p \bmod 2\pi`, on a cyclic colormap.

    The table holds the sine and cosine of these angles; the map shows the
    angles themselves, so each pair reads as a clock: a colour cycle per turn.

    Parameters
    ----------
    positions : array_like, shape (seq_len,)
        Positions, in the order of the rows (increasing, for the y-axis labels).
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    colorbar : bool, default True
        Add a colorbar in radians, ticks at multiples of :math:`\pi/2`.
    check_resolution : bool, default True
        Refuse more positions than the Axes has pixel rows (see :func:`rows_per_pixel`).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes; ``ax.get_images()[0].get_array()`` holds the angles in ``[0, 2 pi)``,
        shape (seq_len, d_model // 2).

    Raises
    ------
    TypeError, ValueError
        On bad or empty `positions`, bad `d_model` or `base`, or more positions than pixel rows.

    Examples
    --------
    >>> ax = plot_angle_map(np.arange(100), 16)
    >>> ax.get_images()[0].get_array().shape
    (100, 8)
    """
    from .._checks import check_positions
    from ..encoding.frequencies import angular_frequencies

    positions = check_positions(positions)
    if positions.size == 0:
        raise ValueError("positions must hold at least one position")
    omega = angular_frequencies(d_model, base)
    angles = np.mod(np.multiply.outer(positions, omega), 2 * np.pi)
    ax = _axes(ax)
    if check_resolution:
        _check_resolution(ax, positions.size)
    image = ax.imshow(
        angles,
        cmap=CYCLIC_CMAP,
        vmin=0,
        vmax=2 * np.pi,
        aspect="auto",
        interpolation="nearest",
        extent=(-0.5, omega.size - 0.5, positions[-1] + 0.5, positions[0] - 0.5),
    )
    ax.set_xlabel(f"pair index i (columns 2i and 2i + 1; 0 to {omega.size - 1})")
    ax.set_ylabel("position p")
    ax.set_title(f"Angle ω_i p mod 2π, d_model = {d_model}, base = {base:,.0f}")
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax, label="angle (radians)")
        bar.set_ticks(np.arange(5) * np.pi / 2, labels=["0", "π/2", "π", "3π/2", "2π"])
    return ax


def plot_columns(positions, d_model: int, pairs, *, base: float = 10_000.0, ax=None, samples_per_turn: int = 24):
    r"""The sine column of a few pairs against position: :math:`\sin(\omega_i p)` for each pair ``i``.

    The table holds the wave only at the given (integer) positions.  A pair that turns
    fast is sampled only a few times per turn, and straight lines between its samples
    would draw a jagged wave with uneven peaks; so each wave is drawn as a smooth curve
    through enough points per turn, and the table's own values of such a fast pair are
    marked with dots.

    Parameters
    ----------
    positions : array_like, shape (seq_len,)
        Increasing positions (x axis).
    d_model : int
        Encoding width; a positive even integer.
    pairs : sequence of int
        Pair indices ``i``, each in ``0 .. d_model // 2 - 1``; column ``2i`` is drawn.
    base : float, default 10000.0
        Finite and greater than 1.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    samples_per_turn : int, default 24
        Points per turn of the smooth curve; a pair that the positions sample fewer
        times per turn than this also gets a dot at each position.

    Returns
    -------
    matplotlib.axes.Axes
        One line per pair, labelled with its column and wavelength, in the order of
        `pairs`; the dots of the fast pairs follow them, each with gid ``"samples"``
        (one legend entry for all of them).

    Raises
    ------
    ValueError
        If a pair is out of range, `positions` is empty, or on bad `positions`, `d_model` or `base`.

    Examples
    --------
    >>> ax = plot_columns(np.arange(200), 128, pairs=[8, 32])
    >>> [line.get_label() for line in ax.get_lines()]
    ['pair 8 (column 16), wavelength 20', 'pair 32 (column 64), wavelength 628', "dots: the table's values at its positions"]
    """
    from .._checks import check_count, check_positions
    from ..encoding.frequencies import angular_frequencies

    positions = check_positions(positions)
    if positions.size == 0:
        raise ValueError("positions must hold at least one position")
    samples_per_turn = check_count(samples_per_turn, "samples_per_turn")
    omega = angular_frequencies(d_model, base)
    pairs = [int(pair) for pair in pairs]
    if not pairs or not all(0 <= pair < omega.size for pair in pairs):
        raise ValueError(f"pairs must be indices in 0..{omega.size - 1}, got {pairs}")
    ax = _axes(ax)
    spacing = np.min(np.diff(positions)) if positions.size > 1 else 1.0
    lines = []
    for index, pair in enumerate(pairs):
        wavelength = 2 * np.pi / omega[pair]
        steps = max(positions.size, int(np.ceil((positions[-1] - positions[0]) / wavelength * samples_per_turn)) + 1)
        smooth = np.linspace(positions[0], positions[-1], steps)
        line, = ax.plot(smooth, np.sin(omega[pair] * smooth), ls=LINE_STYLES[index % len(LINE_STYLES)], lw=1.2,
                        label=f"pair {pair} (column {2 * pair}), wavelength {_positions(wavelength)}")
        lines.append(line)
    label = "dots: the table's values at its positions"
    for line, pair in zip(lines, pairs):
        if 2 * np.pi / omega[pair] < samples_per_turn * spacing:  # sampled too coarsely to read as a line
            ax.plot(positions, np.sin(omega[pair] * positions), "o", ms=2.5, color=line.get_color(), gid="samples",
                    label=label)
            label = "_nolegend_"  # one legend entry for all the dots
    ax.set_xlabel("position p")
    ax.set_ylabel("sin ω_i p (no unit)")
    ax.set_title(f"Sine columns of a few pairs, d_model = {d_model}")
    ax.legend(fontsize="small", loc="lower left")
    return ax


def _turning_arrow(ax, x, y, step_sign, radius=1.16, span=np.deg2rad(50)):
    """An arc outside the circle from the hand, in the direction the hand turns; its tip an arrow head."""
    start = np.arctan2(y, x)
    arc = start + step_sign * np.linspace(0, span, 30)
    ax.plot(radius * np.cos(arc), radius * np.sin(arc), color="0.2", lw=1.2, gid="turning direction")
    ax.annotate("", xy=(radius * np.cos(arc[-1]), radius * np.sin(arc[-1])),
                xytext=(radius * np.cos(arc[-4]), radius * np.sin(arc[-4])),
                arrowprops={"arrowstyle": "-|>", "color": "0.2", "lw": 1.2})


def plot_clock(
    table,
    pair: int,
    *,
    ax=None,
    first_position: int = 0,
    colorbar: bool = True,
    hand_at: int | None = None,
    sine_on_x: bool = True,
    positions=None,
):
    """One (sin, cos) pair of a table as a clock: points on the unit circle, a hand, and the way it turns.

    The picture of the blog post *Understanding positional encoding*, completed: each
    row is a point coloured by its position, a hand points at the row `hand_at`,
    and an arrow outside the circle shows which way the hand moves from the row
    before (measured on the drawn points, not assumed).  With the sine on the x
    axis and the cosine on the y axis, as the blog post draws it, an angle
    ``omega_i p`` is measured from 12 o'clock towards 3 o'clock, so the hands
    turn clockwise; with the axes swapped (``sine_on_x=False``, the usual
    mathematical convention) the same pair turns anticlockwise.

    Parameters
    ----------
    table : array_like, shape (seq_len, d_model)
        An encoding table in the interleaved layout.
    pair : int
        Pair index ``i``; columns ``2i`` (sine) and ``2i + 1`` (cosine).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    first_position : int, default 0
        Position of the first row, for the colours and the hand's label; the rows are
        then positions ``first_position, first_position + 1, ...``.
    colorbar : bool, default True
        Add a colorbar of positions.
    hand_at : int, optional
        Row the hand points at (default: the last row, "the current position").
    sine_on_x : bool, default True
        Sine on the x axis, cosine on the y axis (the blog post's clocks); False swaps them.
    positions : array_like of shape (seq_len,), optional
        The position of each row, for rows that are not consecutive increasing positions
        (for example ``0, -1, -2, ...``); replaces `first_position`.

    Returns
    -------
    matplotlib.axes.Axes
        Square Axes with labelled axes; its scatter is ``ax.collections[0]``, the
        hand the line with gid ``"hand"``, the arrow's arc the line with gid
        ``"turning direction"``.

    Raises
    ------
    ValueError
        If `table` is not 2-D, `pair` is out of range, `hand_at` is not a row, or
        `positions` does not give one position per row.

    Examples
    --------
    >>> from companion import sinusoidal_encoding
    >>> ax = plot_clock(sinusoidal_encoding(np.arange(100), 18), pair=8)
    >>> ax.get_title(), ax.get_xlabel()
    ('pair 8', 'x: sin ω_8 p (column 16)')
    """
    table = np.asarray(table)
    if table.ndim != 2 or not 0 <= pair < table.shape[1] // 2:
        raise ValueError(f"pair must index a (sin, cos) pair of a 2-D table, got pair {pair} for shape {table.shape}")
    seq_len = table.shape[0]
    hand_at = seq_len - 1 if hand_at is None else hand_at
    if not 0 <= hand_at < seq_len:
        raise ValueError(f"hand_at must be a row of the table (0 to {seq_len - 1}), got {hand_at}")
    sine, cosine = table[:, 2 * pair], table[:, 2 * pair + 1]
    x, y = (sine, cosine) if sine_on_x else (cosine, sine)
    names = (f"sin ω_{pair} p (column {2 * pair})", f"cos ω_{pair} p (column {2 * pair + 1})")
    x_name, y_name = names if sine_on_x else names[::-1]
    if positions is None:
        positions = first_position + np.arange(seq_len)
    positions = np.asarray(positions)
    if positions.shape != (seq_len,):
        raise ValueError(f"positions must give one position per row ({seq_len}), got shape {positions.shape}")
    ax = _axes(ax)
    points = ax.scatter(x, y, c=positions, cmap=SEQUENTIAL_CMAP, s=12, zorder=2)
    circle = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.cos(circle), np.sin(circle), color="0.85", lw=1, zorder=0)
    ax.plot([0, x[hand_at]], [0, y[hand_at]], color="black", lw=2, solid_capstyle="round", zorder=3, gid="hand",
            label=f"hand at position {positions[hand_at]}")
    ax.plot([x[hand_at]], [y[hand_at]], "o", mfc="none", mec="black", ms=8, zorder=3)
    if seq_len > 1:
        before, after = (hand_at - 1, hand_at) if hand_at > 0 else (0, 1)
        turn = x[before] * y[after] - y[before] * x[after]  # > 0: anticlockwise on the page
        if turn != 0:
            _turning_arrow(ax, x[hand_at], y[hand_at], np.sign(turn))
    ax.set_aspect("equal")
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
    ax.set_xlabel(f"x: {x_name}")
    ax.set_ylabel(f"y: {y_name}")
    ax.set_title(f"pair {pair}")
    if colorbar:
        ax.figure.colorbar(points, ax=ax, label="position")
    return ax


def plot_frequencies(
    d_model: int,
    bases=(1e2, 1e4, 1e8),
    *,
    quantity: str = "angular_frequency",
    ax=None,
    seq_len: int | None = None,
    paper_range: bool = False,
):
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
    seq_len : int, optional
        Wavelengths only: draw the two lines that sort the pairs for a sequence of this
        many positions, ``seq_len - 1`` steps from first to last (as
        :func:`~companion.analysis.distinguishability.count_pairs_by_turn` counts): at
        ``seq_len - 1`` (up to it a pair completes a turn over the sequence) and
        ``2 pi (seq_len - 1)`` (above it a pair turns by less than one radian).
    paper_range : bool, default False
        Wavelengths only: draw ``2 pi`` and ``2 pi base``, the range the paper states
        ("a geometric progression from 2π to 10000 · 2π").

    Returns
    -------
    matplotlib.axes.Axes
        One labelled line per base, logarithmic y axis.

    Raises
    ------
    ValueError
        If `quantity` is unknown, `seq_len` or `paper_range` is given with frequencies,
        or on bad `d_model` or a bad base.

    Examples
    --------
    >>> ax = plot_frequencies(128, quantity="wavelength")
    >>> ax.get_ylabel(), len(ax.get_lines())
    ('wavelength 2π/ω_i (positions)', 3)
    """
    from ..encoding.frequencies import angular_frequencies, wavelengths

    if quantity not in ("angular_frequency", "wavelength"):
        raise ValueError(f"quantity must be 'angular_frequency' or 'wavelength', got {quantity!r}")
    if quantity != "wavelength" and (seq_len is not None or paper_range):
        raise ValueError("seq_len and paper_range mark wavelengths; use quantity='wavelength'")
    ax = _axes(ax)
    for index, base in enumerate(bases):
        values = angular_frequencies(d_model, base) if quantity == "angular_frequency" else wavelengths(d_model, base)
        line, = ax.semilogy(values, ls=LINE_STYLES[index % len(LINE_STYLES)], marker=MARKERS[index % len(MARKERS)],
                            markevery=max(d_model // 16, 1), ms=4, label=f"base {base:,.0f}")
        if paper_range:
            ax.axhline(2 * np.pi * base, color=line.get_color(), lw=1, ls="--",
                       label=f"2π · {base:,.0f}, the paper's stated end")
    if paper_range:
        ax.axhline(2 * np.pi, color="0.3", lw=1, ls=":", label="2π, the paper's stated start")
        ax.margins(y=0.15)
    if seq_len is not None:
        steps = seq_len - 1
        ax.axhline(steps, color="0.3", lw=1, ls="--", label=f"{steps:,}: one turn over {seq_len:,} positions")
        ax.axhline(2 * np.pi * steps, color="0.3", lw=1, ls="-.",
                   label=f"2π · {steps:,}: one radian over {seq_len:,} positions")
    ax.set_xlabel(f"pair index i (0 to {d_model // 2 - 1})")
    ax.set_ylabel("angular frequency ω_i (radians per position)" if quantity == "angular_frequency"
                  else "wavelength 2π/ω_i (positions)")
    ax.set_title(f"{'Angular frequencies' if quantity == 'angular_frequency' else 'Wavelengths'}, d_model = {d_model}")
    ax.legend(fontsize="small")
    return ax


def plot_similarity_matrix(positions, d_model: int, *, base: float = 10_000.0, ax=None, colorbar: bool = True):
    """Cosine similarity of the encodings of every pair of positions.

    Because ``PE(p) . PE(q)`` depends only on ``q - p``, the matrix is
    constant along every diagonal.

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
        On bad positions, `d_model` or `base`, or more positions than the Axes has pixel rows.

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
    _check_resolution(ax, len(table))
    positions = np.asarray(positions)
    image = ax.imshow(similarity, cmap=DIVERGING_CMAP, vmin=-1, vmax=1, interpolation="nearest",
                      extent=(positions[0] - 0.5, positions[-1] + 0.5, positions[-1] + 0.5, positions[0] - 0.5))
    ax.set_xlabel("position q")
    ax.set_ylabel("position p")
    ax.set_title(f"Cosine similarity of PE(p) and PE(q), d_model = {d_model}")
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="cosine similarity (no unit)")
    return ax


def plot_similarity_by_offset(
    max_offset: int, d_model: int, base: float = 10_000.0, *, ax=None, envelope_from: int = 100, bins: int = 240
):
    r"""Cosine similarity of :math:`PE(p)` and :math:`PE(p + k)` against the offset :math:`k`, for one base.

    The similarity is :math:`\frac{2}{d_{model}} \sum_i \cos(\omega_i k)`, the same for every
    :math:`p`.  It trends down and ripples as the fast pairs turn; on a log axis, a
    hundred thousand offsets would merge into a solid band, so beyond `envelope_from`
    the curve is drawn as its range (smallest to largest value) in each of `bins`
    log-spaced bins.  A dashed line draws its smooth trend
    (:func:`~companion.analysis.distinguishability.similarity_trend`), and three
    black-edged markers, on top, where the similarity first falls to 1/2 (circle), where
    it stays at or below 1/2 from (triangle; within `max_offset`), and where it first
    reaches 0 (square).

    Parameters
    ----------
    max_offset : int
        Largest offset drawn; offsets ``1 .. max_offset`` on a logarithmic axis.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    envelope_from : int, default 100
        Offsets up to this one are drawn as a line, the rest as a band.
    bins : int, default 240
        Log-spaced bins of the band (fewer where offsets run out).

    Returns
    -------
    matplotlib.axes.Axes
        Logarithmic x axis.  Lines with gids ``"similarity"`` (offsets up to
        `envelope_from`), ``"trend"``, ``"first 1/2"``, ``"settled 1/2"`` and ``"first 0"``
        (the markers, each drawn only if within `max_offset`); the band is
        ``ax.collections[0]``.

    Raises
    ------
    TypeError, ValueError
        If `max_offset` is not an integer above `envelope_from`, or on bad `d_model`,
        `base`, `envelope_from` or `bins`.

    Examples
    --------
    >>> ax = plot_similarity_by_offset(1000, 64)
    >>> ax.get_xscale(), ax.get_lines()[0].get_ydata()[0].round(3)
    ('log', np.float64(0.966))
    """
    from .._checks import check_count
    from ..analysis.distinguishability import last_offset_above, similarity_scales, similarity_trend
    from ..analysis.linearity import relative_dot_product

    envelope_from, bins = check_count(envelope_from, "envelope_from"), check_count(bins, "bins")
    if check_count(max_offset, "max_offset") <= envelope_from or bins < 1:
        raise ValueError(f"max_offset must be above envelope_from ({envelope_from}) and bins positive, "
                         f"got {max_offset} and {bins}")
    offsets = np.arange(1, max_offset + 1)
    similarity = np.concatenate([relative_dot_product(chunk, d_model, base) for chunk in
                                 np.array_split(offsets, max(1, offsets.size // 2**14))]) / (d_model / 2)
    ax = _axes(ax)
    ax.semilogx(offsets[:envelope_from], similarity[:envelope_from], color="C0", lw=1.2, gid="similarity",
                label="similarity")
    # bins of offsets [edges[j], edges[j + 1]); reduceat takes 0-based indices, offset k at index k - 1
    edges = np.unique(np.geomspace(envelope_from + 1, max_offset + 1, bins + 1).astype(int))
    low = np.minimum.reduceat(similarity, edges[:-1] - 1)
    high = np.maximum.reduceat(similarity, edges[:-1] - 1)
    steps = np.append(edges[:-1], max_offset)  # step="post": each bin's value holds up to the next edge
    ax.fill_between(steps, np.append(low, low[-1]), np.append(high, high[-1]), step="post", color="C0", alpha=0.35,
                    lw=0, label=f"its range beyond {envelope_from} (it ripples)")
    grid = np.geomspace(1, max_offset, 300)
    ax.semilogx(grid, similarity_trend(grid, base), color="black", ls="--", lw=1.2, gid="trend",
                label="trend, -Ci(k/base) / ln(base)")
    first = similarity_scales(d_model, base, max_offset=max(max_offset, 10**6))
    settled = last_offset_above(0.5, d_model, base, max_offset=max_offset) + 1
    for offset, marker, gid, text in ((first.half, "o", "first 1/2", "first at or below 1/2"),
                                      (settled, "v", "settled 1/2", "at or below 1/2 from here on"),
                                      (first.zero, "s", "first 0", "first at or below 0")):
        if offset <= max_offset:
            ax.plot([offset], [similarity[offset - 1]], marker=marker, ms=7, mfc="white", mec="black", mew=1.3,
                    ls="none", zorder=5, gid=gid, label=f"{text}: {offset:,}")
    ax.axhline(0, color="0.6", lw=0.8)
    ax.axhline(0.5, color="0.6", lw=0.8, ls=":")
    ax.set_xlabel("offset k (positions)")
    ax.set_ylabel("cosine similarity")
    ax.set_title(f"Similarity of PE(p) and PE(p + k), d_model = {d_model}, base = {base:,.0f}")
    ax.legend(fontsize="small", loc="lower left")
    return ax


def plot_frequency_scaling(d_model: int, scaled, *, base: float = 10_000.0, ax=None):
    r"""How much each pair is slowed: :math:`\omega_i' / \omega_i` for several rescaled frequency sets.

    Parameters
    ----------
    d_model : int
        Encoding (or rotated) width; a positive even integer.
    scaled : dict of str to array_like, shape (d_model // 2,)
        Label -> new angular frequencies, e.g. from
        :func:`~companion.encoding.context_extension.scaled_frequencies`.
    base : float, default 10000.0
        The base of the original frequencies.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.

    Returns
    -------
    matplotlib.axes.Axes
        One labelled line per entry, logarithmic y axis.

    Raises
    ------
    ValueError
        If an entry does not have one frequency per pair, or on bad `d_model` or `base`.

    Examples
    --------
    >>> from companion import angular_frequencies
    >>> ax = plot_frequency_scaling(16, {"halved": angular_frequencies(16) / 2})
    >>> ax.get_lines()[0].get_ydata().tolist()
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    """
    from ..encoding.frequencies import angular_frequencies

    omega = angular_frequencies(d_model, base)
    ax = _axes(ax)
    for index, (label, values) in enumerate(scaled.items()):
        values = np.asarray(values, dtype=float)
        if values.shape != omega.shape:
            raise ValueError(f"{label!r} has shape {values.shape}, expected one frequency per pair {omega.shape}")
        ax.semilogy(values / omega, ls=LINE_STYLES[index % len(LINE_STYLES)], marker=MARKERS[index % len(MARKERS)],
                    markevery=max(omega.size // 8, 1), ms=4, label=label)
    smallest = min((np.min(np.asarray(values, dtype=float) / omega) for values in scaled.values()), default=1.0)
    if 0 < smallest < 1:  # ticks at 1, 1/2, 1/4, ...: how many times slower
        halvings = np.arange(int(np.ceil(-np.log2(smallest) - 1e-9)) + 1)
        ax.set_yticks(2.0**-halvings, labels=["1"] + [f"1/{2**h}" for h in halvings[1:]])
        ax.minorticks_off()
    ax.set_xlabel(f"pair index i (0 to {omega.size - 1}): fast pairs left, slow pairs right")
    ax.set_ylabel("new frequency / original frequency")
    ax.set_title(f"Which clocks each recipe slows, d_model = {d_model}, base = {base:,.0f}")
    ax.legend(fontsize="small")
    return ax


def plot_nearest_distances(max_lens, curves, *, ax=None):
    """Distance between the two closest encodings of a table, against the table length.

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
        Log-log Axes, one labelled line per curve, each with its own hollow marker, the
        earlier curves' markers larger (a curve drawn on top of another leaves it visible).
        A distance of exactly 0 (two positions stored as the same vector)
        cannot sit on a log axis: it is drawn at the bottom edge as a large
        downward triangle, with its own legend entry and a text label.

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
        # hollow markers, larger for earlier curves, so that curves lying on each other stay visible
        line, = ax.loglog(max_lens, np.where(values > 0, values, np.nan), marker=MARKERS[index % len(MARKERS)],
                          mfc="none", ms=9 - 0.8 * index if index < 6 else 4, ls=LINE_STYLES[index % len(LINE_STYLES)],
                          label=label)
        zeros = values == 0
        if zeros.any():
            ax.loglog(max_lens[zeros], np.full(zeros.sum(), floor), marker="v", ms=10, ls="none",
                      color=line.get_color(), label=f"{label}: distance 0 (drawn at the bottom edge)")
            ax.annotate("distance 0: two positions,\none vector", (max_lens[zeros][0], floor), xytext=(-10, 12),
                        textcoords="offset points", ha="right", fontsize="small", color=line.get_color())
    ax.set_xlabel("table length max_len (positions)")
    ax.set_ylabel("distance between the two closest encodings")
    ax.set_title("How far apart the encodings of different positions stay")
    ax.legend(fontsize="small")
    return ax
