"""Sphinx extension: predict-first questions answered in the page, offline and by keyboard, with a static stand-in.

A chapter asks a question with the ``question`` directive (MyST)::

    ```{question}
    :label: q-turns-in-200
    :kind: choice

    Before running the next cell: which of pairs 0, 8, 16 and 32 complete a turn in 200 positions?

    - [x] Pairs 0, 8 and 16 :: Their wavelengths, 6.3, 20 and 63 positions, fit in 200.
    - [ ] All four :: Pair 32's wavelength is 628 positions: a third of a turn in 200.
    - [?] :: Compute each wavelength, 2π · 10000^(2i/128), and compare it with 200.
    ```

``:kind: choice`` lists options, one ``[x]`` right, the others ``[ ]``, each with the feedback its
choice gets; ``:kind: number`` lists values instead (``[x] 3 :: …`` right, ``[ ] 4 :: …`` a known
wrong value), compared within ``:tolerance:``; ``[?] :: …`` is what any other answer gets.

The question becomes an admonition (so that every builder, and the Colab notebooks of
``reader_notebooks``, render it as one): the prompt, the options as a list, and a dropdown "Answer"
that holds the right answer and why the others are wrong. In the HTML page ``questions.js`` turns it
into a form (radio buttons or a text field, and a Check button) with feedback announced politely;
without JavaScript, and on paper, the static question stays, and the appendix page with the
``question-answers`` directive lists every question of the book with its answer.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

STATIC = Path(__file__).parent / "questions_static"
KINDS = ("choice", "number")
LINE = re.compile(r"^- \[(x| |\?)\]\s*(.*?)\s*::\s*(.+)$")


class question(nodes.admonition):
    """A question: an admonition whose HTML carries its answers for questions.js (``data-question``)."""


class question_answers(nodes.General, nodes.Element):
    """Placeholder of the appendix page, replaced by every question of the book with its answer."""


def _parse_lines(content: list[str]) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The prompt's lines and the answer lines (mark, option or value, feedback); an answer line may go on."""
    prompt, answers = [], []
    for line in content:
        match = LINE.match(line)
        if match:
            answers.append(list(match.groups()))
        elif answers and line.startswith("  ") and line.strip():
            answers[-1][2] += " " + line.strip()
        elif answers and line.strip():
            raise ValueError(f"a line after the answers that is not an answer: {line!r}")
        elif not answers:
            prompt.append(line)
    return prompt, [tuple(answer) for answer in answers]


class QuestionDirective(SphinxDirective):
    has_content = True
    option_spec = {"label": directives.unchanged_required, "kind": lambda value: directives.choice(value, KINDS),
                   "tolerance": directives.unchanged}

    def run(self):
        label, kind = self.options.get("label"), self.options.get("kind", "choice")
        if not label or not re.fullmatch(r"q-[a-z0-9-]+", label):
            raise self.error("a question needs :label: q-… (lowercase, digits and hyphens)")
        try:
            prompt, answers = _parse_lines(list(self.content))
            spec = _spec(kind, answers, self.options.get("tolerance", "0"))
        except ValueError as error:
            raise self.error(f"question {label}: {error}") from None
        node = question(classes=["pe-question"])
        node["names"].append(label)
        self.state.document.note_explicit_target(node, node)
        node["spec"] = spec
        node += nodes.title("", "Predict, then check")
        self.state.nested_parse(prompt, self.content_offset, node)
        if kind == "choice":
            options = nodes.enumerated_list(enumtype="loweralpha", classes=["pe-question-options"])
            for _, text, _ in (answer for answer in answers if answer[0] != "?"):
                item = nodes.list_item()
                item += self._inline_paragraph(text)
                options += item
            node += options
        node += self._answer(kind, answers)
        self.env.domaindata.setdefault("pe_questions", {}).setdefault(self.env.docname, []).append(label)
        return [node]

    def _inline_paragraph(self, text: str, prefix: str = "") -> nodes.paragraph:
        paragraph = nodes.paragraph()
        if prefix:
            paragraph += nodes.strong("", prefix)
            paragraph += nodes.Text(" ")
        inline, messages = self.state.inline_text(text, self.lineno)
        paragraph.extend(inline + messages)
        return paragraph

    def _answer(self, kind: str, answers) -> nodes.admonition:
        right = next(answer for answer in answers if answer[0] == "x")
        answer = nodes.admonition(classes=["dropdown", "pe-question-answer"])
        answer += nodes.title("", "Answer")
        answer += self._inline_paragraph(f"{right[1]}. {right[2]}", "Answer:")
        others = [item for item in answers if item[0] == " "]
        if others:
            listed = nodes.bullet_list()
            for _, text, feedback in others:
                item = nodes.list_item()
                item += self._inline_paragraph(feedback, f"{text}:")
                listed += item
            answer += listed
        return answer


def _spec(kind: str, answers, tolerance: str) -> dict:
    marks = [answer[0] for answer in answers]
    if marks.count("x") != 1:
        raise ValueError("exactly one answer line must be marked [x]")
    if marks.count("?") != (1 if kind == "number" else marks.count("?")) or marks.count("?") > 1:
        raise ValueError("a number question needs one line '- [?] :: …', what any other answer gets")
    if marks.count(" ") < 1:
        raise ValueError("a question needs the right answer and at least one known wrong one")
    otherwise = next((feedback for mark, _, feedback in answers if mark == "?"), "")
    listed = [(mark, text, feedback) for mark, text, feedback in answers if mark != "?"]
    if kind == "choice":
        return {"kind": kind, "right": marks.index("x"), "feedback": [feedback for _, _, feedback in listed],
                "otherwise": otherwise}
    try:
        values = [float(text) for _, text, _ in listed]
        tolerance = float(tolerance)
    except ValueError:
        raise ValueError("a number question's answers and :tolerance: must be numbers") from None
    return {"kind": kind, "answer": values[marks.index("x")], "tolerance": tolerance,
            "known": [{"value": value, "feedback": feedback} for value, (mark, _, feedback) in zip(values, listed)
                      if mark == " "],
            "right": next(feedback for mark, _, feedback in listed if mark == "x"), "otherwise": otherwise}


def visit_question_html(self, node):
    attributes = {"data-question": json.dumps(node["spec"], ensure_ascii=False)}
    self.body.append(self.starttag(node, "div", CLASS="admonition", **attributes))


def depart_question_html(self, node):
    self.body.append("</div>\n")


class QuestionAnswersDirective(SphinxDirective):
    def run(self):
        return [question_answers()]


def _list_answers(app, doctree, docname):
    """Replace the appendix's placeholder with each question of the book, its page, and its answer."""
    placeholders = list(doctree.findall(question_answers))
    if not placeholders:
        return
    questions = app.env.domaindata.get("pe_questions", {})
    listing = []
    for page in (page for page in _reading_order(app.env) if page in questions):
        by_label = {node["ids"][0]: node for node in app.env.get_doctree(page).findall(question)}
        section = nodes.section(ids=[f"answers-{page.replace('/', '-')}"])
        title = nodes.title()
        title += nodes.reference("", app.env.titles[page].astext(), internal=True,
                                 refuri=app.builder.get_relative_uri(docname, page))
        section += title
        for label in questions[page]:
            copy = by_label[label].deepcopy()
            copy["ids"], copy["names"], copy["classes"] = [f"answer-{label}"], [], ["pe-question-static"]
            for answer in copy.findall(nodes.admonition):
                if "pe-question-answer" in answer["classes"]:
                    answer["classes"] = ["pe-question-answer"]  # shown here, not folded
            for reference in list(copy.findall(addnodes.pending_xref)):
                reference.replace_self(nodes.Text(reference.astext()))
            back = nodes.paragraph()
            back += nodes.reference("", "The question in its chapter", internal=True,
                                    refuri=f"{app.builder.get_relative_uri(docname, page)}#{label}")
            section += [copy, back]
        listing.append(section)
    for placeholder in placeholders:
        placeholder.replace_self(listing or [nodes.paragraph("", "No questions yet.")])


def _reading_order(env) -> list[str]:
    """The documents in the order of the table of contents, from the root."""
    order: list[str] = []

    def walk(docname):
        if docname not in order:
            order.append(docname)
            for child in env.toctree_includes.get(docname, []):
                walk(child)

    walk(env.config.root_doc)
    return order


def _static_html(self, node):
    raise nodes.SkipNode


def _purge(app, env, docname):
    env.domaindata.get("pe_questions", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    mine = env.domaindata.setdefault("pe_questions", {})
    for docname in docnames:
        if docname in other.domaindata.get("pe_questions", {}):
            mine[docname] = other.domaindata["pe_questions"][docname]


def _add_assets(app, pagename, templatename, context, doctree):
    if doctree is None or app.builder.format != "html":
        return
    if next(doctree.findall(question), None) is None:
        return
    app.add_js_file("questions.js", priority=600, defer="defer")
    app.add_css_file("questions.css")


def _serve_static(app, config):
    if not (STATIC / "questions.js").is_file():
        raise ExtensionError(f"questions.js is missing from {STATIC}")
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def _visit_admonition(self, node):
    self.visit_admonition(node)


def _depart_admonition(self, node):
    self.depart_admonition(node)


def setup(app):
    app.add_node(question, html=(visit_question_html, depart_question_html),
                 latex=(_visit_admonition, _depart_admonition), text=(_visit_admonition, _depart_admonition))
    app.add_node(question_answers, html=(_static_html, None), latex=(_static_html, None), text=(_static_html, None))
    app.add_directive("question", QuestionDirective)
    app.add_directive("question-answers", QuestionAnswersDirective)
    app.connect("config-inited", _serve_static)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("doctree-resolved", _list_answers)
    app.connect("html-page-context", _add_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
