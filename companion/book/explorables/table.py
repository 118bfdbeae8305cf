r"""The table: d_model and base controls redraw the encoding as an image and a few of its columns as waves.

Every cell of the table is :math:`\sin \omega_i p` (column :math:`2i`) or :math:`\cos \omega_i p`
(column :math:`2i + 1`), with :math:`\omega_i = \text{base}^{-2i/d_{model}}` (Vaswani et al., 2017,
Sec. 3.5). With two controls and every combination drawn, shipping the values would make the page
heavy; instead the page evaluates that formula (:data:`CELL`, a Vega expression), and the book's
browser test compares what it draws, for every combination the controls offer, with
:func:`~companion.sinusoidal_encoding` (float32 accuracy). The stand-in is drawn by the companion.
"""

from __future__ import annotations

import numpy as np

from ..._checks import check_base, check_count, check_d_model
from ...encoding.frequencies import angular_frequencies
from ...encoding.table import sinusoidal_encoding
from .figure import Explorable, choice, png, specification

__all__ = ["CELL", "WAVE", "column_pairs", "table"]

#: The value of a cell (position ``datum.position``, column ``datum.column``) as the page computes it.
CELL = ("datum.column % 2 == 0"
        " ? sin(datum.position * pow(base, -(datum.column - datum.column % 2) / d_model))"
        " : cos(datum.position * pow(base, -(datum.column - datum.column % 2) / d_model))")
#: The sine column of pair ``datum.pair`` at the (not necessarily whole) position ``datum.position``.
WAVE = "sin(datum.position * pow(base, -2 * datum.pair / d_model))"
#: The pairs drawn as waves: 0, d_model/16, d_model/8 and d_model/4 (0, 8, 16, 32 at width 128).
PAIRS = "[0, d_model / 16, d_model / 8, d_model / 4]"
#: Each wave's rank, fastest first: colour and dash follow the rank, so one legend names the pairs.
_RANKS = "[0, 1, 2, 3]"
_SAMPLES_PER_POSITION = 4


def column_pairs(d_model: int) -> list[int]:
    """The pairs whose sine column the figure draws as a wave: 0, d_model/16, d_model/8, d_model/4.

    Parameters
    ----------
    d_model : int
        Encoding width; a positive multiple of 16.

    Returns
    -------
    list of int
        Four pair indices, fastest first.

    Raises
    ------
    ValueError
        If `d_model` is not a positive multiple of 16.

    Examples
    --------
    >>> column_pairs(128)
    [0, 8, 16, 32]
    """
    if check_d_model(d_model) % 16:
        raise ValueError(f"d_model must be a multiple of 16, got {d_model}")
    return [0, d_model // 16, d_model // 8, d_model // 4]


def table(*, d_models=(16, 32, 64, 128), bases=(100, 1_000, 10_000, 100_000), d_model: int = 64,
          base: float = 10_000, seq_len: int = 50, wave_len: int = 200) -> Explorable:
    r"""The encoding table as an image (position down, column across) and four of its columns as waves.

    Parameters
    ----------
    d_models : sequence of int, default (16, 32, 64, 128)
        The widths offered by the d_model control; positive multiples of 16, at most 256.
    bases : sequence of float, default (100, 1000, 10000, 100000)
        The bases offered by the base control; each finite and greater than 1.
    d_model, base : int and float, default 64 and 10000
        The state shown first, and drawn in the stand-in; one of `d_models` and one of `bases`.
    seq_len : int, default 50
        Positions ``0 .. seq_len - 1`` in the image (10 to 100).
    wave_len : int, default 200
        The waves run over positions 0 to `wave_len` (10 to 1,000), drawn smooth (four points per
        position); the table's own values of the fastest pair are marked as dots.

    Returns
    -------
    Explorable
        ``data["table"]``: the companion's table for the first state, shape (seq_len, d_model);
        ``data["pairs"]``: the pairs drawn as waves in that state.

    Raises
    ------
    TypeError, ValueError
        If a width is not a positive multiple of 16 up to 256, a base is not finite and > 1, the
        first state is not among the options, or `seq_len` or `wave_len` is out of range.

    Examples
    --------
    >>> figure = table(d_model=128)
    >>> figure.data["table"].shape, figure.data["pairs"]
    ((50, 128), [0, 8, 16, 32])
    """
    d_models = [check_d_model(width) for width in d_models]
    if any(width % 16 or width > 256 for width in d_models):
        raise ValueError(f"d_models must be multiples of 16 up to 256, got {d_models}")
    bases = [check_base(value) for value in bases]
    seq_len, wave_len = check_count(seq_len, "seq_len"), check_count(wave_len, "wave_len")
    if not 10 <= seq_len <= 100 or not 10 <= wave_len <= 1000:
        raise ValueError(f"seq_len must be in 10..100 and wave_len in 10..1000, got {seq_len} and {wave_len}")
    first = sinusoidal_encoding(np.arange(seq_len), d_model, base=base)
    description = (
        f"Left, the encoding of positions 0 to {seq_len - 1} (rows, down) in every column (across), coloured "
        f"from red (-1) through white (0) to blue (+1); right, the sine columns of pairs 0, d_model/16, "
        f"d_model/8 and d_model/4 against position, 0 to {wave_len}, as smooth waves. The d_model control "
        f"({', '.join(map(str, d_models))}) sets the number of columns: a wider table samples the same range "
        f"of speeds more finely, so the image keeps its pattern with more, thinner columns. The base control "
        f"({', '.join(f'{value:,.0f}' for value in bases)}) sets how slow the last pairs are: with a small base "
        f"even the right-hand columns change colour down the image and the waves are fast; with a large one "
        f"most columns keep one colour and the slower waves barely rise."
    )
    params = [choice("d_model", "d_model", d_models, d_model), choice("base", "base", bases, base)]
    body = {"hconcat": [_image(seq_len), _waves(wave_len)], "spacing": 16,
            # each view its own scales and legends (the waves' colour and dash then share one legend)
            "resolve": {"scale": {"color": "independent", "strokeDash": "independent"}}}
    spec = specification("table", description, body, params=params, datasets={})
    return Explorable("table", spec, png(_stand_in(first, d_model, base, wave_len)), description,
                      {"table": first, "pairs": column_pairs(d_model)})


def _image(seq_len: int) -> dict:
    return {
        "name": "image", "width": 220, "height": 260,
        "title": {"text": {"expr": "d_model + ' columns, base ' + format(base, ',')"}},
        "data": {"sequence": {"start": 0, "stop": seq_len, "as": "position"}},
        "transform": [{"calculate": "sequence(0, d_model)", "as": "column"}, {"flatten": ["column"]},
                      {"calculate": CELL, "as": "value"}, {"calculate": "datum.column + 1", "as": "column_end"},
                      {"calculate": "datum.position + 1", "as": "position_end"}],
        # each cell outlined in its own colour: no light seams between neighbouring cells (anti-aliasing)
        "mark": {"type": "rect", "aria": False, "strokeWidth": 0.5},
        "encoding": {
            "x": {"field": "column", "type": "quantitative", "title": "column (dimension)",
                  "scale": {"domain": {"expr": "[0, d_model]"}, "nice": False, "zero": True}},
            "x2": {"field": "column_end"},
            "y": {"field": "position", "type": "quantitative", "title": "position p",
                  "scale": {"domain": [0, seq_len], "reverse": True, "nice": False}},
            "y2": {"field": "position_end"},
            "color": {"field": "value", "type": "quantitative", "title": "value",
                      "scale": {"scheme": "redblue", "domain": [-1, 1]}},
            "stroke": {"field": "value", "type": "quantitative", "scale": {"scheme": "redblue", "domain": [-1, 1]},
                       "legend": None},
        },
    }


def _waves(wave_len: int) -> dict:
    steps = wave_len * _SAMPLES_PER_POSITION
    # Colours and dashes as the stand-in draws them (matplotlib's first four colours, solid to dotted).
    legend = {"orient": "bottom", "direction": "horizontal", "labelExpr": f"'pair ' + {PAIRS}[datum.value]"}
    rank = {"field": "rank", "type": "nominal", "title": "pair i (sine column 2i)", "legend": legend}
    colour = {**rank, "scale": {"domain": [0, 1, 2, 3], "range": ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]}}
    dash = {**rank, "scale": {"domain": [0, 1, 2, 3], "range": [[1, 0], [5, 2], [6, 2, 1, 2], [1.5, 1.5]]}}
    x = {"field": "position", "type": "quantitative", "title": "position p", "scale": {"domain": [0, wave_len]}}
    y = {"field": "value", "type": "quantitative", "title": "sin ω_i p", "scale": {"domain": [-1.05, 1.05]}}
    return {
        "width": 250, "height": 260, "title": "Four sine columns against position",
        "layer": [
            {"name": "waves", "data": {"sequence": {"start": 0, "stop": steps + 1, "as": "step"}},
             "transform": [{"calculate": f"datum.step / {_SAMPLES_PER_POSITION}", "as": "position"},
                           {"calculate": PAIRS, "as": "pair"}, {"calculate": _RANKS, "as": "rank"},
                           {"flatten": ["pair", "rank"]},
                           {"calculate": WAVE, "as": "value"}],
             "mark": {"type": "line", "strokeWidth": 1.5},
             "encoding": {"x": x, "y": y, "color": colour, "strokeDash": dash, "order": {"field": "position"}}},
            {"name": "samples", "data": {"sequence": {"start": 0, "stop": wave_len + 1, "as": "position"}},
             "transform": [{"calculate": "0", "as": "pair"}, {"calculate": WAVE, "as": "value"}],
             "mark": {"type": "circle", "size": 10, "color": "#222", "aria": False},
             "encoding": {"x": x, "y": y}},
        ],
    }


def _stand_in(first: np.ndarray, d_model: int, base: float, wave_len: int):
    from matplotlib.figure import Figure

    from ..plotting import plot_columns, plot_heatmap

    figure = Figure(figsize=(8, 3.6), layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=[1, 1.25])
    plot_heatmap(first, ax=left, title=f"The table: {d_model} columns, base {base:,.0f}")
    plot_columns(np.arange(wave_len + 1), d_model, column_pairs(d_model), base=base, ax=right)
    right.set_title("Four sine columns against position")
    return figure


def wave_reference(d_model: int, base: float, wave_len: int = 200) -> np.ndarray:
    """The waves as the page samples them: rows (position, pair, value), from the companion's frequencies.

    Parameters
    ----------
    d_model : int
        Encoding width; a positive multiple of 16.
    base : float
        Finite and greater than 1.
    wave_len : int, default 200
        Positions 0 to `wave_len`, four samples per position.

    Returns
    -------
    ndarray, shape (4 * (4 * wave_len + 1), 3), float64
        One row per drawn point.

    Examples
    --------
    >>> wave_reference(16, 10_000.0, 10)[4].round(4)  # position 0.25, pair 0
    array([0.25  , 0.    , 0.2474])
    """
    omega = angular_frequencies(d_model, base)
    positions = np.arange(wave_len * _SAMPLES_PER_POSITION + 1) / _SAMPLES_PER_POSITION
    rows = [(position, pair, np.sin(omega[pair] * position)) for position in positions
            for pair in column_pairs(d_model)]
    return np.array(rows)
