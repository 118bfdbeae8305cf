"""book/_ext/reader_notebooks.py, the writer of the reader notebooks, on doctree nodes built here.

The whole conversion runs in the book build and is checked on the real chapters by
tests/site/test_reader_notebooks.py; these tests pin down what a chapter may not happen to contain:
text that CommonMark would read as markup, and constructs the writer does not know.
"""

import html
import re
import sys
from pathlib import Path

import pytest
from docutils import nodes
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

sys.path.insert(0, str(Path(__file__).parents[2] / "book" / "_ext"))
import reader_notebooks  # noqa: E402
from reader_notebooks import Unsupported, Writer  # noqa: E402

COLAB = MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, allow_labels=False, double_inline=True)


class OfflineWriter(Writer):
    """The writer, without a Sphinx application: what these nodes need of the page is set here."""

    def __init__(self):
        self.site = "https://owner.github.io/book/"
        self.page_url = self.site + "notebooks/05_linearity_proof.html"
        self.fignumbers = {"displaymath": {"equation-eq-shift": (5, 3)}}
        self.cited = {}


def shown(markdown: str) -> str:
    """The text a CommonMark reader shows for `markdown` (one paragraph), tags removed."""
    rendered = COLAB.render(markdown)
    assert rendered.startswith("<p>") and rendered.endswith("</p>\n"), rendered
    return html.unescape(re.sub(r"<[^>]+>", "", rendered[3:-5]))


# Printable text with the characters CommonMark and its extensions give a meaning to, over one or two lines.
TEXT = st.text(alphabet=st.sampled_from(list("ab1 2.)#>+=-*_`[]()<>!\\$&~|:{}\"'é")), min_size=1, max_size=40)


@given(st.lists(TEXT.map(str.strip).filter(bool), min_size=1, max_size=2))
def test_a_paragraph_of_any_text_reads_as_that_text(lines):
    paragraph = nodes.paragraph("", "", nodes.Text("\n".join(lines)))
    assert shown(OfflineWriter().paragraph(paragraph)) == "\n".join(lines)


def test_inline_markup_keeps_its_meaning():
    paragraph = nodes.paragraph("", "", nodes.Text("a "), nodes.emphasis("", "stressed "), nodes.Text("word, "),
                                nodes.strong("", "bold"), nodes.Text(", "), nodes.literal("", "x = `y`"),
                                nodes.Text(" and "), nodes.math("", "a_1 *\nb_2"))
    markdown = OfflineWriter().paragraph(paragraph)
    assert markdown == "a *stressed* word, **bold**, `` x = `y` `` and $a_1 * b_2$"
    assert COLAB.render(markdown) == (
        '<p>a <em>stressed</em> word, <strong>bold</strong>, <code>x = `y`</code> and '
        '<span class="math inline">a_1 * b_2</span></p>\n')


def test_references_become_links_into_the_published_book():
    writer = OfflineWriter()
    equation = nodes.reference("", "(5.3)", internal=True, refid="equation-eq-shift")
    chapter = nodes.reference("", "", nodes.inline("", "The loop version"), internal=True,
                              refuri="02_loop_version.html")
    paragraph = nodes.paragraph("", "", nodes.Text("By "), equation, nodes.Text(" and "), chapter)
    assert writer.paragraph(paragraph) == (
        "By [(5.3)](https://owner.github.io/book/notebooks/05_linearity_proof.html#equation-eq-shift) and "
        "[The loop version](https://owner.github.io/book/notebooks/02_loop_version.html)")


def test_a_numbered_equation_carries_its_number_and_stays_on_one_line_in_a_quoted_block():
    writer = OfflineWriter()
    equation = nodes.math_block("", "\nPE(p + k) = R(k)\\, PE(p),\n", number=3, label="eq-shift",
                                ids=["equation-eq-shift"])
    assert writer.display_math(equation, quoted=False) == "$$\nPE(p + k) = R(k)\\, PE(p), \\tag{5.3}\n$$"
    assert writer.display_math(equation, quoted=True) == "$$ PE(p + k) = R(k)\\, PE(p), \\tag{5.3} $$"
    commented = nodes.math_block("", "a = b % a comment\n+ c")
    with pytest.raises(Unsupported, match="TeX comment"):
        writer.display_math(commented, quoted=True)


@pytest.mark.parametrize("node", [nodes.footnote(), nodes.sidebar(), nodes.figure(), nodes.image(uri="x.png"),
                                  nodes.container(), nodes.definition_list(), nodes.line_block()],
                         ids=lambda node: type(node).__name__)
def test_a_block_the_writer_does_not_know_is_an_error_naming_it(node):
    with pytest.raises(Unsupported, match=re.escape(type(node).__name__)):
        OfflineWriter().block(node)


@pytest.mark.parametrize("node", [nodes.footnote_reference("", "1"), nodes.image(uri="x.png"), nodes.problematic(),
                                  nodes.citation_reference("", "key")], ids=lambda node: type(node).__name__)
def test_an_inline_node_the_writer_does_not_know_is_an_error_naming_it(node):
    with pytest.raises(Unsupported, match=re.escape(type(node).__name__)):
        OfflineWriter().inline(node)


def test_an_unresolved_cross_reference_is_an_error():
    from sphinx import addnodes

    with pytest.raises(Unsupported, match="pending_xref"):
        OfflineWriter().inline(addnodes.pending_xref("", nodes.Text("thm-shift"), reftype="ref"))


def test_code_cells_inside_another_construct_are_an_error():
    cell = nodes.container(nb_element="cell_code", cell_index=3)
    with pytest.raises(Unsupported, match="code cells inside"):
        OfflineWriter().block(nodes.note("", cell))
    assert reader_notebooks.holds_code_cells(nodes.note("", cell))
