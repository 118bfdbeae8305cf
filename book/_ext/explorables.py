"""Sphinx extension: the explorable figures (companion.book.explorables) drawn in the page by Vega, offline.

A chapter's explorable figure is one notebook output holding a Vega-Lite specification
(``application/vnd.vegalite.v5+json``, marked by ``usermeta.explorable``) and a PNG stand-in. In the
HTML and single-page builds (the latter printed to the PDF by ``make pdf``) the page gets:

- the stand-in, with the cell's alt text (or the figure's own description), the specification as a
  JSON script element and the stand-in's printed caption (what the still picture shows,
  :func:`~companion.book.explorables.captions.stand_in_caption`), side by side in a
  ``<div class="pe-explorable">``; before printing, ``explorables.js`` puts that caption in place of
  the figure's caption text, which speaks of controls paper does not have;
- on the pages that have such a figure only: Vega, Vega-Lite and vega-embed from ``_static/vega``
  (copied from npm by ``make book``; no request leaves the site) and ``explorables.js``, which draws
  each chart and then hides its stand-in; ``explorables.css`` puts the figure on a light card in
  dark mode and shows the stand-in, not the chart, on paper.

Other builders keep the PNG. myst-nb 1.4 looks for MIME renderers only among the entry points of
installed packages (``myst_nb.mime_renderers``); the book's extensions are not installed, so this
one adds its renderer to the list myst-nb loads. myst-nb renders every MIME type of an output and
picks one per builder afterwards (its ``SelectMimeType`` post-transform): a post-transform that runs
just before that one moves a copy of the PNG's image node into the figure's container.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform

from html import escape

from companion.book.explorables.captions import stand_in_caption
from companion.book.explorables.figure import SCRIPT, VEGALITE_MIME, spec_script

#: The browser builds, in the order they must run, under a directory of html_static_path.
VEGA = ("vega/vega.min.js", "vega/vega-lite.min.js", "vega/vega-embed.min.js")
BUILDERS = ("html", "singlehtml", "dirhtml")
CLASS = "pe-explorable"


def _explorable_spec(content):
    if isinstance(content, dict) and isinstance(content.get("usermeta"), dict) and "explorable" in content["usermeta"]:
        return content
    return None


class ExplorableRenderer:
    """myst-nb MIME renderer: an explorable's specification becomes a figure container (stand-in added later)."""

    mime_priority_overrides = [(builder, VEGALITE_MIME, 1) for builder in BUILDERS]

    @staticmethod
    def handle_mime(renderer, data, inline):
        spec = _explorable_spec(data.content) if data.mime_type == VEGALITE_MIME and not inline else None
        if spec is None:
            return None
        container = nodes.container(classes=[CLASS])
        container += nodes.raw("", spec_script(spec), format="html")
        container += nodes.raw("", f'<p class="pe-explorable-print-caption" hidden>{escape(stand_in_caption(spec))}</p>',
                               format="html")
        return [container]


class AddStandIn(SphinxPostTransform):
    """Put a copy of each explorable output's PNG into its figure container, as the stand-in."""

    default_priority = 3  # myst-nb's SelectMimeType runs at 4

    def run(self, **kwargs):
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            by_type = {child.get("mime_type"): child for child in bundle.children if isinstance(child, nodes.container)}
            live, still = by_type.get(VEGALITE_MIME), by_type.get("image/png")
            figure = next((node for node in (live.findall(nodes.container) if live else [])
                           if CLASS in node["classes"]), None)
            image = next(still.findall(nodes.image), None) if still is not None else None
            if figure is None:
                continue
            if image is None:
                raise ExtensionError(f"{self.env.docname}: an explorable figure's output has no image/png stand-in")
            stand_in = image.deepcopy()
            stand_in["classes"] = [*stand_in.get("classes", []), "pe-explorable-stand-in"]
            if not stand_in.get("alt"):
                stand_in["alt"] = _description(figure)
            figure.insert(0, stand_in)


def _description(figure) -> str:
    import json

    raw = next(node for node in figure.findall(nodes.raw) if "pe-explorable-spec" in node.astext()).astext()
    return json.loads(raw[raw.index(">") + 1 : raw.rindex("</script>")].replace("<\\/", "</"))["description"]


def _add_assets(app, pagename, templatename, context, doctree):
    if doctree is None or app.builder.name not in BUILDERS:
        return
    if next(doctree.findall(lambda node: isinstance(node, nodes.container) and CLASS in node["classes"]), None) is None:
        return
    for script in (*VEGA, SCRIPT.name):
        app.add_js_file(script, priority=600, defer="defer")
    app.add_css_file("explorables.css")


def _serve_script(app, config):
    config.html_static_path = [*config.html_static_path, str(SCRIPT.parent)]


def _check_vega(app):
    if app.builder.name not in BUILDERS:
        return
    found = [Path(app.confdir, directory) for directory in app.config.html_static_path
             if all(Path(app.confdir, directory, script).is_file() for script in VEGA)]
    if not found:
        raise ExtensionError("Vega's browser builds are missing from the static files (_static/vega): run `make book`, "
                             "which copies them from npm (package-lock.json)")


def setup(app):
    app.setup_extension("myst_nb")
    from myst_nb.core import render

    loaded = render.load_mime_renders
    if not getattr(loaded, "adds_explorables", False):
        def load_mime_renders():
            return [*loaded(), ExplorableRenderer]

        load_mime_renders.adds_explorables = True
        render.load_mime_renders = load_mime_renders
    app.add_post_transform(AddStandIn)
    app.connect("config-inited", _serve_script)
    app.connect("builder-inited", _check_vega)
    app.connect("html-page-context", _add_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
