"""One explorable figure as one notebook output: a Vega-Lite chart with its controls, and a still image.

A figure is a Vega-Lite 5 specification whose data the companion computed, plus a PNG of one
representative state (the *stand-in*) and a text that says what is drawn and what each control
changes. Displayed in a notebook, :class:`Explorable` gives one output, a MIME bundle that each
reader's tool reads in its own way:

- ``application/vnd.vegalite.v5+json``, the specification: JupyterLab (4.x) draws it with its
  built-in Vega renderer, controls included, offline and even when the notebook is opened later
  (the renderer is safe for untrusted outputs); so do VS Code and nteract. The book renders it with
  the same libraries, served from its own ``_static/vega`` (``book/_ext/explorables.py``).
- ``image/png``, the stand-in: what GitHub's notebook viewer, nbviewer, a reader without JavaScript
  and the PDF show.
- ``text/plain``, the description: what a text-only front end shows.
- ``text/html``, in Google Colab only: Colab draws each output in its own sandboxed frame and has no
  Vega renderer, so the output loads Vega itself, from jsDelivr (Colab has a network; the book and
  JupyterLab never need one), and shows the stand-in until the chart is drawn.

Vega-Lite draws each control as a native HTML input (``<input type="range">``, ``<select>``)
inside a ``<label>`` that names it in the reader's terms, so it is reachable and operable by
keyboard and has an accessible name; the chart's ``description`` becomes its accessible label.
"""

from __future__ import annotations

import base64
import html
import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["Explorable", "VEGALITE_MIME", "LIBRARIES", "choice", "slider"]

VEGALITE_MIME = "application/vnd.vegalite.v5+json"
#: The browser builds of Vega that draw the figures, as pinned in the book's package-lock.json
#: (a test keeps them equal). The book serves them from _static/vega; only Colab fetches them.
LIBRARIES = {"vega": "5.33.1", "vega-lite": "5.23.0", "vega-embed": "6.29.0"}
_COLAB_URL = "https://cdn.jsdelivr.net/npm/{package}@{version}/build/{package}.min.js"
#: The script that draws every figure of a page in place of its stand-in: served by the book,
#: inlined into the Colab output.
SCRIPT = Path(__file__).with_name("static") / "explorables.js"
SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
#: What book/_static/explorables.css does in the book, for an output that has no style sheet: the stand-in
#: gives way to the chart, and the figure sits on white (in Colab's dark theme too).
_COLAB_STYLE = (".pe-explorable { background: #fff; color: #222; color-scheme: light; padding: 0.5rem; } "
                ".pe-explorable-is-live > .pe-explorable-stand-in { display: none; } "
                ".pe-explorable .vega-bind-name { font-weight: 600; margin-right: 0.5rem; }")
#: Figures sit on a white card in both colour modes (book/_static/explorables.css); text is dark grey.
_CONFIG = {
    "background": "white",
    "font": "sans-serif",
    "view": {"stroke": None},
    "axis": {"labelColor": "#222", "titleColor": "#222", "labelFontSize": 11, "titleFontSize": 12},
    "legend": {"labelColor": "#222", "titleColor": "#222", "labelFontSize": 11, "titleFontSize": 12},
    "title": {"color": "#222", "subtitleColor": "#333", "fontSize": 13, "subtitleFontSize": 11},
    "header": {"labelColor": "#222", "titleColor": "#222"},
}


def slider(name: str, label: str, minimum: int, maximum: int, value: int, step: int = 1) -> dict:
    """A Vega-Lite parameter bound to a range input (a slider) labelled `label`.

    Parameters
    ----------
    name : str
        The parameter's name in the specification's expressions.
    label : str
        What the reader sees beside the slider, in the reader's terms ("position p").
    minimum, maximum, value, step : int
        Range, initial value and step of the slider.

    Returns
    -------
    dict
        A Vega-Lite parameter definition.

    Raises
    ------
    ValueError
        If `value` is not in ``[minimum, maximum]`` or `step` is not positive.

    Examples
    --------
    >>> slider("p", "position p", 0, 100, 10)["bind"]
    {'input': 'range', 'min': 0, 'max': 100, 'step': 1, 'name': 'position p'}
    """
    if not minimum <= value <= maximum or step <= 0:
        raise ValueError(f"value must be in [{minimum}, {maximum}] and step positive, got {value} and {step}")
    return {"name": name, "value": value,
            "bind": {"input": "range", "min": minimum, "max": maximum, "step": step, "name": label}}


def choice(name: str, label: str, options, value, labels=None) -> dict:
    """A Vega-Lite parameter bound to a drop-down list (``<select>``) labelled `label`.

    Parameters
    ----------
    name : str
        The parameter's name in the specification's expressions.
    label : str
        What the reader sees beside the list ("base").
    options : sequence of int or float
        The values offered, in order.
    value : int or float
        The initial value; one of `options`.
    labels : sequence of str, optional
        How each option reads (default: the option with thousands separators).

    Returns
    -------
    dict
        A Vega-Lite parameter definition.

    Raises
    ------
    ValueError
        If `value` is not one of `options`, or `labels` does not name each option.

    Examples
    --------
    >>> choice("base", "base", [100, 10_000], 10_000)["bind"]["labels"]
    ['100', '10,000']
    """
    options = [_number(option) for option in options]
    if _number(value) not in options:
        raise ValueError(f"value must be one of {options}, got {value!r}")
    labels = [f"{option:,}" for option in options] if labels is None else list(labels)
    if len(labels) != len(options):
        raise ValueError(f"labels must name each of the {len(options)} options, got {len(labels)}")
    return {"name": name, "value": _number(value),
            "bind": {"input": "select", "options": options, "labels": labels, "name": label}}


def _number(value):
    """An int when the value is whole (so that JSON and the page write 10000, not 10000.0)."""
    value = float(value)
    return int(value) if value.is_integer() else value


def rounded(values, decimals: int = 7) -> list:
    """Values as a JSON-ready list, rounded to `decimals` places (below float32's resolution in [-1, 1])."""
    return np.round(np.asarray(values, dtype=np.float64), decimals).tolist()


def png(figure, dpi: int = 100) -> bytes:
    """A matplotlib figure as PNG bytes, without the version stamp matplotlib writes by default."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def in_colab() -> bool:
    """Whether this runs in a Google Colab kernel."""
    return "google.colab" in sys.modules


@dataclass(frozen=True, eq=False)
class Explorable:
    """An explorable figure: its Vega-Lite specification, a still stand-in, a description and its data.

    Parameters
    ----------
    name : str
        Which figure this is ("clocks"); the book and the tests find it by this name.
    spec : dict
        A Vega-Lite 5 specification with its data inline (``datasets``) and its controls
        (``params`` bound to inputs). Its ``description`` is the chart's accessible label.
    stand_in : bytes
        PNG of a representative state: what shows where no JavaScript runs.
    description : str
        What is drawn and what each control changes (the figure's alt text).
    data : dict of str to ndarray
        The companion's arrays the figure draws, for the check cell after it.

    Raises
    ------
    ValueError
        If `spec` does not name the figure (``usermeta.explorable``) or lacks the `description`, or
        `stand_in` is not a PNG.

    Examples
    --------
    >>> from companion.book.explorables import clocks
    >>> figure = clocks(8, max_position=20)
    >>> sorted(figure._repr_mimebundle_())
    ['application/vnd.vegalite.v5+json', 'image/png', 'text/plain']
    """

    name: str
    spec: dict
    stand_in: bytes
    description: str
    data: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.spec.get("usermeta", {}).get("explorable") != self.name or self.spec.get("description") != self.description:
            raise ValueError(f"spec must carry the figure's name ({self.name!r}) in usermeta.explorable and its "
                             "description, the accessible label of the chart")
        if not self.stand_in.startswith(b"\x89PNG\r\n\x1a\n"):
            raise ValueError("stand_in must be a PNG image (the bytes of a .png file)")

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        bundle = {
            VEGALITE_MIME: self.spec,
            "image/png": base64.b64encode(self.stand_in).decode("ascii"),
            "text/plain": self.description,
        }
        if in_colab():
            bundle["text/html"] = self.html()
        return bundle

    def dataset(self, name: str) -> dict:
        """A dataset of the specification as the page draws it: one array per field, lists flattened.

        Each row of a dataset holds scalars and equally long lists (the compact form the page's
        ``flatten`` transform unrolls); here every list is unrolled the same way, the scalars repeated.

        Parameters
        ----------
        name : str
            One of the specification's ``datasets``.

        Returns
        -------
        dict of str to ndarray
            Field -> values, one per drawn item.

        Raises
        ------
        KeyError
            If the specification has no dataset `name`.

        Examples
        --------
        >>> from companion.book.explorables import clocks
        >>> rows = clocks(8, max_position=20).dataset("clocks")
        >>> rows["sine"].shape, rows["pair"][:3].tolist(), rows["position"][:3].tolist()
        ((84,), [0, 0, 0], [0, 1, 2])
        """
        if name not in self.spec.get("datasets", {}):
            raise KeyError(f"no dataset {name!r}; the specification has {sorted(self.spec.get('datasets', {}))}")
        columns = {}
        for row in self.spec["datasets"][name]:
            lists = {key: value for key, value in row.items() if isinstance(value, list)}
            length = len(next(iter(lists.values()))) if lists else 1
            for key, value in row.items():
                columns.setdefault(key, []).extend(value if isinstance(value, list) else [value] * length)
        return {key: np.asarray(values) for key, values in columns.items()}

    def html(self) -> str:
        """The figure as HTML that loads Vega by itself (Colab's sandboxed output frames).

        The stand-in shows until the chart is drawn, and stays if Vega cannot be loaded.
        """
        scripts = json.dumps([_COLAB_URL.format(package=package, version=version)
                              for package, version in LIBRARIES.items()])
        stand_in = base64.b64encode(self.stand_in).decode("ascii")
        return (
            f"<style>{_COLAB_STYLE}</style>"
            f'<div class="pe-explorable" data-explorable="{html.escape(self.name)}">'
            f'<img class="pe-explorable-stand-in" alt="{html.escape(self.description)}" '
            f'src="data:image/png;base64,{stand_in}">{spec_script(self.spec)}</div>\n'
            "<script>\n(async () => {\n"
            "  const load = source => new Promise((resolve, reject) => {\n"
            "    const script = document.createElement('script');\n"
            "    script.src = source; script.onload = resolve; script.onerror = reject;\n"
            "    document.head.appendChild(script);\n  });\n"
            "  // Vega's builds register as AMD modules where a loader is present: load them as globals.\n"
            "  const define = window.define; window.define = undefined;\n"
            f"  try {{ if (!window.vegaEmbed) for (const source of {scripts}) await load(source); }}\n"
            "  finally { window.define = define; }\n"
            f"{SCRIPT.read_text()}\n}})();\n</script>"
        )

    def __repr__(self) -> str:
        return f"Explorable({self.name!r}: {self.description})"


def spec_script(spec: dict) -> str:
    """The specification as a JSON script element, safe inside HTML (no ``</`` can close it)."""
    text = json.dumps(spec, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    return f'<script type="application/json" class="pe-explorable-spec">{text}</script>'


def specification(name: str, description: str, body: dict, *, params, datasets: dict) -> dict:
    """A complete Vega-Lite specification: schema, description, controls, inline data, the book's look."""
    return {"$schema": SCHEMA, "description": description, "usermeta": {"explorable": name},
            "params": list(params), "datasets": datasets, **body, "config": _CONFIG}
