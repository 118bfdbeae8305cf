"""The rendered book, opened in a real browser the way a reader opens it.

Each page is visited once (the `visits` fixture); the tests check what the visit recorded.
A screenshot of every chapter is saved to _build/screenshots/ for review.
"""

from urllib.parse import urlparse

import pytest
from book_links import colab_url, repository

from .conftest import book_pages, load
from .math_source import swallowed_escapes

PAGES = book_pages()
CHAPTERS = [page for page in PAGES if page.startswith("notebooks/")]

INSPECT = """() => {
    const math = [...document.querySelectorAll('main .math')];
    return {
        math: math.length,
        typeset: math.filter(node => node.querySelector('mjx-container')).length,
        mathErrors: document.querySelectorAll('mjx-merror').length,
        // The TeX source of every formula MathJax found, as it reached the page.
        tex: window.MathJax && MathJax.startup && MathJax.startup.document
            ? Array.from(MathJax.startup.document.math, item => item.math) : [],
        images: [...document.querySelectorAll('img')].map(image => ({
            src: image.getAttribute('src'), loaded: image.complete && image.naturalWidth > 0,
            alt: (image.getAttribute('alt') || '').trim(), inContent: !!image.closest('main')})),
        figures: document.querySelectorAll('main figure img').length,
        links: [...document.querySelectorAll('a[href]')].map(link => link.href),
    };
}"""


def visit(context, url, screenshot=None):
    """Load `url` in a new page of the browser context `context`; return what it shows and what went wrong."""
    page = context.new_page()
    problems = []
    page.on("console", lambda message: message.type == "error" and problems.append(f"console: {message.text}"))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"failed request: {request.url}"))
    page.on("response", lambda response: response.status >= 400
            and problems.append(f"HTTP {response.status}: {response.url}"))
    page.on("request", lambda request: urlparse(request.url).hostname not in (None, "127.0.0.1")
            and not request.url.startswith("data:") and problems.append(f"request to another host: {request.url}"))
    load(page, url)
    record = page.evaluate(INSPECT)
    if screenshot:
        page.screenshot(path=str(screenshot), full_page=True)
    page.close()
    return {**record, "problems": problems}


@pytest.fixture(scope="session")
def visits(reader, base_url, screenshots):
    return {
        path: visit(reader("light"), f"{base_url}/{path}",
                    screenshots / path.removeprefix("notebooks/").replace(".html", ".png") if path in CHAPTERS else None)
        for path in PAGES
    }


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_with_no_error_and_no_request_to_another_host(visits, path):
    assert visits[path]["problems"] == []


@pytest.mark.parametrize("path", PAGES)
def test_every_equation_is_typeset(visits, path):
    record = visits[path]
    assert record["typeset"] == record["math"] and record["mathErrors"] == 0, record


@pytest.mark.parametrize("path", PAGES)
def test_no_formula_lost_a_backslash_to_a_string_escape(visits, path):
    """A TAB where \\text began (a JSON "\\t") typesets without error as "ext": read the TeX itself."""
    record = visits[path]
    assert len(record["tex"]) >= record["typeset"], "the source of every typeset formula is read"
    damaged = {tex: found for tex in record["tex"] if (found := swallowed_escapes(tex))}
    assert damaged == {}, f"{path}: formulas whose TeX lost a backslash (fix the notebook's source): {damaged}"


def test_the_chapters_have_equations_and_figures(visits):
    assert visits["notebooks/05_linearity_proof.html"]["typeset"] > 50
    for path in ["notebooks/02_loop_version.html", "notebooks/07_reading_the_encoding.html"]:
        assert visits[path]["figures"] >= 2, path


@pytest.mark.parametrize("path", PAGES)
def test_every_image_loads_and_every_content_image_has_alt_text(visits, path):
    images = visits[path]["images"]
    assert [image["src"] for image in images if not image["loaded"]] == []
    assert [image["src"] for image in images if image["inContent"] and not image["alt"]] == []


@pytest.mark.parametrize("path", CHAPTERS)
def test_launch_buttons_and_colab_link_point_to_the_configured_repository(visits, path):
    links = visits[path]["links"]
    url, branch = repository()
    notebook = path.removeprefix("notebooks/").replace(".html", ".ipynb")
    colab = [link for link in links if "colab.research.google.com" in link]
    binder = [link for link in links if "mybinder.org" in link]
    repository_links = [link for link in links if link.startswith("https://github.com/")]
    assert colab and set(colab) == {colab_url(notebook)}, colab
    owner_and_name = url.removeprefix("https://github.com/")
    assert binder and all(f"/gh/{owner_and_name}/{branch}" in link for link in binder), binder
    assert repository_links and all(link.startswith(url) for link in repository_links), repository_links


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
