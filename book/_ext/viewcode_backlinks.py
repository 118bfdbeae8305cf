"""Sphinx extension: the "[docs]" links of sphinx.ext.viewcode's source pages lead to the object.

The API page documents some functions under the name the package exports (``companion.round_to_dtype``)
and others of the same module under their module's name (``companion.encoding.torch_table.torch_angular_frequencies``).
viewcode follows both to the module that defines them, but builds every "[docs]" link of that module's
source page from the first name it met, so the others point at anchors that do not exist
(``#companion.torch_angular_frequencies``): Sphinx issue 6651, open since 2019.

Before viewcode reads a page, each Python signature is given the module that defines the object and, as
a second anchor, the name in that module, so that every "[docs]" link of a source page names an anchor
the documentation page has. What the reader sees, and the anchors other pages link to, do not change.
"""

import re
from pathlib import Path

from sphinx import addnodes
from sphinx.ext.viewcode import _get_full_modname


def _anchor_signatures_by_defining_module(app, doctree):
    if not app.config.viewcode_follow_imported_members:
        return
    for signature in doctree.findall(addnodes.desc_signature):
        description = signature.parent
        if not isinstance(description, addnodes.desc) or description.get("domain") != "py":
            continue
        module, fullname = signature.get("module"), signature.get("fullname")
        if not module or not fullname:
            continue
        defining = _get_full_modname(module, fullname)
        if not defining or defining == module:
            continue
        anchor = f"{defining}.{fullname}"
        if anchor not in signature["ids"]:
            signature["ids"].append(anchor)
        signature["module"] = defining


def _nest_submodules_inside_their_item(app, exception):
    """viewcode's index of source pages puts a package's submodules in a list right inside the list
    (``</li><ul>…</ul>``), which HTML does not allow (axe-core's rule "list"); move each such list into
    the item before it, where it belongs."""
    index = Path(app.outdir) / "_modules" / "index.html"
    if exception is not None or app.builder.format != "html" or not index.is_file():
        return
    text = index.read_text(encoding="utf-8")
    fixed = re.sub(r"</li>\n(<ul>(?:(?!<ul>).)*?</ul>)", r"\n\1</li>", text, flags=re.S)
    if fixed != text:
        index.write_text(fixed, encoding="utf-8")


def setup(app):
    app.setup_extension("sphinx.ext.viewcode")
    # Before viewcode's own doctree-read handler (priority 500).
    app.connect("doctree-read", _anchor_signatures_by_defining_module, priority=400)
    app.connect("build-finished", _nest_submodules_inside_their_item)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
