"""Every page of the rendered book, opened once in each view a reader has, and what each visit recorded.

The views are a desktop (1280 px) in light mode, the same in dark mode, and a phone (390 px) in light
mode. The browser tests of what every page shows (test_rendered_book.py), of accessibility
(test_accessibility.py), of the page questions (test_questions.py) and of the figures in dark mode
(test_dark_mode_figures.py) read these records, so that each page is loaded and typeset once per view
rather than once per test file (`make browser-tests` runs them in two processes, one for the light views,
one for the dark: conftest.py's `--half`). On each page, in order:

1. what a reader can open is opened: sphinx-togglebutton's toggles (it opens them all before
   printing), every <details> (dropdowns, folded code), and the explorable figures are drawn;
2. what the page shows is read (INSPECT): formulas, widths, images, links, test machinery;
3. on a desktop, axe-core checks the whole page, every part opened;
4. on a desktop, each page question is answered by keyboard, wrong then right, and axe-core checks the
   answered questions;
5. in dark mode, each figure of a chapter is photographed on its card;
6. with `--screenshots` (`make screenshots`), the whole page is saved to _build/screenshots/;

and every console error, failed request and request to another host is recorded.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest
from headless_chromium import MATHJAX_DONE, SETTLED

from .axe import blocking_violations
from .cards import rendered_figures
from .conftest import SITE, book_pages
from .page_questions import answer_every_question, questions_in_site

PAGES = book_pages()
#: Each page that asks questions, with its questions (read once from the built pages).
QUESTIONS = questions_in_site()
CHAPTERS = [page for page in PAGES if page.startswith("notebooks/")]
#: Each view: its width in CSS pixels and its colour mode.
VIEWS = {"light": (1280, "light"), "dark": (1280, "dark"), "phone": (390, "light")}
#: How many pages load at once: Chromium lays out and typesets each in a process of its own.
AT_ONCE = 2
# The pages Sphinx generates besides the book's own, checked by axe-core on a desktop: the indices
# (sphinx-proof's proof index among them), the search page and, with sphinx.ext.viewcode, the companion's
# source pages, which share one template and one code style, so that their index and the longest of them
# (the most kinds of highlighted token) stand for them all.
GENERATED = ["prf-prf.html", "genindex.html", "search.html"]


def generated_pages(site: Path = SITE) -> list[str]:
    """GENERATED, then the module index and viewcode's source pages (index and longest), where the build wrote them."""
    found = [page for page in ("py-modindex.html", "_modules/index.html") if (site / page).is_file()]
    sources = sorted((site / "_modules").rglob("*/*.html"), key=lambda page: page.stat().st_size)
    return GENERATED + found + ([str(sources[-1].relative_to(site))] if sources else [])


# Open what a reader can open, and draw the explorable figures (read() then brings what opened to rest: SETTLED).
OPEN = """async () => {
    window.dispatchEvent(new Event('beforeprint'));
    document.querySelectorAll('details').forEach(details => { details.open = true; });
    if (window.peExplorables) await window.peExplorables.embedAll();
}"""

# What a page shows, once everything is open (OPEN).
INSPECT = """() => {
    const math = [...document.querySelectorAll('main .math')];
    const column = document.querySelector('article.bd-article').getBoundingClientRect();
    const source = node => (window.MathJax && MathJax.startup && MathJax.startup.document
        ? (Array.from(MathJax.startup.document.math).find(item => item.typesetRoot === node) || {}).math : '') || '';
    const main = document.querySelector('main');
    const titles = [...document.querySelectorAll('article.bd-article h1')];  // not the theme's print-only title
    return {
        math: math.length,
        typeset: math.filter(node => node.querySelector('mjx-container')).length,
        mathErrors: document.querySelectorAll('mjx-merror').length,
        // The TeX source of every formula MathJax found, as it reached the page.
        tex: window.MathJax && MathJax.startup && MathJax.startup.document
            ? Array.from(MathJax.startup.document.math, item => item.math) : [],
        // Each display formula wider than its box (clipped, or scrolled) or than the text column.
        overflowing: [...main.querySelectorAll('mjx-container[display="true"]')].map(formula => {
            const box = formula.closest('div.math') || formula.parentElement;
            const drawn = formula.getBoundingClientRect();
            const over = Math.max(formula.scrollWidth - formula.clientWidth, box.scrollWidth - box.clientWidth,
                                  drawn.right - column.right, column.left - drawn.left);
            const number = box.querySelector('.eqno');
            return {over: Math.round(over), label: box.id || (formula.closest('[id]') || {}).id || '',
                    number: number ? number.textContent.replace(/[^\\d.()]/g, '') : '',
                    tex: source(formula).trim().slice(0, 70)};
        }).filter(formula => formula.over > 1),
        // Test machinery: nbval's markers anywhere in the page's text, folded parts included.
        nbval: (main.textContent.match(/NBVAL_\\w*/g) || []),
        // A code cell shown whose code only asserts: a check cell, which the page should leave out.
        bareAsserts: [...main.querySelectorAll('div.cell div.cell_input pre')].map(pre => pre.textContent)
            .filter(code => {
                const statements = code.split('\\n').filter(line => /^\\S/.test(line) && !/^#/.test(line));
                return statements.length > 0 && statements.every(line => /^assert\\b/.test(line));
            }).map(code => code.slice(0, 120)),
        // Anything of a code cell (its code, or the bar that shows hidden code) before the page's title.
        beforeTitle: titles.length ? [...main.querySelectorAll('div.cell, details.hide')]
            .filter(cell => titles[0].compareDocumentPosition(cell) & Node.DOCUMENT_POSITION_PRECEDING)
            .map(cell => cell.textContent.trim().slice(0, 80)) : [],
        pageWidth: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
        explorables: [...document.querySelectorAll('.pe-explorable')].map(figure => {
            const live = figure.querySelector('.pe-explorable-live');
            const svg = live && live.querySelector('svg');
            return {name: figure.dataset.explorable, right: Math.round(figure.getBoundingClientRect().right),
                    scrolls: !!live && live.scrollWidth > live.clientWidth + 1,
                    drawn: svg ? Math.round(svg.getBoundingClientRect().right) : null};
        }),
        images: [...document.querySelectorAll('img')].map(image => ({
            src: image.getAttribute('src'), loaded: image.complete && image.naturalWidth > 0,
            alt: (image.getAttribute('alt') || '').trim(), inContent: !!image.closest('main')})),
        figures: document.querySelectorAll('main figure img').length,
        // Each image of the page's text as drawn: its file and its width on screen (0 where it is hidden).
        drawn: [...main.querySelectorAll('img')].map(image => ({
            file: (image.getAttribute('src') || '').split('/').pop(), natural: image.naturalWidth,
            width: image.getBoundingClientRect().width})),
        links: [...document.querySelectorAll('a[href]')].map(link => link.href),
    };
}"""


def screenshot_name(path: str, width: int) -> str:
    return f"{path.removeprefix('notebooks/').removeprefix('book/').removesuffix('.html')}-{width}.jpg"


def watch(page, problems):
    """Record on `problems` what goes wrong on `page`: errors, failed requests, requests to another host."""
    page.on("console", lambda message: message.type == "error" and problems.append(f"console: {message.text}"))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"failed request: {request.url}"))
    page.on("response", lambda response: response.status >= 400
            and problems.append(f"HTTP {response.status}: {response.url}"))
    page.on("request", lambda request: urlparse(request.url).hostname not in (None, "127.0.0.1")
            and not request.url.startswith("data:") and problems.append(f"request to another host: {request.url}"))


#: A JPEG is at most 65,535 pixels tall: a taller page (the API reference) is saved in parts of this height.
PART_PX = 30_000


def full_page_screenshots(page, path):
    """Save the whole page to `path` (a .jpg), or to `path` with -1, -2, ... before the suffix if it is too tall."""
    height = page.evaluate("document.documentElement.scrollHeight")
    width = page.evaluate("document.documentElement.scrollWidth")
    if height <= PART_PX:
        page.screenshot(path=str(path), full_page=True, type="jpeg", quality=80, timeout=180_000)
        return
    for part, top in enumerate(range(0, height, PART_PX), start=1):
        clip = {"x": 0, "y": top, "width": width, "height": min(PART_PX, height - top)}
        page.screenshot(path=str(path.with_name(f"{path.stem}-{part}{path.suffix}")), full_page=True, clip=clip,
                        type="jpeg", quality=80, timeout=180_000)


def open_context(browser, view: str):
    """A browser context for `view`, its pages opening in the view's colour mode as pydata-sphinx-theme stores a
    reader's choice (localStorage `mode`, from which its script sets `<html data-theme>`)."""
    width, mode = VIEWS[view]
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=mode)
    context.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
    return context


def read(page) -> dict:
    """Once `page` has loaded and MathJax has typeset it, open it (OPEN) and read what it shows (INSPECT)."""
    page.wait_for_load_state("networkidle")
    page.evaluate(MATHJAX_DONE)
    page.evaluate(OPEN)
    page.evaluate(SETTLED)
    return page.evaluate(INSPECT)


def visit(context, url):
    """Load `url` in a new page of `context` and read it: INSPECT's record, with `problems`."""
    page, problems = context.new_page(), []
    watch(page, problems)
    page.goto(url, wait_until="commit")
    record = read(page)
    page.close()
    return {**record, "problems": problems}


class Visited(dict):
    """A view's records, by page; a page whose visit failed fails each test that reads it, with its error."""

    def __getitem__(self, path):
        record = super().__getitem__(path)
        if "error" in record:
            pytest.fail(f"{path}: the visit failed: {record['error']}")
        return record


class Tour:
    """The book's pages, each visited once per view when a test first asks for the view: `tour.view("dark")[path]`."""

    def __init__(self, browser, base_url: str, screenshots: Path | None = None):
        self.browser, self.base_url, self.screenshots = browser, base_url, screenshots
        self.visited: dict[str, Visited] = {}

    def pages(self, view: str) -> list[str]:
        return PAGES + (generated_pages() if VIEWS[view][0] == 1280 else [])

    def view(self, view: str) -> Visited:
        if view not in self.visited:
            visited = Visited()
            context = open_context(self.browser, view)
            try:
                pages = self.pages(view)
                for start in range(0, len(pages), AT_ONCE):
                    opened = []
                    for path in pages[start:start + AT_ONCE]:
                        page, problems = context.new_page(), []
                        watch(page, problems)
                        page.goto(f"{self.base_url}/{path}", wait_until="commit")
                        opened.append((path, page, problems))
                    for path, page, problems in opened:
                        try:
                            record = self._record(view, path, page)
                        except Exception as error:  # the page's failure, reported by its tests, not the view's
                            record = {"error": f"{type(error).__name__}: {error}"}
                        finally:
                            page.close()
                        visited[path] = {**record, "problems": problems}
            finally:
                context.close()
            self.visited[view] = visited
        return self.visited[view]

    def _record(self, view: str, path: str, page) -> dict:
        width, mode = VIEWS[view]
        if path in PAGES:
            record = read(page)
        else:  # a generated page: only axe-core reads it
            page.wait_for_load_state("networkidle")
            record = {}
        record["theme"] = page.evaluate("document.documentElement.dataset.theme")
        if width == 1280:
            record["axe"] = blocking_violations(page)  # the page as a reader has opened it, nothing answered
        if width == 1280 and path in QUESTIONS:
            record["questions"] = answer_every_question(page, QUESTIONS[path])
            record["questionsAxe"] = blocking_violations(page, "div.pe-question")  # each answered
        if mode == "dark" and path in CHAPTERS:
            record["cards"] = rendered_figures(page)
        if self.screenshots and mode == "light" and path in PAGES:
            page.bring_to_front()
            full_page_screenshots(page, self.screenshots / screenshot_name(path, width))
        return record
