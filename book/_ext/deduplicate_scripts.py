"""Sphinx extension: include each script only once per page.

sphinx-thebe 0.3.1 (loaded by Jupyter Book 1 whether or not thebe is used) registers its
inline configuration script from the `env-before-read-docs` event; with Sphinx 7.4 the page
then carries it twice, and the second `const THEBE_JS_URL` is a JavaScript error on every
page. (The two copies differ only in their empty filename, None in one and '' in the
other.) Script entries with the same filename, priority and attributes are dropped here,
keeping the first.
"""


def _deduplicate(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = (
            getattr(script, "filename", script) or "",
            getattr(script, "priority", None),
            repr(sorted(getattr(script, "attributes", {}).items())),
        )
        if key not in seen:
            seen.add(key)
            unique.append(script)
    # In place: later handlers (sphinx.ext.mathjax among them) append to this very list.
    scripts[:] = unique


def setup(app):
    # html-page-context stops at the first handler that returns a template: run early.
    app.connect("html-page-context", _deduplicate, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
