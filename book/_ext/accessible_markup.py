"""Sphinx extension: markup that passes axe-core's WCAG 2 checks (tests/site/test_accessibility.py).

Two HTML writers in the build emit markup that axe-core 4.14 reports as serious or critical; each is
replaced here by the same markup with the one attribute that fails changed:

- docutils 0.21 writes the bibliography as ``<div role="list">`` holding entries with
  ``role="doc-biblioentry"``, a role that WAI-ARIA 1.3 deprecated (DPUB-ARIA 1.1), so the list has
  no list items (``aria-required-children``, critical). The entries become ``role="listitem"``.
- myst-nb 1.4 labels the "Show code cell source" toggle of a hidden code cell
  ``aria-label="Toggle hidden content"``, a name that does not contain its visible text (WCAG 2.5.3,
  label in name; ``label-content-name-mismatch``, serious). The label is dropped, so the name is the
  visible text.
"""

from docutils import nodes
from html import escape
from sphinx.writers.html5 import HTML5Translator


def visit_citation(self, node):
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def depart_citation(self, node):
    HTML5Translator.depart_citation(self, node)


def visit_hidden_code_cell(self, node):
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def depart_hidden_code_cell(self, node):
    self.body.append("</details>\n")


def setup(app):
    app.setup_extension("myst_nb")  # its node must be registered before its visitor is replaced
    from myst_nb.sphinx_ import HideCodeCellNode

    app.add_node(nodes.citation, override=True, html=(visit_citation, depart_citation))
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_code_cell, depart_hidden_code_cell))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
