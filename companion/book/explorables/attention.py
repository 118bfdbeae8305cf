r"""Attention looks back: the head built from :math:`R(k)`, its attention map redrawn for the chosen :math:`k`.

With :math:`W_q = \beta\,R(-k)` and :math:`W_k = I`, the position-position logit of query :math:`p`
and key :math:`s` is :math:`\beta \sum_i \cos \omega_i (s - p + k)`, largest at :math:`s = p - k`
(:func:`~companion.transformer.attention.offset_head`): on the encodings alone, with a causal
mask, the head attends :math:`k` positions back at every position. Every map is computed by the
companion (:func:`~companion.transformer.attention.attention_weights`).
"""

from __future__ import annotations

import numpy as np

from ..._checks import check_count, check_d_model
from ...encoding.table import sinusoidal_encoding
from ...transformer.attention import attention_weights, offset_head, weight_on_offset
from .figure import Explorable, png, rounded, slider, specification

__all__ = ["look_back", "look_back_maps"]


def look_back_maps(offsets, d_model: int = 32, *, seq_len: int = 24, sharpness: float = 8.0,
                   base: float = 10_000.0) -> np.ndarray:
    r"""The causal attention maps of the head that looks :math:`k` back, on the encodings alone, for each offset.

    Parameters
    ----------
    offsets : sequence of int
        The offsets :math:`k` (how far back each head looks).
    d_model : int, default 32
        Encoding width; positive and even.
    seq_len : int, default 24
        Positions ``0 .. seq_len - 1``, queries and keys.
    sharpness : float, default 8.0
        :math:`\beta`, multiplying the logits.
    base : float, default 10000.0
        The encoding's base.

    Returns
    -------
    ndarray, shape (len(offsets), seq_len, seq_len), float64
        Row :math:`p` of map :math:`j`: how much query :math:`p` attends to each key, for offset
        ``offsets[j]``; zero above the diagonal (the causal mask).

    Raises
    ------
    TypeError, ValueError
        On the errors of :func:`~companion.transformer.attention.offset_head`.

    Examples
    --------
    >>> maps = look_back_maps([2], seq_len=8)
    >>> maps[0, 2:].argmax(axis=1).tolist()  # each query from position 2 on looks two back
    [0, 1, 2, 3, 4, 5]
    """
    pe = sinusoidal_encoding(np.arange(check_count(seq_len, "seq_len")), d_model, base=base)
    maps = []
    for offset in offsets:
        w_q, w_k = offset_head(offset, d_model, sharpness=sharpness, base=base)
        maps.append(attention_weights((pe @ w_q) @ (pe @ w_k).T, causal=True))  # row vectors, as the paper
    return np.stack(maps)


def look_back(*, d_model: int = 32, seq_len: int = 24, max_offset: int = 8, offset: int = 2,
              sharpness: float = 8.0, base: float = 10_000.0) -> Explorable:
    r"""The attention map of the hand-built head that looks :math:`k` back; a slider sets :math:`k`.

    Parameters
    ----------
    d_model : int, default 32
        Encoding width; positive and even.
    seq_len : int, default 24
        Query and key positions ``0 .. seq_len - 1`` (2 to 64).
    max_offset : int, default 8
        The slider runs over offsets ``0 .. max_offset`` (below `seq_len`).
    offset : int, default 2
        The offset shown first and drawn in the stand-in.
    sharpness : float, default 8.0
        :math:`\beta`, multiplying the logits, as in the chapter's head.
    base : float, default 10000.0
        The encoding's base.

    Returns
    -------
    Explorable
        ``data["maps"]``: ``look_back_maps`` for offsets ``0 .. max_offset``, shape
        (max_offset + 1, seq_len, seq_len); ``data["on_target"]``: for each offset, the smallest
        weight a query :math:`p \ge k` puts on key :math:`p - k`.

    Raises
    ------
    TypeError, ValueError
        If `seq_len` is not in 2 .. 64, `max_offset` not below it, `offset` not in
        ``0 .. max_offset``, or on the errors of ``look_back_maps``.

    Examples
    --------
    >>> figure = look_back(seq_len=12, max_offset=4)
    >>> figure.data["maps"].shape, bool(figure.data["on_target"].min() > 0.9)
    ((5, 12, 12), True)
    """
    d_model = check_d_model(d_model)
    seq_len, max_offset, offset = (check_count(value, name) for value, name in
                                   ((seq_len, "seq_len"), (max_offset, "max_offset"), (offset, "offset")))
    if not 2 <= seq_len <= 64 or max_offset >= seq_len or offset > max_offset:
        raise ValueError(f"seq_len must be in 2..64, max_offset below it and offset in 0..max_offset, got {seq_len}, "
                         f"{max_offset} and {offset}")
    offsets = np.arange(max_offset + 1)
    maps = look_back_maps(offsets, d_model, seq_len=seq_len, sharpness=sharpness, base=base)
    on_target = np.array([weight_on_offset(weights, int(k))[k:].min() for k, weights in zip(offsets, maps)])
    query, key = np.tril_indices(seq_len)  # the causal mask leaves the rest at 0
    dataset = [{"offset": int(k), "on_target": round(float(on_target[k]), 4), "query": query.tolist(),
                "key": key.tolist(), "weight": rounded(maps[k][query, key])} for k in offsets]
    description = (
        f"Attention map of the head built from the rotation R(k), on the encodings alone (d_model = {d_model}, "
        f"sharpness {sharpness:g}, causal mask): query positions 0 to {seq_len - 1} down, key positions across, "
        f"the weight coloured from dark purple (0) to yellow (1). The offset k slider (0 to {max_offset}) sets how "
        f"far back the head looks: the yellow diagonal moves k cells left of the main diagonal, and every query "
        f"from position k on puts at least {np.floor(on_target.min() * 100) / 100:.2f} of its weight on the key "
        f"k positions back; the first k queries, which have no key that far back, spread their weight over the "
        f"keys they see."
    )
    spec = specification("look_back", description, _body(seq_len, on_target),
                         params=[slider("k", "offset k (how far back the head looks)", 0, max_offset, offset)],
                         datasets={"maps": dataset})
    return Explorable("look_back", spec, png(_stand_in(maps[offset], offset)), description,
                      {"maps": maps, "on_target": on_target})


def _body(seq_len: int, on_target: np.ndarray) -> dict:
    least = np.floor(on_target.min() * 100) / 100  # rounded down: "at least"
    position = {"type": "ordinal", "scale": {"domain": list(range(seq_len))}, "axis": {"labelAngle": 0}}
    return {
        "name": "attention", "width": 360, "height": 360, "data": {"name": "maps"},
        "title": {"text": {"expr": "'Head built from R(' + k + '): it looks ' + k + ' positions back'"},
                  "subtitle": f"for every offset k, each query p ≥ k puts at least {least:.2f} of its weight on key p - k"},
        "transform": [{"filter": "datum.offset == k"}, {"flatten": ["query", "key", "weight"]}],
        "mark": {"type": "rect", "aria": False},
        "encoding": {
            "x": {**position, "field": "key", "title": "key position"},
            "y": {**position, "field": "query", "title": "query position"},
            "color": {"field": "weight", "type": "quantitative", "title": "attention weight",
                      "scale": {"scheme": "viridis", "domain": [0, 1]}},
            "tooltip": [{"field": "query"}, {"field": "key"}, {"field": "weight", "format": ".3f"}],
        },
    }


def _stand_in(weights: np.ndarray, offset: int):
    from matplotlib.figure import Figure

    from ..attention_plots import plot_attention_map

    figure = Figure(figsize=(5.2, 4.4), layout="constrained")
    plot_attention_map(weights, ax=figure.subplots(), title=f"Head built from R({offset}): it looks {offset} positions back")
    return figure
