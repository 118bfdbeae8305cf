"""Sphinx extension: the single-page HTML build (behind `make pdf`) renders every node the HTML build does.

Sphinx gives a builder the node handlers registered under its name and falls back to those of its
format ("html") only when none are. sphinx-exercise registers its nodes for "singlehtml" too, so
that builder stops falling back, and every node that other extensions register for "html" alone
(myst-nb's hidden code cell among them) becomes an unknown node there. Before the single-page
build starts, each "html" handler missing under "singlehtml" is copied there.
"""


def _inherit_html_handlers(app):
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node_name, visit_depart in handlers.get("html", {}).items():
        single.setdefault(node_name, visit_depart)


def setup(app):
    app.connect("builder-inited", _inherit_html_handlers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
