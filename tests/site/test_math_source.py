"""The check for TeX that lost a backslash to a string escape (issue 13: "\\text" read as TAB + "ext").

A notebook once held, in its JSON, a single backslash before "text{seq\\_len}"; read back, that is a
TAB and "ext{seq\\_len}", which MathJax typesets without an error as the letters e, x, t. These
tests show that the browser test (test_rendered_book.py) now catches it, on a real page of the book
damaged the same way, and that the check stays quiet on correct TeX.
"""

import json
import re

import pytest

from .conftest import VIEWPORT, book_pages
from .math_source import swallowed_escapes
from .tour import visit


def one_backslash_not_doubled(tex: str, command: str) -> str:
    """`tex` written into a notebook's JSON with the backslash of `command` not doubled, then read back."""
    escaped = json.dumps(command)[1:-1]  # "\\\\text{seq\\\\_len}" in the JSON text
    return json.loads(json.dumps(tex).replace(escaped, escaped[1:], 1))


@pytest.mark.parametrize("command, control", [("\\text{seq\\_len}", "\t"), ("\\beta", "\b"), ("\\frac{1}{2}", "\f"),
                                              ("\\rho", "\r"), ("\\tau", "\t"), ("\\boldsymbol{x}", "\b")])
def test_each_json_escape_that_swallows_a_command_is_reported(command, control):
    damaged = one_backslash_not_doubled(f"d_{{\\mathrm{{model}}}} + {command}", command)
    assert control in damaged and "\\" + command[1] not in damaged
    found = swallowed_escapes(damaged)
    assert len(found) == 1 and f"of {command.split('{')[0]}" in found[0], found


@pytest.mark.parametrize("damaged", ["\\mathbb{R}^{ ext{seq\\_len}}", "\\left( x ight)", "\\left( ec{v} \\right)",
                                     "\\dfrac{1}{2} + rac{1}{2}", "\\mathbf{x} + ar{x}"])
def test_a_remnant_whose_control_character_was_dropped_is_reported(damaged):
    assert len(swallowed_escapes(damaged)) == 1


@pytest.mark.parametrize("tex", [
    "PE_{(pos,\\,2i)} = \\sin\\!\\left(\\frac{pos}{10000^{2i/d_{\\text{model}}}}\\right)",
    "\\bar{x} + \\vec{v} + \\tilde{y} + \\boldsymbol{\\beta} + \\textbf{text} + \\mathrm{ext}",
    "\\begin{aligned}\n  a &= \\rho \\\\\n  b &= \\theta\n\\end{aligned}",  # newlines are white space in TeX
    "\\text{right} + \\operatorname{rac}(x)",
])
def test_correct_tex_is_not_reported(tex):
    assert swallowed_escapes(tex) == []


def test_the_browser_test_catches_the_original_bug_on_a_real_page(browser, base_url, site):
    """A page of the book with \\text{...}, served with that formula damaged as the notebook was."""
    page_path, command = next((path, found.group()) for path in book_pages()
                              if (found := re.search(r"\\text\{\w+\}", (site / path).read_text())))
    html = (site / page_path).read_text()
    damaged = html.replace(command, one_backslash_not_doubled(command, command), 1)
    context = browser.new_context(viewport=VIEWPORT)
    context.route(f"{base_url}/{page_path}", lambda route: route.fulfill(body=damaged, content_type="text/html"))
    record = visit(context, f"{base_url}/{page_path}")
    context.close()
    # What the browser test checked before: every formula typeset, no MathJax error. Both still pass.
    assert record["typeset"] == record["math"] and record["mathErrors"] == 0 and record["problems"] == []
    # What it checks now: the TeX source.
    damaged_formulas = [tex for tex in record["tex"] if swallowed_escapes(tex)]
    assert len(damaged_formulas) == 1 and "\t" + command[2:] in damaged_formulas[0]
