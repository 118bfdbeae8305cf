r"""The shift is a rotation: an offset control applies :math:`R(k)` to :math:`PE(p)`, pair by pair.

:math:`R(k)` is block-diagonal, one 2 x 2 rotation by :math:`\omega_i k` per pair, and
:math:`R(k)\,PE(p) = PE(p + k)` for every position :math:`p`
(:func:`~companion.analysis.linearity.rotation_matrix`; the chapter *Shifting a position is a
rotation* proves it). Each clock shows pair :math:`i` of :math:`PE(p)`, the arc it turns through,
where :math:`R(k)` takes it and, drawn separately from the companion's table, :math:`PE(p + k)`:
the two always coincide.
"""

from __future__ import annotations

import numpy as np

from ..._checks import check_count, check_d_model
from ...analysis.linearity import rotation_matrix
from ...encoding.frequencies import angular_frequencies
from ...encoding.table import sinusoidal_encoding
from .figure import Explorable, png, rounded, slider, specification

__all__ = ["rotation"]

_CLOCK_PX = 130
_ARC_STEPS = 48


def rotation(d_model: int = 8, *, base: float = 10_000.0, position: int = 3, max_offset: int = 40,
             offset: int = 5) -> Explorable:
    r"""Pair by pair, :math:`R(k)` turns :math:`PE(p)` onto :math:`PE(p + k)`; a slider sets the offset :math:`k`.

    Parameters
    ----------
    d_model : int, default 8
        Encoding width; a positive even integer of at most 12 (one clock per pair).
    base : float, default 10000.0
        Finite and greater than 1.
    position : int, default 3
        The position :math:`p` that is shifted (0 to 1,000).
    max_offset : int, default 40
        The slider runs over offsets ``0 .. max_offset`` (1 to 1,000).
    offset : int, default 5
        The offset shown first and drawn in the stand-in.

    Returns
    -------
    Explorable
        ``data["rotated"]``: :math:`R(k)\,PE(p)` for every offset, shape (max_offset + 1, d_model),
        computed with :func:`~companion.analysis.linearity.rotation_matrix`; ``data["shifted"]``:
        the companion's :math:`PE(p + k)`, same shape; ``data["start"]``: :math:`PE(p)`.

    Raises
    ------
    TypeError, ValueError
        If `d_model` is not a positive even integer of at most 12, `position` or `max_offset` is out
        of range, `offset` not in ``0 .. max_offset``, or on a bad `base`.

    Examples
    --------
    >>> figure = rotation(4, max_offset=10)
    >>> bool(np.allclose(figure.data["rotated"], figure.data["shifted"], atol=1e-12))
    True
    """
    d_model = check_d_model(d_model)
    position, max_offset = check_count(position, "position"), check_count(max_offset, "max_offset")
    offset = check_count(offset, "offset")
    if d_model > 12 or position > 1000 or not 1 <= max_offset <= 1000 or offset > max_offset:
        raise ValueError(f"d_model must be at most 12, position at most 1000, max_offset in 1..1000 and offset in "
                         f"0..max_offset, got {d_model}, {position}, {max_offset} and {offset}")
    offsets = np.arange(max_offset + 1)
    start = sinusoidal_encoding([position], d_model, base=base)[0]
    rotated = np.stack([rotation_matrix(k, d_model, base) @ start for k in offsets])
    shifted = sinusoidal_encoding(position + offsets, d_model, base=base)
    omega = angular_frequencies(d_model, base)
    pairs = range(d_model // 2)
    dataset = [{"pair": pair, "omega": float(omega[pair]), "start_angle": float(omega[pair] * position),
                "offset": offsets.tolist(), "rotated_sine": rounded(rotated[:, 2 * pair]),
                "rotated_cosine": rounded(rotated[:, 2 * pair + 1]), "shifted_sine": rounded(shifted[:, 2 * pair]),
                "shifted_cosine": rounded(shifted[:, 2 * pair + 1])} for pair in pairs]
    description = (
        f"Clocks of the {d_model // 2} pairs of a {d_model}-wide encoding (sine across, cosine up). In each, a "
        f"grey dot is pair i of PE({position}), a red arc shows the turn R(k) applies to it, by ω_i k "
        f"radians clockwise, and a black dot is where it lands; a larger green ring, drawn from the table "
        f"itself, is pair i of PE({position} + k), and the black dot always sits inside it. Below, the "
        f"{d_model} values of R(k) PE({position}) as bars with PE({position} + k) as ticks on them. The offset "
        f"k slider (0 to {max_offset}) sets the offset: pair 0 turns by k radians, most of a turn per step, while pair "
        f"{d_model // 2 - 1} turns by only {np.degrees(omega[-1] * max_offset):.1f} degrees at k = {max_offset}."
    )
    # The marks of the clocks named above them, as the stand-in's legend names them.
    key = {"text": f"grey dot: PE({position}); red arc: the turn R(k) applies; green ring: PE({position} + k); "
                   f"black dot: R(k) PE({position})", "fontSize": 11, "fontWeight": "normal", "anchor": "middle",
           "offset": 8}
    clocks = {"hconcat": [_clock(pair, float(omega[pair])) for pair in pairs], "spacing": 8, "title": key}
    body = {"vconcat": [clocks, _vector(d_model, position)], "spacing": 14}
    spec = specification("rotation", description, body,
                         params=[slider("k", "offset k", 0, max_offset, offset)], datasets={"rotation": dataset})
    return Explorable("rotation", spec, png(_stand_in(start, rotated[offset], shifted[offset], omega, position, offset)),
                      description, {"start": start, "rotated": rotated, "shifted": shifted, "offsets": offsets})


_COLUMNS = ["offset", "rotated_sine", "rotated_cosine", "shifted_sine", "shifted_cosine"]


def _at_offset(pair=None):
    chosen = [{"filter": f"datum.pair == {pair}"}] if pair is not None else []
    return chosen + [{"flatten": _COLUMNS}, {"filter": "datum.offset == k"}]


def _clock(pair: int, omega: float) -> dict:
    scale = {"domain": [-1.2, 1.2]}
    axis_x = {"title": "sin", "values": [-1, 0, 1], "grid": False}
    axis_y = {"title": "cos" if pair == 0 else None, "values": [-1, 0, 1], "grid": False, "labels": pair == 0}
    x = {"type": "quantitative", "scale": scale, "axis": axis_x}
    y = {"type": "quantitative", "scale": scale, "axis": axis_y}
    circle = {"data": {"sequence": {"start": 0, "stop": 65, "as": "step"}},
              "transform": [{"calculate": "sin(2 * PI * datum.step / 64)", "as": "sine"},
                            {"calculate": "cos(2 * PI * datum.step / 64)", "as": "cosine"}],
              "mark": {"type": "line", "color": "#bbb", "strokeWidth": 1, "aria": False},
              "encoding": {"x": {**x, "field": "sine"}, "y": {**y, "field": "cosine"}, "order": {"field": "step"}}}
    # The arc of the turn, drawn from the start angle through omega k (its last whole turns left out).
    arc = {"data": {"name": "rotation"},
           "transform": _at_offset(pair) + [
               {"calculate": f"sequence(0, {_ARC_STEPS + 1})", "as": "step"}, {"flatten": ["step"]},
               {"calculate": f"datum.start_angle + datum.step / {_ARC_STEPS} * ((datum.omega * k) % (2 * PI))",
                "as": "angle"},
               {"calculate": "0.82 * sin(datum.angle)", "as": "sine"},
               {"calculate": "0.82 * cos(datum.angle)", "as": "cosine"}],
           "mark": {"type": "line", "color": "#d62728", "strokeWidth": 2, "aria": False},
           "encoding": {"x": {**x, "field": "sine"}, "y": {**y, "field": "cosine"}, "order": {"field": "step"}}}
    start = {"data": {"name": "rotation"},
             "transform": [{"filter": f"datum.pair == {pair}"},
                           {"calculate": "sin(datum.start_angle)", "as": "sine"},
                           {"calculate": "cos(datum.start_angle)", "as": "cosine"}],
             "mark": {"type": "circle", "size": 60, "color": "#999"},
             "encoding": {"x": {**x, "field": "sine"}, "y": {**y, "field": "cosine"}}}
    shifted = {"name": f"shifted_{pair}", "data": {"name": "rotation"}, "transform": _at_offset(pair),
               "mark": {"type": "point", "size": 260, "strokeWidth": 2.5, "color": "#2ca02c", "opacity": 1},
               "encoding": {"x": {**x, "field": "shifted_sine"}, "y": {**y, "field": "shifted_cosine"},
                            "tooltip": [{"field": "shifted_sine", "title": "PE(p + k), sine", "format": ".4f"},
                                        {"field": "shifted_cosine", "title": "PE(p + k), cosine", "format": ".4f"}]}}
    rotated = {"name": f"rotated_{pair}", "data": {"name": "rotation"}, "transform": _at_offset(pair),
               "mark": {"type": "circle", "size": 45, "color": "black"},
               "encoding": {"x": {**x, "field": "rotated_sine"}, "y": {**y, "field": "rotated_cosine"},
                            "tooltip": [{"field": "rotated_sine", "title": "R(k) PE(p), sine", "format": ".4f"},
                                        {"field": "rotated_cosine", "title": "R(k) PE(p), cosine", "format": ".4f"}]}}
    title = {"text": {"expr": f"'pair {pair}: ' + format({omega!r} * k, '.3~f') + ' rad'"}, "fontSize": 12}
    return {"width": _CLOCK_PX, "height": _CLOCK_PX, "title": title, "layer": [circle, arc, start, shifted, rotated]}


def _vector(d_model: int, position: int) -> dict:
    fold_rotated = [{"fold": ["rotated_sine", "rotated_cosine"], "as": ["kind", "value"]},
                    {"calculate": "2 * datum.pair + (datum.kind == 'rotated_cosine' ? 1 : 0)", "as": "column"}]
    fold_shifted = [{"fold": ["shifted_sine", "shifted_cosine"], "as": ["kind", "value"]},
                    {"calculate": "2 * datum.pair + (datum.kind == 'shifted_cosine' ? 1 : 0)", "as": "column"}]
    x = {"field": "column", "type": "ordinal", "title": f"column (0 to {d_model - 1})",
         "scale": {"domain": list(range(d_model))}, "axis": {"labelAngle": 0}}
    y = {"field": "value", "type": "quantitative", "scale": {"domain": [-1, 1]}, "title": "value"}
    return {
        "width": (_CLOCK_PX + 12) * (d_model // 2), "height": 140, "data": {"name": "rotation"},
        "title": {"text": {"expr": f"'R(k) PE({position}) (bars) and PE({position} + k) (ticks), k = ' + k"}},
        "layer": [
            {"name": "rotated_vector", "transform": _at_offset() + fold_rotated, "mark": {"type": "bar", "color": "#555"},
             "encoding": {"x": x, "y": y, "tooltip": [{"field": "column"}, {"field": "value", "format": ".4f"}]}},
            {"name": "shifted_vector", "transform": _at_offset() + fold_shifted,
             "mark": {"type": "tick", "color": "#2ca02c", "thickness": 3},
             "encoding": {"x": x, "y": y}},
        ],
    }


def _stand_in(start, rotated, shifted, omega, position: int, offset: int):
    from matplotlib.figure import Figure

    pairs = start.size // 2
    figure = Figure(figsize=(min(1.9 * pairs + 0.5, 8.0), 4.8), layout="constrained")
    top, bottom = figure.subfigures(2, 1, height_ratios=[1.4, 1])
    circle = np.linspace(0, 2 * np.pi, 200)
    for pair, ax in enumerate(top.subplots(1, pairs)):
        turn = (omega[pair] * offset) % (2 * np.pi)
        arc = omega[pair] * position + np.linspace(0, turn, 60)
        ax.plot(np.sin(circle), np.cos(circle), color="0.75", lw=1)
        ax.plot(0.82 * np.sin(arc), 0.82 * np.cos(arc), color="#d62728", lw=2, label="the turn R(k) applies")
        ax.plot(start[2 * pair], start[2 * pair + 1], "o", color="#999", ms=7, label=f"PE({position})")
        ax.plot(shifted[2 * pair], shifted[2 * pair + 1], "o", mfc="none", mec="#2ca02c", mew=2.5, ms=15,
                label=f"PE({position} + {offset})")
        ax.plot(rotated[2 * pair], rotated[2 * pair + 1], "o", color="black", ms=6, label=f"R({offset}) PE({position})")
        ax.set_aspect("equal")
        ax.set_xlim(-1.2, 1.2)
        ax.set_ylim(-1.2, 1.2)
        ax.set_xticks([-1, 0, 1])
        ax.set_yticks([-1, 0, 1], labels=None if pair == 0 else [])
        ax.set_xlabel("sin", fontsize=10)
        ax.set_ylabel("cos" if pair == 0 else "", fontsize=10)
        ax.set_title(f"pair {pair}: turned by {omega[pair] * offset:.3g} rad", fontsize=10)
    top.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=4, fontsize=10)
    ax = bottom.subplots()
    columns = np.arange(start.size)
    ax.bar(columns, rotated, color="#555", label=f"R({offset}) PE({position})")
    ax.plot(columns, shifted, "_", color="#2ca02c", ms=24, mew=3, label=f"PE({position} + {offset})")
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xticks(columns)
    ax.set_xlabel(f"column (0 to {start.size - 1})")
    ax.set_ylabel("value")
    ax.legend(fontsize=10, loc="lower right")
    return figure
