"""The reader notebooks for Colab (colab/), read the way Colab reads them.

The book build writes them to _build/colab (book/_ext/reader_notebooks.py) and `make colab` copies them to
colab/, so these tests run after `make book`. Colab renders a markdown cell as CommonMark with `$…$` math
(typeset by MathJax) and GitHub's pipe tables: here markdown-it-py's CommonMark preset with its table rule
and its dollar-math plugin, with labels off, since Colab shows an equation label as text. The formulas
are typeset in Chromium by the MathJax the book ships, with undefined macros made errors.
"""

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from book_links import READER_NOTEBOOKS, pages_url, toc_notebooks
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from .conftest import MATHJAX_DONE, ROOT
from .test_internal_links import read

BUILT = ROOT / "_build" / "colab"
BOOK_NOTEBOOKS = toc_notebooks()
IDS = [path.stem for path in BOOK_NOTEBOOKS]


def colab_markdown(math_renderer=None) -> MarkdownIt:
    options = {"renderer": math_renderer} if math_renderer else {}
    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, allow_labels=False, double_inline=True,
                                                        **options)


MARKDOWN = colab_markdown()
ROLE = re.compile(r"\{[A-Za-z][\w:.+-]*\}$")  # "{cite:p}" right before a code span: a MyST role
LINE_MARKUP = {
    "directive option": re.compile(r"^:[\w-]+:(\s|$)"),
    "colon fence": re.compile(r"^:{3,}"),
    "label line": re.compile(r"^\([\w-]+\)=\s*$"),
    "equation label": re.compile(r"^\((?=[\w-]*[A-Za-z])[\w-]+\)\s*$"),
    "gated directive": re.compile(r"\b(solution|exercise)-(start|end)\b"),
    "substitution": re.compile(r"\{\{.*\}\}"),
}


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def markdown_cells(path: Path) -> list[str]:
    return ["".join(cell["source"]) for cell in cells(path) if cell["cell_type"] == "markdown"]


def myst_markup(markdown: str) -> list[str]:
    """The MyST markup that a CommonMark reader (Colab) shows as text in `markdown`."""
    found = []
    for token in MARKDOWN.parse(markdown):
        if token.type == "fence" and token.info.strip().startswith("{"):
            found.append(f"directive fence {token.info.strip()!r}")
        if token.type in ("code_block", "fence") and any(
                pattern.search(line) for line in token.content.splitlines() for pattern in LINE_MARKUP.values()):
            found.append(f"directive body shown as code {token.content[:60]!r}")
        if token.type != "inline":
            continue
        lines = [""]
        for position, child in enumerate(token.children):
            if child.type in ("softbreak", "hardbreak"):
                lines.append("")
            elif child.type == "text":
                lines[-1] += child.content
                following = token.children[position + 1] if position + 1 < len(token.children) else None
                if following is not None and following.type == "code_inline" and ROLE.search(child.content):
                    found.append(f"role {ROLE.search(child.content).group()}`{following.content}`")
            elif child.type == "code_inline":
                lines[-1] += f"`{child.content}`"
        for line in lines:
            found += [f"{kind}: {line.strip()[:70]!r}" for kind, pattern in LINE_MARKUP.items()
                      if pattern.search(line.strip())]
    return found


def links(markdown: str) -> list[str]:
    hrefs = []
    for token in MARKDOWN.parse(markdown):
        hrefs += [child.attrs["href"] for child in token.children or [] if child.type == "link_open"]
    return hrefs


def test_the_committed_reader_notebooks_are_those_the_book_build_writes(site):
    """`make colab` after a change to a chapter, and commit colab/: the copies Colab opens are the book's."""
    built = sorted(path.name for path in BUILT.glob("*.ipynb"))
    assert built == sorted(path.name for path in BOOK_NOTEBOOKS), "the book build wrote no reader notebook"
    assert sorted(path.name for path in READER_NOTEBOOKS.glob("*.ipynb")) == built
    stale = [name for name in built if (BUILT / name).read_bytes() != (READER_NOTEBOOKS / name).read_bytes()]
    assert stale == [], f"stale in {READER_NOTEBOOKS.name}/ (run `make colab` and commit it): {stale}"


FOLDED = {"hide-input", "hide-cell", "remove-cell"}


@pytest.mark.parametrize("notebook", BOOK_NOTEBOOKS, ids=IDS)
def test_code_cells_are_the_chapters_own_with_their_outputs(notebook):
    chapter = [cell for cell in cells(notebook) if cell["cell_type"] == "code"]
    reader = [cell for cell in cells(READER_NOTEBOOKS / notebook.name) if cell["cell_type"] == "code"]
    assert len(reader) == len(chapter)
    for theirs, ours in zip(chapter, reader):
        assert {key: value for key, value in ours.items() if key != "metadata"} == {
            key: value for key, value in theirs.items() if key != "metadata"}
        # Cells the book folds or leaves out of its pages (check cells, the setup cell) start folded: Colab's
        # cellView, JupyterLab's source_hidden; nothing else is added.
        expected = dict(theirs["metadata"])
        if FOLDED & set(theirs["metadata"].get("tags", [])):
            expected |= {"cellView": "form", "jupyter": {**theirs["metadata"].get("jupyter", {}), "source_hidden": True}}
        assert ours["metadata"] == expected


def test_the_markup_check_finds_the_myst_of_the_chapters():
    """The check below reads the MyST sources as Colab would, and finds what a reader of them sees."""
    found = [piece for path in BOOK_NOTEBOOKS for markdown in markdown_cells(path)
             for piece in myst_markup(markdown)]
    kinds = {piece.split(" ")[0].rstrip(":") for piece in found}
    assert {"directive", "role", "label", "equation"} <= kinds, kinds
    assert len(found) > 400  # 476 in the eight chapters of 2026-11-24


@pytest.mark.parametrize("notebook", BOOK_NOTEBOOKS, ids=IDS)
def test_no_myst_markup_is_left_in_view(notebook):
    found = [piece for markdown in markdown_cells(READER_NOTEBOOKS / notebook.name) for piece in myst_markup(markdown)]
    assert found == []


@pytest.mark.parametrize("notebook", BOOK_NOTEBOOKS, ids=IDS)
def test_every_solution_stays_out_of_sight_until_asked_for(notebook):
    source = "\n".join(markdown_cells(notebook))
    solutions = len(re.findall(r"^`{3,}\{solution(?:-start)?\}", source, re.MULTILINE))
    reader = json.loads((READER_NOTEBOOKS / notebook.name).read_text())
    reader_markdown = markdown_cells(READER_NOTEBOOKS / notebook.name)
    folded_prose = sum(len(re.findall(r"^<details>\n<summary>Solution to ", markdown, re.MULTILINE))
                       for markdown in reader_markdown)
    collapsed = reader["metadata"]["colab"]["collapsed_sections"]
    headings = {cell["metadata"].get("id"): position for position, cell in enumerate(reader["cells"])
                if cell["cell_type"] == "markdown" and cell["metadata"].get("jp-MarkdownHeadingCollapsed")}
    assert set(headings) == set(collapsed) and folded_prose + len(collapsed) == solutions
    # A page whose headings have no numbers keeps its exercises among its sections: there a folded solution
    # may end at any heading, provided nothing but a heading, label or exercise follows each solution.
    any_heading_ends_a_solution = (not any(re.match(r"#+ \d", text) for text in reader_markdown)
                                   and solutions_end_at_a_boundary(notebook))
    for position in headings.values():
        cell = reader["cells"][position]
        level = len(re.match(r"(#+) Solution to ", "".join(cell["source"])).group(1))
        # The folded section runs to the next heading of its level or above: only the solution is in it.
        following = [("".join(other["source"]) if other["cell_type"] == "markdown" else "")
                     for other in reader["cells"][position + 1:]]
        end = next((index for index, text in enumerate(following)
                    if (match := re.match(r"(#+) ", text)) and len(match.group(1)) <= level), len(following))
        assert end > 0 and not any(re.match(r"#+ ", text) for text in following[:end])
        assert end == len(following) or re.match(r"#+ (Exercise|References|\d)", following[end]) or (
            any_heading_ends_a_solution)


def solutions_end_at_a_boundary(notebook: Path) -> bool:
    """In the book's notebook, what follows each gated solution's end is a heading, a label, an exercise or
    the end: so a folded solution that runs to the next heading holds nothing else (a page whose headings
    have no numbers, with its exercises among its sections, is checked this way)."""
    text = "\n\n".join(markdown_cells(notebook))
    after = [text[match.end():].lstrip() for match in re.finditer(r"^`{3,}\{solution-end\}\n`{3,}", text, re.MULTILINE)]
    return all(rest == "" or re.match(r"#|\(|`{3,}\{(exercise|solution)", rest) for rest in after)


def ids_of(page: Path) -> set[str]:
    return read(page).ids


@pytest.mark.parametrize("notebook", BOOK_NOTEBOOKS, ids=IDS)
def test_every_link_into_the_book_leads_to_a_page_and_anchor_that_exist(site, notebook):
    book = pages_url()
    checked, missing = 0, []
    pages = {}
    for href in (href for markdown in markdown_cells(READER_NOTEBOOKS / notebook.name) for href in links(markdown)):
        if not href.startswith(book):
            assert urlsplit(href).scheme in ("https", "http") and not href.startswith("#"), href
            continue
        path, _, anchor = href.removeprefix(book).partition("#")
        page = site / (path or "index.html")
        if page not in pages:
            pages[page] = ids_of(page) if page.is_file() else None
        if pages[page] is None or (anchor and anchor not in pages[page]):
            missing.append(href)
        checked += 1
    assert missing == [] and checked > 0


@pytest.mark.parametrize("notebook", BOOK_NOTEBOOKS, ids=IDS)
def test_numbers_and_citations_are_the_books(site, notebook):
    """Equation tags, theorem, figure and exercise numbers are the ones the book's page shows; every
    citation is listed, once, in the references that end the notebook."""
    page = (site / notebook.relative_to(ROOT).with_suffix(".html")).read_text()
    text = re.sub(r"<[^>]+>", "", page).replace("\xa0", " ")
    reader = markdown_cells(READER_NOTEBOOKS / notebook.name)
    every = "\n".join(reader)
    tags = re.findall(r"\\tag\{([\d.]+)\}", every)
    assert len(tags) == len(re.findall(r'<span class="eqno">', page))
    assert all(f"({tag})" in text for tag in tags)
    named = re.findall(r"\*\*((?:Theorem|Corollary|Proposition|Definition|Lemma|Fig\.) [\d.]+)\*\*", every)
    named += re.findall(r"^#+ (Exercise [\d.]+)", every, re.MULTILINE)
    assert all(name in text for name in named) and len(named) == len(set(named))
    cited = {href.partition("#")[2] for markdown in reader for href in links(markdown) if "/bibliography.html#" in href}
    if cited:
        assert reader[-1].startswith("## References\n\n")
        entries = re.findall(r"^- (.*)$", reader[-1], re.MULTILINE)
        assert len(entries) == len(set(entries)) == len(cited)
        assert [entry for entry in entries if re.fullmatch(r"(.+) \1", entry)] == [], "an entry written twice"


def math_to_mathjax(content, options):
    escaped = content.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"\\[{escaped}\\]" if options.get("display_mode") else f"\\({escaped}\\)"


def mathjax_config() -> str:
    """The book's MathJax configuration (_config.yml: its font served with the book, line breaking), with
    undefined macros made errors."""
    book = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]["mathjax3_config"]
    return json.dumps({**book, "tex": {"packages": {"[-]": ["noundefined"]}}})


MATHJAX_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<script>window.MathJax = """ + mathjax_config().replace("%", "%%") + """;</script>
<script defer src="/_static/mathjax/tex-mml-chtml.js"></script></head><body>%s</body></html>"""


def serve(body: str):
    return lambda route: route.fulfill(body=body, content_type="text/html")


def test_every_formula_typesets_with_mathjax(browser, base_url):
    renderer = colab_markdown(math_to_mathjax)
    page = browser.new_page()
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    for notebook in BOOK_NOTEBOOKS:
        markdown = markdown_cells(READER_NOTEBOOKS / notebook.name)
        formulas = sum(1 for text in markdown for token in MARKDOWN.parse(text)
                       for child in [token, *(token.children or [])] if child.type.startswith("math"))
        html = "\n".join(f"<section>{renderer.render(text)}</section>" for text in markdown)
        url = f"{base_url}/__reader__/{notebook.stem}.html"
        page.route(url, serve(MATHJAX_PAGE % html))
        page.goto(url, wait_until="networkidle")
        page.evaluate(MATHJAX_DONE)
        typeset = page.evaluate("""() => ({
            containers: document.querySelectorAll('mjx-container').length,
            errors: [...document.querySelectorAll('mjx-merror')].map(node => node.getAttribute('data-mjx-error')
                                                                     || node.textContent),
        })""")
        assert formulas > 0 and typeset == {"containers": formulas, "errors": []}, notebook.name
    page.close()
    assert problems == []
