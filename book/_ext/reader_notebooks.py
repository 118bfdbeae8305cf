"""Sphinx extension: every notebook of the book as a reader notebook for Colab, written by the HTML build.

Colab renders CommonMark with ``$…$`` math, not MyST. For each notebook of _toc.yml this extension
writes ``_build/colab/<name>.ipynb`` (``make colab`` copies them to ``colab/``) from the doctree the HTML
build has just resolved (Sphinx's ``doctree-resolved`` event), so numbers, citations and cross-references
are the book's own:

- headings carry the book's section numbers;
- admonitions are quoted blocks with their title; a dropdown admonition is a collapsed ``<details>``;
- theorems, corollaries, definitions… (sphinx-proof) are quoted blocks named and numbered as in the
  book, and so are proofs; an exercise (sphinx-exercise) is a heading with its number, so that it shows
  in Colab's table of contents;
- a solution stays out of sight until asked for: a ``<details>`` block when it is prose, or, when it
  holds code cells, a heading whose section starts collapsed (Colab's ``collapsed_sections``,
  JupyterLab's ``jp-MarkdownHeadingCollapsed``), which must then end at the next heading;
- a numbered equation carries ``\\tag{number}``; references to equations, theorems, sections, exercises
  and chapters are links to the published book's page and anchor (``book_links.pages_url``);
- citations read as in the book and link to its bibliography; the notebook ends with the references it
  cites;
- a figure's caption (myst-nb's cell metadata) follows its code cell;
- every code cell is the chapter's own, unchanged, with its stored outputs; those the book folds
  (``hide-input``, ``hide-cell``) and those it leaves out of its pages (``remove-cell``: check cells, the
  setup cell) start folded (Colab's ``cellView: form``, JupyterLab's
  ``source_hidden``).

A node this extension does not know fails the build with a warning that names it and its source,
rather than leaving raw markup in a reader's copy.
"""

from __future__ import annotations

import copy
import re
import sys
import time
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import nbformat
from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.locale import admonitionlabels
from sphinx.util import logging

# tools/book_links.py derives every address of the book from _config.yml.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from book_links import READER_NOTEBOOKS, colab_url, pages_url  # noqa: E402

logger = logging.getLogger(__name__)

OUTPUT = "colab"  # _build/colab
ADMONITIONS = (nodes.attention, nodes.caution, nodes.danger, nodes.error, nodes.hint, nodes.important,
               nodes.note, nodes.tip, nodes.warning, addnodes.seealso)
FOLDED_TAGS = {"hide-input", "hide-cell", "remove-cell"}
COLAB = "https://colab.research.google.com/"
# Characters CommonMark (or GitHub's and Colab's extensions of it: tables, strikethrough, math) would read as markup.
SPECIAL = re.compile(r"([\\`*_\[\]<>$&~|])")


class Unsupported(Exception):
    """A node the reader notebooks cannot render: the build fails and names it."""

    def __init__(self, node, why: str):
        super().__init__(why)
        self.node = node


def name_of(node) -> str:
    return type(node).__name__


def is_code_cell(node) -> bool:
    return isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"


def holds_code_cells(node) -> bool:
    return any(True for _ in node.findall(is_code_cell))


def is_untitled_section(node) -> bool:
    """sphinx-exercise and sphinx-proof wrap a directive's content in a section without a title."""
    return isinstance(node, nodes.section) and not (node.children and isinstance(node[0], nodes.title))


def is_proof_environment(node) -> bool:
    return type(node).__module__ == "sphinx_proof.nodes"


def escape(text: str) -> str:
    return SPECIAL.sub(r"\\\1", text)


def indent(text: str, first: str, rest: str) -> str:
    lines = text.split("\n")
    return "\n".join([first + lines[0]] + [rest + line if line else rest.rstrip() for line in lines[1:]])


def quote(text: str) -> str:
    return indent(text, "> ", "> ")


def code_fence(text: str, language: str) -> str:
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"


def code_span(text: str) -> str:
    text = text.replace("\n", " ")
    ticks = "`" * (1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{padding}{text}{padding}{ticks}"


def wrap(marker: str, text: str) -> str:
    """Emphasis around `text`, with any surrounding spaces kept outside the markers (CommonMark needs that)."""
    if not text.strip():
        return text
    core = text.strip()
    return f"{text[: len(text) - len(text.lstrip())]}{marker}{core}{marker}{text[len(text.rstrip()):]}"


def without_links(markdown: str) -> str:
    """Markdown for an HTML line (a ``<summary>``), where links are not read: their text alone."""
    return re.sub(r"\[((?:\\.|[^\]\\])*)\]\([^)]*\)", r"\1", markdown)


class Writer:
    """Markdown of doctree nodes that hold no code cell: blocks and lines of text."""

    def __init__(self, app, docname: str):
        self.app, self.env, self.docname = app, app.env, docname
        self.site = pages_url()
        self.page_url = urljoin(self.site, app.builder.get_target_uri(docname))
        self.fignumbers = self.env.toc_fignumbers.get(docname, {})
        self.cited: dict[str, str] = {}  # bibliography anchor -> its page, in order of first citation

    def number(self, kind: str, node) -> str:
        found = self.fignumbers.get(kind, {}).get(node["ids"][0]) if node.get("ids") else None
        if not found:
            raise Unsupported(node, f"a {kind} with no number in the book")
        return ".".join(map(str, found))

    # Blocks

    def blocks(self, children, quoted=False) -> str:
        return "\n\n".join(text for child in children if (text := self.block(child, quoted)).strip())

    def block(self, node, quoted=False) -> str:
        if isinstance(node, nodes.paragraph):
            return self.paragraph(node)
        if isinstance(node, (nodes.target, nodes.comment)):
            return ""
        if is_untitled_section(node) or isinstance(node, nodes.compound):
            return self.blocks(node.children, quoted)
        if isinstance(node, nodes.bullet_list):
            return "\n".join(indent(self.blocks(item, quoted), "- ", "  ") for item in node.children)
        if isinstance(node, nodes.enumerated_list):
            items = []
            for number, item in enumerate(node.children, node.get("start", 1)):
                marker = f"{number}. "
                items.append(indent(self.blocks(item, quoted), marker, " " * len(marker)))
            return "\n".join(items)
        if isinstance(node, nodes.block_quote):
            return quote(self.blocks(node.children, quoted=True))
        if isinstance(node, nodes.literal_block):
            language = node.get("language", "")
            return code_fence(node.astext(), "" if language == "default" else language)
        if isinstance(node, nodes.math_block):
            return self.display_math(node, quoted)
        if isinstance(node, nodes.admonition) or isinstance(node, ADMONITIONS):
            return self.admonition(node, quoted)
        if is_proof_environment(node):
            return self.proof_environment(node)
        if isinstance(node, nodes.table):
            return self.table(node)
        if isinstance(node, nodes.transition):
            return "---"
        if isinstance(node, nodes.rubric):
            return f"**{self.line(node)}**"
        if isinstance(node, nodes.raw) and node.get("format") == "html":
            return node.astext()
        if is_code_cell(node) or holds_code_cells(node):
            raise Unsupported(node, f"code cells inside a {name_of(node)}")
        raise Unsupported(node, f"a {name_of(node)} in the text")

    def paragraph(self, node) -> str:
        """The paragraph's text, each line read as text: leading spaces would start a code block, and a line
        starting with ">", "# ", "- ", "+ ", "1. ", "1) " or made of "-" or "=" a quote, heading, list or rule."""
        lines = []
        for line in (line.lstrip() for line in self.line(node).split("\n")):
            if re.match(r">|(#{1,6}|[-+])(\s|$)|(-+|=+)\s*$", line):
                line = "\\" + line
            elif number := re.match(r"\d{1,9}(?=[.)](\s|$))", line):
                line = number.group() + "\\" + line[number.end():]
            lines.append(line)
        return "\n".join(lines)

    def admonition(self, node, quoted=False) -> str:
        if node.children and isinstance(node[0], nodes.title):
            title, body = self.line(node[0]), node.children[1:]
        else:
            title, body = escape(str(admonitionlabels[node.tagname])), node.children
        if "dropdown" in node.get("classes", []):
            return f"<details>\n<summary>{without_links(title)}</summary>\n\n{self.blocks(body, quoted)}\n\n</details>"
        return quote(f"**{title}**\n\n{self.blocks(body, quoted=True)}")

    def proof_environment(self, node) -> str:
        """sphinx-proof's theorem, corollary, definition… quoted, named and numbered as in the book; a proof."""
        if name_of(node) == "proof_node":
            inner = node[0] if len(node.children) == 1 and isinstance(node[0], nodes.admonition) else node
            text = self.blocks(inner.children, quoted=True)
            return quote(re.sub(r"^Proof\\?\. ", "**Proof.** ", text) if text.startswith("Proof") else text)
        name = node.get("realtype", "").title()
        if not name:
            raise Unsupported(node, f"a {name_of(node)} with no type")
        if name_of(node) != "unenumerable_node":
            name += " " + self.number(node.get("countertype", ""), node)
        title = self.line(node[0]).strip() if node.children and isinstance(node[0], nodes.title) else ""
        body = node.children[1:] if title or (node.children and isinstance(node[0], nodes.title)) else node.children
        return quote(f"**{escape(name)}**{' ' + title if title else ''}\n\n{self.blocks(body, quoted=True)}")

    def table(self, node) -> str:
        groups = list(node.findall(nodes.tgroup))
        head = [row for part in node.findall(nodes.thead) for row in part.findall(nodes.row)]
        body = [row for part in node.findall(nodes.tbody) for row in part.findall(nodes.row)]
        if len(groups) != 1 or len(head) != 1:
            raise Unsupported(node, "a table that is not one header row over rows (GitHub's pipe table)")
        lines = []
        for row in head + body:
            cells = []
            for entry in row.children:
                if entry.get("morerows") or entry.get("morecols"):
                    raise Unsupported(node, "a table with merged cells")
                text = " ".join(self.line(paragraph) for paragraph in entry.children).replace("\n", " ")
                if any("|" in math.astext() for math in entry.findall(nodes.math)):
                    raise Unsupported(node, "a '|' in a formula inside a table")
                cells.append(text)
            lines.append("| " + " | ".join(cells) + " |")
            if len(lines) == 1:
                lines.append("|" + "|".join(" --- " for _ in cells) + "|")
        return "\n".join(lines)

    def display_math(self, node, quoted) -> str:
        """The formula as Sphinx's MathJax output writes it (sphinx.ext.mathjax), with the book's number as a tag."""
        if node.get("nowrap"):
            raise Unsupported(node, "an amsmath environment outside $$…$$ (Colab needs it inside $$ … $$)")
        parts = [part.strip() for part in node.astext().split("\n\n") if part.strip()]
        parts = [rf"\begin{{split}}{part}\end{{split}}" if r"\\" in part else part for part in parts]
        tex = parts[0] if len(parts) == 1 else r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}"
        if node.get("number") is not None:
            tex += rf" \tag{{{self.number('displaymath', node)}}}"
        if quoted:
            # Jupyter takes the formula out of the text before reading the Markdown, so in a quoted block
            # the "> " starting each line would land inside it: one line, then.
            if re.search(r"(?<!\\)%", tex):
                raise Unsupported(node, "a TeX comment in a formula inside a quoted block")
            return "$$ " + " ".join(line.strip() for line in tex.splitlines() if line.strip()) + " $$"
        return f"$$\n{tex}\n$$"

    # Lines of text

    def line(self, node) -> str:
        return "".join(self.inline(child) for child in node.children)

    def inline(self, node) -> str:
        if isinstance(node, nodes.Text):
            return escape(node.astext())
        if isinstance(node, nodes.math):
            return "$" + " ".join(node.astext().split()).strip() + "$"
        if isinstance(node, nodes.literal):
            if isinstance(node.parent, nodes.reference) or "xref" in node.get("classes", []):
                return self.line(node)  # a cross-reference's text, e.g. "Exercise 5.1"
            return code_span(node.astext())
        if isinstance(node, (nodes.emphasis, nodes.title_reference)):
            return wrap("*", self.line(node))
        if isinstance(node, nodes.strong):
            return wrap("**", self.line(node))
        if isinstance(node, nodes.reference):
            return self.reference(node)
        if isinstance(node, (nodes.inline, nodes.abbreviation, nodes.generated)):
            return self.line(node)
        if isinstance(node, nodes.subscript):
            return f"<sub>{self.line(node)}</sub>"
        if isinstance(node, nodes.superscript):
            return f"<sup>{self.line(node)}</sup>"
        if isinstance(node, nodes.target):
            return ""
        if isinstance(node, nodes.raw) and node.get("format") == "html":
            return node.astext()
        raise Unsupported(node, f"a {name_of(node)} in a line of text")

    def reference(self, node) -> str:
        text = self.line(node)
        if node.get("refuri"):
            url = node["refuri"] if urlsplit(node["refuri"]).scheme else urljoin(self.page_url, node["refuri"])
        elif node.get("refid"):
            url = f"{self.page_url}#{node['refid']}"
        else:
            raise Unsupported(node, "a reference with no target")
        if any("bibtex-citation" in ancestor.get("classes", []) for ancestor in self.ancestors(node)):
            page, _, anchor = url.partition("#")  # a citation: its entry is listed at the notebook's end
            self.cited.setdefault(anchor, page)
        if re.search(r"(?<!\\)\]\(", text):
            raise Unsupported(node, "a link inside the text of a link")
        destination = f"<{url}>" if re.search(r"[\s()<>]", url) else url
        return f"[{text}]({destination})"

    @staticmethod
    def ancestors(node):
        while node.parent is not None:
            node = node.parent
            yield node


class ReaderNotebook(Writer):
    """One notebook of the book: its resolved doctree written as CommonMark cells around the chapter's own code cells."""

    def __init__(self, app, docname: str, doctree: nodes.document):
        super().__init__(app, docname)
        self.source = nbformat.read(self.env.doc2path(docname), as_version=4)
        self.code_indices = [index for index, cell in enumerate(self.source.cells) if cell.cell_type == "code"]
        self.secnumbers = self.env.toc_secnumbers.get(docname, {})
        self.cells: list = []
        self.pending: list[str] = []  # markdown blocks of the cell being written
        self.pending_heading: int | None = None  # level of the heading that starts that cell
        self.level = 0
        self.next_code = 0  # position in code_indices of the next code cell to write
        self.collapsed: list[str] = []  # ids of the headings whose sections start collapsed
        self.open_solution: tuple[int, str] | None = None  # a collapsed solution's level, until a heading ends it
        self.problems: list[Unsupported] = []
        self.walk(doctree)
        self.flush()
        self.write_code_cells(len(self.source.cells))

    # Cells

    def emit(self, cell, heading: int | None = None):
        if self.open_solution is not None:
            level, label = self.open_solution
            if heading is None or heading > level:
                self.problems.append(Unsupported(None, (
                    f"the solution of {label} holds code cells, so Colab folds it as a section, and what follows "
                    "it is not a heading that would end that section: it would be folded away with the solution "
                    "(put the solution last in its section, or just before the next exercise)")))
            self.open_solution = None
        if cell.cell_type == "markdown":
            cell.id = cell.id if cell.metadata.get("id") else f"md-{len(self.cells) + 1}"
        self.cells.append(cell)

    def flush(self):
        text = "\n\n".join(block for block in self.pending if block.strip())
        heading, self.pending, self.pending_heading = self.pending_heading, [], None
        if text.strip():
            self.emit(nbformat.v4.new_markdown_cell(text), heading)

    def heading(self, level: int, title: str, collapsed_id: str | None = None):
        self.flush()
        self.pending, self.pending_heading = [f"{'#' * min(level, 6)} {title}"], min(level, 6)
        if collapsed_id:  # a heading alone in its cell, whose section (the cells after it) starts folded
            cell = nbformat.v4.new_markdown_cell(self.pending[0])
            cell.id = cell.metadata["id"] = collapsed_id  # metadata.id: the cell id Colab's collapsed_sections lists
            cell.metadata["jp-MarkdownHeadingCollapsed"] = True
            self.pending, self.pending_heading = [], None
            self.emit(cell, min(level, 6))
            self.collapsed.append(collapsed_id)

    def write_code_cells(self, before: int):
        """The chapter's code cells up to cell `before`, unchanged (also those myst-nb leaves out: empty, removed)."""
        while self.next_code < len(self.code_indices) and self.code_indices[self.next_code] < before:
            cell = copy.deepcopy(self.source.cells[self.code_indices[self.next_code]])
            if FOLDED_TAGS & set(cell.metadata.get("tags", [])):
                cell.metadata["cellView"] = "form"
                cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
            self.emit(cell)
            self.next_code += 1

    def code_cell(self, container):
        index = container["cell_index"]
        if self.next_code >= len(self.code_indices) or self.code_indices[self.next_code] > index:
            raise Unsupported(container, f"code cell {index} out of order")
        self.flush()
        self.write_code_cells(index + 1)
        for figure in container.findall(nodes.figure):
            for caption in (child for child in figure.children if isinstance(child, nodes.caption)):
                label = self.app.config.numfig_format["figure"] % self.number("figure", figure)
                self.pending.append(f"**{escape(label)}** {self.line(caption)}")
        self.flush()

    # Structure: sections, exercises and solutions, which may hold code cells

    def walk(self, parent):
        for child in parent.children:
            try:
                self.structure(child)
            except Unsupported as problem:
                self.problems.append(problem)

    def structure(self, node):
        if is_code_cell(node):
            self.code_cell(node)
        elif name_of(node) == "HideCodeCellNode" or is_untitled_section(node):
            self.walk(node)  # myst-nb's folded code cell; sphinx-exercise's content of a gated directive
        elif isinstance(node, nodes.section):
            self.section(node)
        elif isinstance(node, nodes.title):
            pass  # written by the section, exercise or solution it names
        elif name_of(node) in ("exercise_node", "exercise_enumerable_node"):
            self.exercise(node)
        elif name_of(node) == "solution_node":
            self.solution(node)
        elif name_of(node) in ("exercise_end_node", "solution_end_node"):
            pass  # a gated directive's end, merged into its start by sphinx-exercise
        else:
            self.pending.append(self.block(node))

    def section(self, section):
        self.level += 1
        number = self.secnumbers.get("#" + section["ids"][0]) or (self.secnumbers.get("") if self.level == 1 else None)
        prefix = ".".join(map(str, number)) + self.app.config.html_secnumber_suffix if number else ""
        self.heading(self.level, escape(prefix) + self.line(section[0]))
        self.walk(section)
        self.flush()
        self.level -= 1

    def exercise(self, node):
        title = node[0]
        if "%s" in title.get("title", ""):  # numbered: "Exercise %s" and the subtitle, as the HTML writes it
            name = escape(title["title"] % self.number("exercise", node)) + self.line(title)
        else:
            name = self.line(title)
        self.heading(self.level + 1, name)
        self.walk(node)
        self.flush()

    def solution(self, node):
        title = escape(node[0].astext().strip())  # "Solution to Exercise 5.2 (…)", without its link
        if not holds_code_cells(node):
            self.pending.append(f"<details>\n<summary>{title}</summary>\n\n{self.blocks(node.children[1:])}\n\n</details>")
            return
        label = node.get("target_label") or node["ids"][0]
        self.heading(self.level + 2, title, collapsed_id=re.sub(r"[^\w-]", "-", f"solution-{label}")[:64])
        self.walk(node)
        self.flush()
        self.open_solution = (min(self.level + 2, 6), label)

    def paragraph(self, node) -> str:
        links = [child for child in node.children if not (isinstance(child, nodes.Text) and not child.strip())]
        if len(links) == 1 and isinstance(links[0], nodes.reference) and links[0].get("refuri", "").startswith(COLAB):
            return self.title_note()  # the chapter's "Open this chapter in Colab"
        return super().paragraph(node)

    def title_note(self) -> str:
        title = escape(self.env.titles[self.docname].astext())
        return (f"*This is the Colab edition of [{title}]({self.page_url}), from the book "
                f"[{escape(self.app.config.html_title)}]({self.site}): its code cells are the chapter's own; "
                "solutions stay folded until you open them.*")


# ------------------------------------------------------------------------------------------------
# The build's events


def reader_notebook_name(env, docname) -> str | None:
    """The reader notebook's file name for `docname`, or None if its source is not a notebook."""
    source = Path(env.doc2path(docname))
    return source.name if source.suffix == ".ipynb" else None


class EntryWriter(Writer):
    def entry(self, citation) -> str:
        # sphinxcontrib-bibtex keeps each citation node in its domain and appends a label and the entry to it every
        # time a page is resolved (the HTML build resolved it already): the entry is what follows the last label.
        labels = [index for index, child in enumerate(citation.children) if isinstance(child, nodes.label)]
        entry = citation.children[labels[-1] + 1:] if labels else citation.children
        text = " ".join(self.blocks([child]) for child in entry)
        return " ".join(text.split())


def bibliography_entries(app) -> dict[str, dict[str, str]]:
    """page URL -> {anchor: the entry as Markdown}, read from the resolved pages that hold the citations."""
    entries = {}
    for docname in sorted(app.env.found_docs):
        # sphinxcontrib-bibtex's bibliography directive leaves a node that becomes the citations once resolved.
        if not any(name_of(node) == "bibliography" for node in app.env.get_doctree(docname).findall(nodes.Element)):
            continue
        writer = EntryWriter(app, docname)
        doctree = app.env.get_and_resolve_doctree(docname, app.builder)
        entries[writer.page_url] = {citation["ids"][0]: writer.entry(citation) for citation in doctree.findall(nodes.citation)}
    return entries


def builder_inited(app):
    app.reader_notebooks, app.reader_notebooks_failed, app.reader_notebooks_seconds = {}, [], 0.0


def collect(app, doctree, docname):
    if app.builder.name != "html" or reader_notebook_name(app.env, docname) is None:
        return
    began = time.perf_counter()
    notebook = ReaderNotebook(app, docname, doctree)
    app.reader_notebooks_seconds += time.perf_counter() - began
    for problem in notebook.problems:
        logger.warning(f"reader notebook: {problem}", location=problem.node if problem.node is not None else docname,
                       type="reader_notebooks", subtype="unsupported")
    if notebook.problems:
        app.reader_notebooks_failed.append(docname)
    else:
        app.reader_notebooks[docname] = notebook


def finish(notebook: ReaderNotebook, bibliography: dict) -> nbformat.NotebookNode:
    """The notebook with the references it cites at its end."""
    cells = list(notebook.cells)
    if notebook.cited:
        entries = []
        for anchor, page in notebook.cited.items():
            known = bibliography.get(page, {})
            if anchor not in known:
                raise ExtensionError(f"reader notebook of {notebook.docname}: {page}#{anchor} is not a bibliography entry")
            entries.append((list(known).index(anchor), f"- {known[anchor]}"))
        references = nbformat.v4.new_markdown_cell("## References\n\n" + "\n".join(entry for _, entry in sorted(entries)))
        references.id = f"md-{len(cells) + 1}"
        cells.append(references)
    notebook_node = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(notebook.source.metadata))
    notebook_node.metadata["colab"] = {"collapsed_sections": notebook.collapsed, "provenance": []}
    notebook_node.nbformat, notebook_node.nbformat_minor = notebook.source.nbformat, notebook.source.nbformat_minor
    nbformat.validate(notebook_node)
    return notebook_node


def write_notebooks(app, exception):
    if exception is not None or app.builder.name != "html":
        return
    if app.reader_notebooks_failed:
        raise ExtensionError("no reader notebook written for " + ", ".join(app.reader_notebooks_failed) +
                             ": see the warnings above")
    if not app.reader_notebooks:
        return
    began = time.perf_counter()
    bibliography = bibliography_entries(app)
    output = Path(app.outdir).parent / OUTPUT
    output.mkdir(parents=True, exist_ok=True)
    written = {}
    for docname, notebook in sorted(app.reader_notebooks.items()):
        name = reader_notebook_name(app.env, docname)
        if name in written:
            raise ExtensionError(f"{docname} and {written[name]} would both be {READER_NOTEBOOKS.name}/{name}")
        written[name] = docname
        nbformat.write(finish(notebook, bibliography), output / name)
    every_notebook = {docname for docname in app.env.found_docs if reader_notebook_name(app.env, docname)}
    if set(written.values()) == every_notebook:  # a full build: copies of notebooks gone from the book go too
        for stale in set(output.glob("*.ipynb")) - {output / name for name in written}:
            stale.unlink()
    seconds = app.reader_notebooks_seconds + time.perf_counter() - began
    logger.info(f"reader notebooks: {len(written)} written to {output} in {seconds:.1f} s")


# ------------------------------------------------------------------------------------------------
# The launch button's Colab entry


def point_colab_button_at_reader_notebook(app, pagename, templatename, context, doctree):
    """sphinx-book-theme builds its Colab link from the page's source (notebooks/…), and no option changes that
    folder; Colab must open the reader notebook (colab/…), at the address book_links.colab_url gives."""
    if app.builder.name not in ("html", "singlehtml") or doctree is None:
        return
    name = reader_notebook_name(app.env, pagename)
    colab = [button for group in context.get("header_buttons", []) if group.get("label") == "launch-buttons"
             for button in group.get("buttons", []) if button.get("text") == "Colab"]
    if name is None or (not colab and app.builder.name == "singlehtml"):
        return
    if len(colab) != 1:
        logger.warning(f"{pagename}: one Colab launch button expected, {len(colab)} found",
                       type="reader_notebooks", subtype="launch")
        return
    colab[0]["url"] = colab_url(name)


def setup(app):
    app.connect("builder-inited", builder_inited)
    # Before other handlers of the event change the doctree for the HTML page (sphinx-thebe appends its
    # configuration script to every page).
    app.connect("doctree-resolved", collect, priority=100)
    app.connect("build-finished", write_notebooks)
    # After sphinx-book-theme's add_launch_buttons (priority 501), before the page is rendered.
    app.connect("html-page-context", point_colab_button_at_reader_notebook, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": False}
