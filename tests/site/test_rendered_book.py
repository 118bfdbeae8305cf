"""The rendered book, opened in a real browser the way a reader opens it: on a desktop and on a phone.

Each page is visited once at each reading width (the `visits` fixture: 1280 px, a desktop, and 390 px,
a phone), two pages loading at a time; the tests check what the visits recorded. Every dropdown and
folded solution is opened first, as a reader opens them, so that what they hold is measured too. A
screenshot of every page at both widths is saved to _build/screenshots/ (`<page>-1280.jpg`,
`<page>-390.jpg`; JPEG, which Chromium encodes several times faster than PNG for pages this tall) for review.
"""

from urllib.parse import urlparse

import pytest
from book_links import colab_url, repository

from .conftest import MATHJAX_DONE, book_pages
from .legibility import DESKTOP_MINIMUM_PX, book_figures
from .math_source import swallowed_escapes

PAGES = book_pages()
CHAPTERS = [page for page in PAGES if page.startswith("notebooks/")]
#: The reading widths, in CSS pixels: a desktop browser's window and a phone's screen.
WIDTHS = (1280, 390)
#: How many pages load at once: Chromium lays out and typesets each in a process of its own.
AT_ONCE = 2

INSPECT = """async () => {
    // Open what a reader can open: sphinx-togglebutton's toggles (it opens them all before printing)
    // and every <details> (dropdown admonitions, folded code).
    window.dispatchEvent(new Event('beforeprint'));
    document.querySelectorAll('details').forEach(details => { details.open = true; });
    if (window.peExplorables) await window.peExplorables.embedAll();
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


def visit(context, url, screenshot=None):
    """Load `url` in a new page of the browser context `context`; return what it shows and what went wrong."""
    return visit_all(context, [(url, screenshot)])[0]


def visit_all(context, targets, at_once=AT_ONCE):
    """Visit each (url, screenshot path or None) of `targets` in `context`, `at_once` pages loading side by side."""
    records = []
    for start in range(0, len(targets), at_once):
        opened = []
        for url, screenshot in targets[start:start + at_once]:
            page, problems = context.new_page(), []
            watch(page, problems)
            page.goto(url, wait_until="commit")
            opened.append((page, problems, screenshot))
        for page, problems, screenshot in opened:
            page.wait_for_load_state("networkidle")
            page.evaluate(MATHJAX_DONE)
            record = page.evaluate(INSPECT)
            if screenshot:
                page.bring_to_front()
                full_page_screenshots(page, screenshot)
            page.close()
            records.append({**record, "problems": problems})
    return records


@pytest.fixture(scope="session")
def visits(browser, base_url, screenshots):
    """What each page showed at each width: `visits[width][path]`."""
    found = {}
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme="light")
        context.add_init_script("localStorage.setItem('mode', 'light'); localStorage.setItem('theme', 'light');")
        targets = [(f"{base_url}/{path}", screenshots / screenshot_name(path, width)) for path in PAGES]
        found[width] = dict(zip(PAGES, visit_all(context, targets)))
        context.close()
    return found


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_page_loads_with_no_error_and_no_request_to_another_host(visits, path, width):
    assert visits[width][path]["problems"] == []


@pytest.mark.parametrize("path", PAGES)
def test_every_equation_is_typeset(visits, path):
    record = visits[1280][path]
    assert record["typeset"] == record["math"] and record["mathErrors"] == 0, record


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_every_display_formula_fits_its_box_and_the_column(visits, path, width):
    """Nothing of a formula is clipped or hidden behind a scroll bar: MathJax breaks it into lines."""
    assert visits[width][path]["overflowing"] == []


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_nothing_is_wider_than_the_screen(visits, path, width):
    """No figure, formula or table makes the page scroll sideways; every explorable figure fits the column."""
    record = visits[width][path]
    assert record["pageWidth"] <= record["viewport"], record["pageWidth"]
    wide = [figure for figure in record["explorables"]
            if figure["scrolls"] or figure["right"] > record["viewport"] or (figure["drawn"] or 0) > figure["right"] + 1]
    assert wide == []


def test_every_explorable_figure_is_drawn_on_a_phone(visits):
    drawn = [figure["name"] for record in visits[390].values() for figure in record["explorables"] if figure["drawn"]]
    assert sorted(drawn) == ["clocks", "look_back", "rotation", "similarity", "table"]


@pytest.mark.parametrize("path", PAGES)
def test_no_test_machinery_in_view(visits, path):
    """No nbval marker, and no check cell (code that only asserts), anywhere on the page, folded parts included."""
    record = visits[1280][path]
    assert record["nbval"] == [] and record["bareAsserts"] == []


@pytest.mark.parametrize("path", CHAPTERS)
def test_the_title_comes_first(visits, path):
    """The setup cell (it installs the companion in Colab) is left out: no code, nor its bar, above the title."""
    assert visits[1280][path]["beforeTitle"] == []


@pytest.mark.parametrize("path", CHAPTERS)
def test_every_figures_smallest_text_is_at_least_10_css_px_on_a_desktop(visits, path):
    """A figure's smallest text (measured in its PNG while the chapters executed: tools/figure_text.py), at
    the width the page draws the figure at 1280 px, is at least 10 CSS pixels tall (its font size)."""
    shown = {image["file"]: image for image in visits[1280][path]["drawn"] if image["width"] > 0}
    figures = [figure for figure in book_figures() if figure.page == path and figure.file in shown]
    small = {figure.where: f"{figure.css_px(shown[figure.file]['width']):.1f} px ({figure.smallest!r})"
             for figure in figures if figure.css_px(shown[figure.file]["width"]) < DESKTOP_MINIMUM_PX}
    assert small == {}


@pytest.mark.parametrize("path", PAGES)
def test_no_formula_lost_a_backslash_to_a_string_escape(visits, path):
    """A TAB where \\text began (a JSON "\\t") typesets without error as "ext": read the TeX itself."""
    record = visits[1280][path]
    assert len(record["tex"]) >= record["typeset"], "the source of every typeset formula is read"
    damaged = {tex: found for tex in record["tex"] if (found := swallowed_escapes(tex))}
    assert damaged == {}, f"{path}: formulas whose TeX lost a backslash (fix the notebook's source): {damaged}"


def test_the_chapters_have_equations_and_figures(visits):
    assert visits[1280]["notebooks/05_linearity_proof.html"]["typeset"] > 50
    for path in ["notebooks/02_loop_version.html", "notebooks/07_reading_the_encoding.html"]:
        assert visits[1280][path]["figures"] >= 2, path


@pytest.mark.parametrize("path", PAGES)
def test_every_image_loads_and_every_content_image_has_alt_text(visits, path):
    images = visits[1280][path]["images"]
    assert [image["src"] for image in images if not image["loaded"]] == []
    assert [image["src"] for image in images if image["inContent"] and not image["alt"]] == []


@pytest.mark.parametrize("path", CHAPTERS)
def test_launch_buttons_and_colab_link_point_to_the_configured_repository(visits, path):
    links = visits[1280][path]["links"]
    url, branch = repository()
    notebook = path.removeprefix("notebooks/").replace(".html", ".ipynb")
    colab = [link for link in links if "colab.research.google.com" in link]
    binder = [link for link in links if "mybinder.org" in link]
    repository_links = [link for link in links if link.startswith("https://github.com/")]
    assert colab and set(colab) == {colab_url(notebook)}, colab
    owner_and_name = url.removeprefix("https://github.com/")
    assert binder and all(f"/gh/{owner_and_name}/{branch}" in link for link in binder), binder
    assert repository_links and all(link.startswith(url) for link in repository_links), repository_links


def test_the_checks_of_what_a_reader_sees_can_fail(browser, base_url):
    """A page given a formula too wide to break (one word of text), an nbval marker, a check cell, a cell above
    the title and a block wider than the screen: each is found."""
    page_path = CHAPTERS[0]
    context = browser.new_context(viewport={"width": 390, "height": 900})
    context.add_init_script("""document.addEventListener('DOMContentLoaded', () => {
        const title = document.querySelector('article.bd-article h1');
        title.insertAdjacentHTML('beforebegin', '<div class="cell"><div class="cell_input"><pre># setup</pre></div></div>');
        title.insertAdjacentHTML('afterend',
            '<div class="math notranslate nohighlight">\\\\[\\\\text{' + 'x'.repeat(300) + '}\\\\]</div>'
            + '<div class="cell"><div class="cell_input"><pre>assert x == 1\\nassert y == 2</pre></div></div>'
            + '<p># NBVAL_IGNORE_OUTPUT</p><div style="width: 900px; height: 2px"></div>');
    });""")
    record = visit(context, f"{base_url}/{page_path}")
    context.close()
    assert len(record["overflowing"]) == 1 and record["overflowing"][0]["over"] > 100
    assert record["nbval"] == ["NBVAL_IGNORE_OUTPUT"] and record["bareAsserts"] == ["assert x == 1\nassert y == 2"]
    assert record["beforeTitle"] == ["# setup"] and record["pageWidth"] > record["viewport"]


def test_next_and_previous_walk_the_book_in_order(browser, base_url):
    page = browser.new_page()
    page.goto(f"{base_url}/{PAGES[0]}")
    visited = [PAGES[0]]
    while page.locator("a.right-next").count():
        page.locator("a.right-next").first.click()
        page.wait_for_load_state()
        visited.append(urlparse(page.url).path.lstrip("/"))
    assert visited == PAGES
    for expected in reversed(PAGES[:-1]):
        page.locator("a.left-prev").first.click()
        page.wait_for_load_state()
        assert urlparse(page.url).path.lstrip("/") == expected
    page.close()
