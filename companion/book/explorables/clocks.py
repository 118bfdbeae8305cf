r"""The clocks: a position control turns the hand of every pair, each at its own speed.

Pair :math:`i` of the encoding is the point :math:`(\sin \omega_i p, \cos \omega_i p)` on the unit
circle, a clock hand at angle :math:`\omega_i p` (Vaswani et al., 2017, Sec. 3.5). Moving the
position turns every hand at once: the fast pairs spin, the slow ones barely move, and the vector
:math:`PE(p)` drawn beside them, the hands' coordinates, changes in its first columns and hardly in
its last.
"""

from __future__ import annotations

import numpy as np

from ..._checks import check_count, check_d_model
from ...encoding.frequencies import angular_frequencies
from ...encoding.table import sinusoidal_encoding
from .figure import Explorable, png, rounded, slider, specification

__all__ = ["clocks"]

_CLOCK_PX = 62
_VIRIDIS = "viridis"


def clocks(d_model: int = 16, *, base: float = 10_000.0, max_position: int = 100, position: int = 10) -> Explorable:
    r"""The clocks of every pair of a narrow encoding, turned by a position slider, with :math:`PE(p)` beside.

    Each pair is drawn as in :func:`~companion.book.plotting.plot_clock`: sine across, cosine up,
    so a hand at angle :math:`\omega_i p` turns clockwise; the points the hand has passed, positions
    0 to :math:`p`, are coloured by position. The slider sets :math:`p`.

    Parameters
    ----------
    d_model : int, default 16
        Encoding width; a positive even integer of at most 16 (eight clocks fit on a line).
    base : float, default 10000.0
        Finite and greater than 1.
    max_position : int, default 100
        The slider runs over positions ``0 .. max_position`` (1 to 1,000).
    position : int, default 10
        The position shown first, and drawn in the stand-in.

    Returns
    -------
    Explorable
        ``data["positions"]`` (shape (max_position + 1,)) and ``data["table"]``, the companion's
        encoding of those positions, shape (max_position + 1, d_model), float64: the values drawn
        (rounded to 7 decimals in the page).

    Raises
    ------
    TypeError, ValueError
        If `d_model` is not a positive even integer of at most 16, `max_position` is not in
        1 .. 1,000, `position` not in ``0 .. max_position``, or on a bad `base`.

    Examples
    --------
    >>> figure = clocks(8, max_position=20, position=3)
    >>> figure.data["table"].shape, figure.spec["params"][0]["bind"]["name"]
    ((21, 8), 'position p')
    """
    d_model = check_d_model(d_model)
    max_position, position = check_count(max_position, "max_position"), check_count(position, "position")
    if d_model > 16:
        raise ValueError(f"d_model must be at most 16 (one clock per pair, eight on a line), got {d_model}")
    if not 1 <= max_position <= 1000 or position > max_position:
        raise ValueError(f"max_position must be in 1..1000 and position in 0..max_position, got {max_position} "
                         f"and {position}")
    positions = np.arange(max_position + 1)
    table = sinusoidal_encoding(positions, d_model, base=base)
    omega = angular_frequencies(d_model, base)
    pairs = range(d_model // 2)
    dataset = [{"pair": pair, "position": positions.tolist(), "sine": rounded(table[:, 2 * pair]),
                "cosine": rounded(table[:, 2 * pair + 1])} for pair in pairs]
    slowest = np.degrees(omega[-1] * max_position)
    description = (
        f"The {d_model // 2} pairs of a {d_model}-wide encoding (base {base:,.0f}) drawn as clocks, sine across "
        f"and cosine up, each hand at angle ω_i p and the points it has passed coloured by position, and "
        f"the {d_model} values of PE(p) as bars below, sine columns dark and cosine columns light. The position p slider "
        f"(0 to {max_position}) turns every hand clockwise, pair i by ω_i radians per position: pair 0 makes a "
        f"full turn every {2 * np.pi:.1f} positions and spins, while pair {d_model // 2 - 1} turns by only "
        f"{slowest:.1f} degrees over the whole range, so the first bars swing between -1 and 1 and the last "
        f"ones barely move."
    )
    body = {"vconcat": [{"hconcat": [_clock(pair, omega[pair]) for pair in pairs], "spacing": 6},
                        _vector(d_model)], "spacing": 14}
    spec = specification("clocks", description, body,
                         params=[slider("p", "position p", 0, max_position, position)],
                         datasets={"clocks": dataset})
    return Explorable("clocks", spec, png(_stand_in(table, omega, position)), description,
                      {"positions": positions, "table": table})


def _flattened(pair=None):
    steps = [{"flatten": ["position", "sine", "cosine"]}]
    return ([{"filter": f"datum.pair == {pair}"}] if pair is not None else []) + steps


def _clock(pair: int, omega: float) -> dict:
    axis_x = {"title": "sin", "values": [-1, 0, 1], "grid": False}
    axis_y = {"title": "cos" if pair == 0 else None, "values": [-1, 0, 1], "grid": False, "labels": pair == 0}
    x = {"field": "sine", "type": "quantitative", "scale": {"domain": [-1.15, 1.15]}, "axis": axis_x}
    y = {"field": "cosine", "type": "quantitative", "scale": {"domain": [-1.15, 1.15]}, "axis": axis_y}
    circle = {"data": {"sequence": {"start": 0, "stop": 65, "as": "step"}},
              "transform": [{"calculate": "sin(2 * PI * datum.step / 64)", "as": "sine"},
                            {"calculate": "cos(2 * PI * datum.step / 64)", "as": "cosine"}],
              "mark": {"type": "line", "color": "#bbb", "strokeWidth": 1, "aria": False},
              "encoding": {"x": x, "y": y, "order": {"field": "step"}}}
    trail = {"data": {"name": "clocks"}, "transform": _flattened(pair) + [{"filter": "datum.position <= p"}],
             "mark": {"type": "circle", "size": 14, "opacity": 0.9, "aria": False},
             "encoding": {"x": x, "y": y, "color": {"field": "position", "type": "quantitative",
                                                    "scale": {"scheme": _VIRIDIS, "domain": [0, {"expr": "max(p, 1)"}]},
                                                    "legend": None}}}
    hand = {"name": f"hand_{pair}", "data": {"name": "clocks"},
            "transform": _flattened(pair) + [{"filter": "datum.position == p"}],
            "mark": {"type": "rule", "color": "black", "strokeWidth": 2.5, "strokeCap": "round"},
            "encoding": {"x": x, "y": y, "x2": {"datum": 0}, "y2": {"datum": 0},
                         "tooltip": [{"field": "position"}, {"field": "sine", "format": ".4f"},
                                     {"field": "cosine", "format": ".4f"}]}}
    wavelength = 2 * np.pi / omega
    return {"width": _CLOCK_PX, "height": _CLOCK_PX,
            "title": {"text": f"pair {pair}", "subtitle": f"λ = {wavelength:,.0f}"},
            "layer": [circle, trail, hand]}


def _vector(d_model: int) -> dict:
    return {
        # as wide as the row of clocks above, its legend on top: the figure fits the book's column
        "name": "vector", "width": 8 * (_CLOCK_PX + 6) - 6, "height": 140,
        "title": {"text": {"expr": "'PE(p) at position p = ' + p"}},
        "data": {"name": "clocks"},
        "transform": _flattened() + [{"filter": "datum.position == p"}, {"fold": ["sine", "cosine"], "as": ["kind", "value"]},
                                     {"calculate": "2 * datum.pair + (datum.kind == 'cosine' ? 1 : 0)", "as": "column"}],
        "mark": {"type": "bar"},
        "encoding": {
            "x": {"field": "column", "type": "ordinal", "title": f"column (0 to {d_model - 1})",
                  "scale": {"domain": list(range(d_model))}, "axis": {"labelAngle": 0}},
            "y": {"field": "value", "type": "quantitative", "scale": {"domain": [-1, 1]}, "title": "value"},
            "color": {"field": "kind", "type": "nominal", "title": "column",
                      "scale": {"domain": ["sine", "cosine"], "range": ["#1f4e79", "#7fb2e5"]},
                      "legend": {"orient": "top", "direction": "horizontal", "title": None,
                                 "labelExpr": "datum.label == 'sine' ? 'sine column (2i)' : 'cosine column (2i + 1)'"}},
            "tooltip": [{"field": "column"}, {"field": "value", "format": ".4f"}],
        },
    }


def _stand_in(table: np.ndarray, omega: np.ndarray, position: int):
    from matplotlib.figure import Figure

    from ..plotting import plot_clock

    pairs = table.shape[1] // 2
    figure = Figure(figsize=(min(1.35 * pairs, 8.0), 3.9), layout="constrained")
    top, bottom = figure.subfigures(2, 1, height_ratios=[1.1, 1])
    for pair, ax in enumerate(top.subplots(1, pairs)):
        plot_clock(table[: position + 1], pair, ax=ax, colorbar=False)
        ax.set_title(f"pair {pair}", fontsize=10)
        ax.set_xlabel("sin", fontsize=10)
        ax.set_ylabel("cos" if pair == 0 else "", fontsize=10)
        ax.set_xticks([-1, 0, 1])
        ax.set_yticks([-1, 0, 1], labels=None if pair == 0 else [])
        ax.tick_params(labelsize=10)
    ax = bottom.subplots()
    row = table[position]
    columns = np.arange(row.size)
    ax.bar(columns[0::2], row[0::2], color="#1f4e79", label="sine (2i)")
    ax.bar(columns[1::2], row[1::2], color="#7fb2e5", label="cosine (2i + 1)")
    ax.set_ylim(-1.05, 1.05)
    ax.set_xticks(columns)
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xlabel(f"column (0 to {row.size - 1})")
    ax.set_ylabel("value")
    ax.set_title(f"PE(p) at position p = {position}", fontsize=10)
    ax.legend(fontsize=10, loc="lower right")
    return figure
