"""The rendered book, opened in a real browser the way a reader opens it: on a desktop and on a phone.

Each page is visited once at each reading width (tour.py: 1280 px, a desktop, and 390 px, a phone), two
pages loading at a time; the tests check what the visits recorded. Every dropdown and folded solution is
opened first, as a reader opens them, so that what they hold is measured too. `make screenshots` saves
a screenshot of every page at both widths to _build/screenshots/ (`<page>-1280.jpg`, `<page>-390.jpg`)
for review.
"""

import posixpath
from urllib.parse import urlparse

import pytest
from bs4 import BeautifulSoup
from book_links import colab_url, repository

from .conftest import load
from .legibility import DESKTOP_MINIMUM_PX, book_figures
from .math_source import swallowed_escapes
from .tour import CHAPTERS, PAGES, visit

#: The reading widths, in CSS pixels: a desktop browser's window and a phone's screen (tour.py's views).
WIDTHS = (1280, 390)
VIEW_AT = {1280: "light", 390: "phone"}


@pytest.fixture(scope="session")
def visits(tour):
    """What each page showed at each width: `visits[width][path]`."""
    return {width: tour.view(VIEW_AT[width]) for width in WIDTHS}


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


def test_the_glance_pictures_smallest_text_is_at_least_10_css_px_on_a_desktop(visits):
    """The summary's picture, which the build draws (book/_ext/glance_figure.py) rather than a notebook, measured
    from the companion's drawing at the width the page draws it."""
    import matplotlib.pyplot as plt
    from figure_text import smallest_text

    from companion.book.glance import glance_figure

    figure = glance_figure()
    try:
        figure.canvas.draw()
        size_pt, _, text = smallest_text(figure, dpi=72)
        width_inches = figure.get_size_inches()[0]
    finally:
        plt.close(figure)
    shown = [image for image in visits[1280]["book/glance.html"]["drawn"] if image["file"] == "glance.png"]
    assert len(shown) == 1 and shown[0]["width"] > 0, shown
    css_px = size_pt / 72 * shown[0]["width"] / width_inches  # a point is 1/72 of the figure's inch
    assert css_px >= DESKTOP_MINIMUM_PX, f"{text!r}: {css_px:.1f} px"


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


def test_a_code_block_that_scrolls_once_opened_can_be_reached_by_keyboard(reader, base_url):
    """A folded solution (a sphinx-togglebutton toggle) holding a code block wider than the column: when a reader
    opens it, the block gets tab stop 0 at once (book/_static/focusable-scroll.js), as the theme gives every
    block that scrolls when the page loads. (Folded, the block is laid out narrower or wider than opened: the
    book's own such block did not scroll until opened, and kept the theme's tab stop -1.)"""
    page = load(reader("light").new_page(), f"{base_url}/{CHAPTERS[0]}")
    tab_index = page.evaluate("""async () => {
        const solution = document.querySelector('.toggle.toggle-hidden');
        solution.insertAdjacentHTML('beforeend', '<div class="highlight"><pre>' + 'x'.repeat(400) + '</pre></div>');
        await new Promise(resolve => setTimeout(resolve, 500));  // past the theme's own measuring (300 ms)
        const block = solution.querySelector('pre:last-of-type');
        block.tabIndex = -1;  // as the theme left a block that did not scroll while folded
        const folded = block.tabIndex;
        solution.classList.remove('toggle-hidden');  // what the toggle's button does
        await Promise.resolve();  // the observer's turn, not a timer's
        return [folded, block.tabIndex];
    }""")
    page.close()
    assert tab_index == [-1, 0]


def neighbour(site, path: str, which: str) -> str | None:
    """The page that `path`'s "next" (`right-next`) or "previous" (`left-prev`) button leads to, as built."""
    link = BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser").select_one(f"a.{which}")
    return posixpath.normpath(posixpath.join(posixpath.dirname(path), link["href"].split("#")[0])) if link else None


def test_next_and_previous_walk_the_book_in_order(site):
    """From the first page, "next" leads through every page in the order of the table of contents, and
    "previous" back; the first page has no "previous", the last no "next"."""
    assert [neighbour(site, path, "right-next") for path in PAGES] == PAGES[1:] + [None]
    assert [neighbour(site, path, "left-prev") for path in PAGES] == [None] + PAGES[:-1]


def test_a_reader_clicks_next_and_previous(browser, base_url):
    """The buttons work as a reader uses them: a click on "next" opens the second page, "previous" the first."""
    page = browser.new_page()
    page.goto(f"{base_url}/{PAGES[0]}")
    page.locator("a.right-next").first.click()
    page.wait_for_load_state()
    assert urlparse(page.url).path.lstrip("/") == PAGES[1]
    page.locator("a.left-prev").first.click()
    page.wait_for_load_state()
    assert urlparse(page.url).path.lstrip("/") == PAGES[0]
    page.close()
