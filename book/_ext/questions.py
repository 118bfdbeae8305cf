"""Sphinx extension: predict-first questions answered in the page, offline and by keyboard, with a static stand-in.

A chapter writes a question as plain MyST that every reader path renders (JupyterLab with
jupyterlab-myst, Colab through ``reader_notebooks``, the PDF): an admonition of class ``pe-question``
with a ``:name:``, the prompt, the options as a numbered list (none for a number question), and a
folded admonition "Answer" that gives the right answer first and then what each wrong answer gets::

    ````{admonition} Predict, then check
    :class: pe-question
    :name: q-turns-in-200

    Before running the next cell, predict: which of pairs 0, 8, 16 and 32 complete a turn in 200 positions?

    1. Pair 0 only
    2. Pairs 0, 8 and 16

    ```{admonition} Answer
    :class: dropdown

    **Answer: 2. Pairs 0, 8 and 16.** Their wavelengths, 6.3, 20 and 63 positions, fit in 200.

    - **1. Pair 0 only:** Pair 8's wavelength is about 20 positions: ten turns in 200.
    ```
    ````

A number question has no list; its answer reads ``**Answer: 0.05** (within 0.02). …``, its bullets
``**3906:** …`` for known wrong values and ``**Any other number:** …`` for the rest.

When a page is read, each such admonition becomes a :class:`question` node (still an admonition) that
carries its answers; in the HTML page ``questions.js`` turns it into a form (radio buttons or a text
field, and a Check button) whose verdict is announced politely. Without JavaScript, and on paper, the
static question stays, and the appendix page with the ``question-answers`` directive lists every
question of the book with its answer.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "questions_static"
CLASS = "pe-question"
RIGHT = re.compile(r"^Answer:\s*(.+?)\.?$")
TOLERANCE = re.compile(r"^\(within ([0-9.eE+-]+)\)\.?\s*")
OTHERWISE = "Any other number"


class question(nodes.admonition):
    """A question: an admonition whose HTML carries its answers for questions.js (``data-question``)."""


class question_answers(nodes.General, nodes.Element):
    """Placeholder of the appendix page, replaced by every question of the book with its answer."""


def _text(node) -> str:
    return re.sub(r"\s+", " ", node.astext()).strip()


def _lead(paragraph: nodes.paragraph) -> tuple[str, str]:
    """A paragraph's bold lead and the rest: ("Answer: 2. Pairs 0, 8 and 16.", "Their wavelengths …")."""
    children = [child for child in paragraph.children if not (isinstance(child, nodes.Text) and not child.strip())]
    if not children or not isinstance(children[0], nodes.strong):
        raise ValueError(f"a paragraph of the answer must start in bold: {_text(paragraph)[:60]!r}")
    lead = _text(children[0])
    return lead, _text(paragraph)[len(lead):].strip()


def question_spec(box: nodes.admonition) -> dict:
    """What questions.js needs from a question admonition: the kind, the right answer, each answer's feedback.

    Raises ValueError, naming what is wrong, if the admonition does not have the structure above.
    """
    options = [child for child in box.children if isinstance(child, nodes.enumerated_list)]
    answers = [child for child in box.children if isinstance(child, nodes.admonition)
               and child.children and _text(child[0]) == "Answer" and "dropdown" in child["classes"]]
    if len(answers) != 1 or len(options) > 1:
        raise ValueError("a question needs one folded admonition 'Answer' and at most one numbered list of options")
    answer = answers[0]
    paragraphs = [child for child in answer.children if isinstance(child, nodes.paragraph)]
    lead, reason = _lead(paragraphs[0])
    right = RIGHT.match(lead)
    if not right:
        raise ValueError(f"the answer must start with '**Answer: …**', not {lead!r}")
    wrong = {}
    for item in (item for listed in answer.findall(nodes.bullet_list) for item in listed.children):
        text, feedback = _lead(item[0])
        wrong[text.rstrip(":").strip()] = feedback
    if options:
        texts = [_text(item) for item in options[0].children]
        labels = [f"{number}. {text.rstrip('.')}" for number, text in enumerate(texts, start=1)]
        if right.group(1).rstrip(".") not in labels:
            raise ValueError(f"the answer {right.group(1)!r} is not one of the options {labels}")
        index = labels.index(right.group(1).rstrip("."))
        missing = [label for number, label in enumerate(labels) if number != index and label not in wrong]
        if missing:
            raise ValueError(f"the answer gives no feedback for the options {missing}")
        feedback = [reason if number == index else wrong[label] for number, label in enumerate(labels)]
        return {"kind": "choice", "right": index, "feedback": feedback}
    within = TOLERANCE.match(reason)
    if not within or OTHERWISE not in wrong or len(wrong) < 2:
        raise ValueError("a number question's answer reads '**Answer: 0.05** (within 0.02). …' and its list has a "
                         f"known wrong value and '**{OTHERWISE}:** …'")
    try:
        value, tolerance = float(right.group(1)), float(within.group(1))
        known = [{"value": float(text), "feedback": text_feedback} for text, text_feedback in wrong.items()
                 if text != OTHERWISE]
    except ValueError:
        raise ValueError("a number question's answer, tolerance and known values must be numbers") from None
    return {"kind": "number", "answer": value, "tolerance": tolerance, "known": known,
            "right": reason[within.end():], "otherwise": wrong[OTHERWISE]}


def _mark_questions(app, doctree):
    """Turn every admonition of class pe-question into a question node with its answers (doctree-read)."""
    for box in list(doctree.findall(nodes.admonition)):
        if CLASS not in box["classes"] or isinstance(box, question):
            continue
        label = box["ids"][0] if box["ids"] else None
        try:
            if not label or not label.startswith("q-"):
                raise ValueError("a question needs :name: q-…")
            spec = question_spec(box)
        except ValueError as error:
            logger.warning(f"question {label or '(unnamed)'}: {error}", location=box)
            continue
        for child in box.children:  # what questions.js looks for
            if isinstance(child, nodes.enumerated_list):
                child["classes"].append("pe-question-options")
            elif isinstance(child, nodes.admonition) and "dropdown" in child["classes"]:
                child["classes"].append("pe-question-answer")
        node = question(box.rawsource, *box.children, **box.attributes)
        node["spec"] = spec
        box.replace_self(node)
        app.env.domaindata.setdefault("pe_questions", {}).setdefault(app.env.docname, []).append(label)


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
    if any(next(section.findall(nodes.math), None) for section in listing):
        # The copied questions bring formulas this page did not have when it was read: load MathJax here too.
        app.env.get_domain("math").data["has_equations"][docname] = True


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
    app.add_directive("question-answers", QuestionAnswersDirective)
    app.connect("config-inited", _serve_static)
    app.connect("doctree-read", _mark_questions)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("doctree-resolved", _list_answers)
    app.connect("html-page-context", _add_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
