"""What each explorable figure's stand-in shows, said for paper, where nothing moves.

A chapter's caption speaks of the figure a reader moves (its slider, its choices). Printed, the
figure is its stand-in: one state, drawn still. :func:`stand_in_caption` reads that state from the
figure's specification (the initial values of its controls, its data) and describes the picture;
the book prints it in place of the caption's text (``explorables.js`` swaps them before printing,
and ``tools/print_book.py`` prints the PDF that way). It reads a specification a notebook stored, so
a chapter need not be executed again for its printed caption to change.
"""

from __future__ import annotations

__all__ = ["stand_in_caption"]


def _initial(spec: dict) -> dict:
    return {param["name"]: param["value"] for param in spec.get("params", [])}


def _clocks(spec: dict, state: dict) -> str:
    pairs = len(spec["datasets"]["clocks"])
    p = state["p"]
    return (f"The {pairs} pairs of PE({p}) (d_model = {2 * pairs}) drawn as clocks (sine across, cosine up): each hand at angle ω_i p, the positions 0 to {p} it has passed as dots coloured by "
            f"position; below, the {2 * pairs} values of PE({p}) as bars, sine columns dark and cosine columns "
            f"light. The fast pairs have turned several times, the slow ones hardly at all.")


def _table(spec: dict, state: dict) -> str:
    d_model, base = state["d_model"], state["base"]
    seq_len = spec["hconcat"][0]["encoding"]["y"]["scale"]["domain"][1]
    wave_len = spec["hconcat"][1]["layer"][0]["encoding"]["x"]["scale"]["domain"][1]
    return (f"The table for d_model = {d_model} and base {base:,}: left, positions 0 to {seq_len - 1} (down) "
            f"in every column (across), coloured from red (-1) through white to blue (+1); right, the sine columns "
            f"of pairs 0, {d_model // 16}, {d_model // 8} and {d_model // 4} against position, 0 to {wave_len}: "
            f"the slower the pair, the longer its wave.")


def _similarity(spec: dict, state: dict) -> str:
    d_model, base = state["d_model"], state["base"]
    crossings = {row["crossing"]: row["offset"] for row in spec["datasets"]["crossings"]
                 if row["d_model"] == d_model and row["base"] == base}
    falls = (f"; it first reaches 1/2 at k = {crossings['half']:,}" if "half" in crossings else "")
    falls += (f" and 0 at k = {crossings['zero']:,}" if "zero" in crossings else "")
    return (f"The cosine similarity of PE(p) and PE(p + k) against the offset k (logarithmic axis) for "
            f"d_model = {d_model} and base {base:,}: a line up to k = 100, then a band spanning its ripples, and "
            f"its trend -Ci(k/base) / ln(base) dashed{falls}.")


def _rotation(spec: dict, state: dict) -> str:
    rows = spec["datasets"]["rotation"]
    position = round(rows[0]["start_angle"] / rows[0]["omega"])
    k = state["k"]
    return (f"R({k}) applied to PE({position}), pair by pair, in the {len(rows)} clocks of d_model = {2 * len(rows)}: "
            f"each grey dot (pair i of PE({position})) is turned through the red arc by ω_i {k} radians "
            f"onto the black dot, which sits inside the green ring, pair i of PE({position + k}) taken from the "
            f"table; below, R({k}) PE({position}) as bars with PE({position + k}) as ticks on them.")


def _look_back(spec: dict, state: dict) -> str:
    k = state["k"]
    seq_len = len(spec["encoding"]["x"]["scale"]["domain"])
    least = min(row["on_target"] for row in spec["datasets"]["maps"])
    return (f"The attention map of the head built from R({k}), on the encodings alone with a causal mask: query "
            f"positions 0 to {seq_len - 1} down, keys across, the weight from dark purple (0) to yellow (1). The "
            f"yellow diagonal lies {k} cells left of the main one: every query from position {k} on puts at least "
            f"{int(least * 100) / 100:.2f} of its weight on the key {k} positions back.")


_CAPTIONS = {"clocks": _clocks, "table": _table, "similarity": _similarity, "rotation": _rotation,
             "look_back": _look_back}


def stand_in_caption(spec: dict) -> str:
    """The caption of an explorable figure's stand-in: what the still picture shows.

    Parameters
    ----------
    spec : dict
        The figure's Vega-Lite specification, as :class:`~companion.book.explorables.Explorable`
        made it (its name in ``usermeta.explorable``; the stand-in draws its controls' initial values).

    Returns
    -------
    str
        One paragraph, with the numbers of the state drawn.

    Raises
    ------
    ValueError
        If the specification names no explorable figure this module knows.

    Examples
    --------
    >>> from companion.book.explorables import rotation
    >>> stand_in_caption(rotation(4, position=3, offset=5).spec)[:54]
    'R(5) applied to PE(3), pair by pair, in the 2 clocks o'
    """
    name = spec.get("usermeta", {}).get("explorable")
    if name not in _CAPTIONS:
        raise ValueError(f"spec must name one of the explorable figures {sorted(_CAPTIONS)} in usermeta.explorable, "
                         f"got {name!r}")
    return _CAPTIONS[name](spec, _initial(spec))
