r"""Similarity against offset: base and d_model controls redraw :math:`PE(p) \cdot PE(p+k)` with its trend law.

The cosine similarity of the encodings of two positions :math:`k` apart is
:math:`\frac{2}{d_{model}} \sum_i \cos(\omega_i k)`, the same at every :math:`p`
(:func:`~companion.analysis.linearity.relative_dot_product`). It falls and ripples; its smooth
trend is :math:`-\mathrm{Ci}(k/\text{base}) / \ln \text{base}`, the same for every width
(:func:`~companion.analysis.distinguishability.similarity_trend`). Every curve is computed here
by the companion, as :func:`~companion.book.plotting.plot_similarity_by_offset` draws it: a line up
to `envelope_from`, beyond it the range of the curve in log-spaced bins (a hundred thousand
rippling offsets would merge into a band anyway).
"""

from __future__ import annotations

import numpy as np

from ..._checks import check_base, check_count, check_d_model
from ...analysis.distinguishability import similarity_trend
from ...analysis.linearity import relative_dot_product
from .figure import Explorable, choice, png, rounded, specification

__all__ = ["similarity_by_offset", "similarity_curves"]

_TREND_POINTS = 300


def similarity_curves(d_model: int, base: float, *, max_offset: int = 100_000, envelope_from: int = 100,
                      bins: int = 120) -> dict:
    r"""The similarity of positions :math:`k` apart as the figure draws it: line, band, trend.

    Parameters
    ----------
    d_model : int
        Encoding width; a positive even integer.
    base : float
        Finite and greater than 1.
    max_offset : int, default 100000
        Offsets ``1 .. max_offset``.
    envelope_from : int, default 100
        Offsets up to this one are a line; the rest a band (smallest to largest value per bin).
    bins : int, default 120
        Log-spaced bins of the band (fewer where offsets run out), as in
        :func:`~companion.book.plotting.plot_similarity_by_offset`.

    Returns
    -------
    dict of str to ndarray
        ``offsets`` and ``similarity`` (the line, shape (envelope_from,)); ``band_start``, ``low``
        and ``high`` (the band as steps: each bin's range holds from its start to the next, the last
        repeated at `max_offset`); ``trend_offsets`` and ``trend`` (300 log-spaced offsets);
        ``half`` and ``zero``: the first offsets at or below 1/2 and 0 (0 if not within
        `max_offset`), and ``similarity_at``, the similarity there. All float64 except the offsets.

    Raises
    ------
    TypeError, ValueError
        If `max_offset` is not above `envelope_from`, or on bad `d_model`, `base` or `bins`.

    Examples
    --------
    >>> curves = similarity_curves(128, 10_000.0, max_offset=1000)
    >>> curves["similarity"][0].round(3), int(curves["half"]), int(curves["zero"])
    (np.float64(0.97), 46, 0)
    """
    d_model, base = check_d_model(d_model), check_base(base)
    envelope_from, bins = check_count(envelope_from, "envelope_from"), check_count(bins, "bins")
    if check_count(max_offset, "max_offset") <= envelope_from or bins < 1:
        raise ValueError(f"max_offset must be above envelope_from ({envelope_from}) and bins positive, "
                         f"got {max_offset} and {bins}")
    offsets = np.arange(1, max_offset + 1)
    similarity = np.concatenate([relative_dot_product(chunk, d_model, base) for chunk in
                                 np.array_split(offsets, max(1, offsets.size // 2**14))]) / (d_model / 2)
    edges = np.unique(np.geomspace(envelope_from + 1, max_offset + 1, bins + 1).astype(int))
    low = np.minimum.reduceat(similarity, edges[:-1] - 1)
    high = np.maximum.reduceat(similarity, edges[:-1] - 1)
    grid = np.geomspace(1, max_offset, _TREND_POINTS)
    crossings = {name: int(np.argmax(similarity <= level)) + 1 if np.any(similarity <= level) else 0
                 for name, level in (("half", 0.5), ("zero", 0.0))}
    crossings["similarity_at"] = {name: similarity[offset - 1] if offset else np.nan
                                  for name, offset in crossings.items()}
    return {"offsets": offsets[:envelope_from], "similarity": similarity[:envelope_from],
            "band_start": np.append(edges[:-1], max_offset), "low": np.append(low, low[-1]),
            "high": np.append(high, high[-1]), "trend_offsets": grid, "trend": similarity_trend(grid, base),
            **crossings}


def similarity_by_offset(*, d_models=(16, 64, 128, 512), bases=(100, 1_000, 10_000, 100_000), d_model: int = 128,
                         base: float = 10_000, max_offset: int = 100_000) -> Explorable:
    r"""Similarity of :math:`PE(p)` and :math:`PE(p+k)` against :math:`k`, with the trend law, for a chosen width and base.

    Parameters
    ----------
    d_models : sequence of int, default (16, 64, 128, 512)
        Widths offered by the d_model control; positive and even.
    bases : sequence of float, default (100, 1000, 10000, 100000)
        Bases offered by the base control; finite and greater than 1.
    d_model, base : int and float, default 128 and 10000
        The state shown first and drawn in the stand-in; one of the options.
    max_offset : int, default 100000
        Offsets ``1 .. max_offset`` (more than 100, at most 1,000,000), on a logarithmic axis.

    Returns
    -------
    Explorable
        ``data[(d_model, base)]``: ``similarity_curves`` for every combination.

    Raises
    ------
    TypeError, ValueError
        On a bad width, base or `max_offset`, or a first state that is not among the options.

    Examples
    --------
    >>> figure = similarity_by_offset(d_models=(16, 128), bases=(10_000,), max_offset=1000)
    >>> sorted(figure.data), int(figure.data[(128, 10_000.0)]["half"])
    ([(16, 10000.0), (128, 10000.0)], 46)
    """
    d_models = [check_d_model(width) for width in d_models]
    bases = [check_base(value) for value in bases]
    if not 100 < check_count(max_offset, "max_offset") <= 10**6:
        raise ValueError(f"max_offset must be above 100 and at most 1,000,000, got {max_offset}")
    if check_d_model(d_model) not in d_models or check_base(base) not in bases:
        raise ValueError(f"the first state (d_model={d_model}, base={base}) must be among the options")
    data = {(width, value): similarity_curves(width, value, max_offset=max_offset)
            for width in d_models for value in bases}
    keys = lambda width, value: {"d_model": width, "base": value}  # noqa: E731
    datasets = {
        "similarity": [{**keys(*key), "offset": curves["offsets"].tolist(), "similarity": rounded(curves["similarity"])}
                       for key, curves in data.items()],
        "band": [{**keys(*key), "offset": curves["band_start"].tolist(), "low": rounded(curves["low"]),
                  "high": rounded(curves["high"])} for key, curves in data.items()],
        "trend": [{"base": value, "offset": rounded(data[(d_models[0], value)]["trend_offsets"], 4),
                   "trend": rounded(data[(d_models[0], value)]["trend"])} for value in bases],
        "crossings": [{**keys(*key), "offset": curves[name], "crossing": name,
                       "similarity": rounded(curves["similarity_at"][name])}
                      for key, curves in data.items() for name in ("half", "zero") if curves[name]],
    }
    description = (
        f"The cosine similarity of PE(p) and PE(p + k) against the offset k, 1 to {max_offset:,} on a logarithmic "
        f"axis: a line up to k = 100, then a shaded band spanning its ripples; a dashed black curve is its trend, "
        f"-Ci(k/base) / ln(base); dotted grey lines mark 1/2 and 0, and two markers the first offsets at or below "
        f"them. The base control ({', '.join(f'{value:,.0f}' for value in bases)}) moves the whole fall: a bigger "
        f"base keeps far positions alike longer (the trend reaches 1/2 near 0.56 times the square root of the base "
        f"and 0 near 0.62 times the base). The d_model control ({', '.join(map(str, d_models))}) leaves the trend "
        f"where it is and changes only the ripples around it, large for a narrow encoding, small for a wide one."
    )
    params = [choice("d_model", "d_model", d_models, d_model), choice("base", "base", bases, base)]
    # The y axis reaches down to the lowest value drawn at that width (every base alike), in steps of 0.2.
    lowest = {width: min(-0.4, np.floor(min(min(curves["low"].min(), curves["similarity"].min(), curves["trend"].min())
                                             for (each, _), curves in data.items() if each == width) / 0.2) * 0.2)
              for width in d_models}
    spec = specification("similarity", description, _body(max_offset, lowest), params=params, datasets=datasets)
    return Explorable("similarity", spec, png(_stand_in(d_model, base, max_offset)), description, data)


def _body(max_offset: int, lowest: dict) -> dict:
    x = {"field": "offset", "type": "quantitative", "title": "offset k (positions)",
         "scale": {"type": "log", "domain": [1, max_offset]}, "axis": {"tickCount": 6, "format": "~s", "grid": False}}
    bottom = f"{[round(float(value), 1) for value in lowest.values()]}[indexof({list(lowest)}, d_model)]"
    y = {"field": "similarity", "type": "quantitative", "title": "cosine similarity",
         "scale": {"domain": {"expr": f"[{bottom}, 1]"}}}
    chosen = {"filter": "datum.d_model == d_model && datum.base == base"}
    return {
        "width": 560, "height": 320,
        "title": {"text": {"expr": "'Similarity of PE(p) and PE(p + k), d_model = ' + d_model + ', base = ' "
                                   "+ format(base, ',')"},
                  "subtitle": ["solid: the similarity; shaded: its range beyond k = 100 (it ripples); "
                               "dashed: its trend, -Ci(k/base) / ln(base)",
                               "circle: first at or below 1/2; square: first at or below 0"]},
        "layer": [
            {"data": {"values": [{"level": 0}, {"level": 0.5}]},
             "mark": {"type": "rule", "color": "#888", "strokeDash": [2, 3], "aria": False},
             "encoding": {"y": {**y, "field": "level"}}},
            {"name": "band", "data": {"name": "band"}, "transform": [chosen, {"flatten": ["offset", "low", "high"]}],
             "mark": {"type": "area", "interpolate": "step-after", "color": "#4c78a8", "opacity": 0.35, "aria": False},
             "encoding": {"x": x, "y": {**y, "field": "low"}, "y2": {"field": "high"}}},
            {"name": "similarity", "data": {"name": "similarity"},
             "transform": [chosen, {"flatten": ["offset", "similarity"]}],
             "mark": {"type": "line", "color": "#1f4e79", "strokeWidth": 1.4},
             "encoding": {"x": x, "y": y}},
            {"name": "trend", "data": {"name": "trend"},
             "transform": [{"filter": "datum.base == base"}, {"flatten": ["offset", "trend"]}],
             "mark": {"type": "line", "color": "black", "strokeDash": [6, 4], "strokeWidth": 1.4},
             "encoding": {"x": x, "y": {**y, "field": "trend"}}},
            {"name": "crossings", "data": {"name": "crossings"}, "transform": [chosen],
             "mark": {"type": "point", "filled": True, "fill": "white", "stroke": "black", "size": 70,
                      "strokeWidth": 1.4},
             "encoding": {"x": x, "y": y,
                          "shape": {"field": "crossing", "type": "nominal", "legend": None,
                                    "scale": {"domain": ["half", "zero"], "range": ["circle", "square"]}},
                          "tooltip": [{"field": "crossing"}, {"field": "offset", "format": ","}]}},
        ],
    }


def _stand_in(d_model: int, base: float, max_offset: int):
    from matplotlib.figure import Figure

    from ..plotting import plot_similarity_by_offset

    figure = Figure(figsize=(8, 4.2), layout="constrained")
    plot_similarity_by_offset(max_offset, d_model, base, ax=figure.subplots(), bins=120)
    return figure
