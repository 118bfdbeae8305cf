"""Fixtures for the tests of the rendered book: the built site, a local server, a browser.

These tests read `_build/html` and `_build/pdf/book.pdf`, so the book and its PDF must be built
first (`make test` builds both before running them). The browser is Debian's Chromium, driven by
Playwright (tools/headless_chromium.py); no browser is downloaded. Set CHROMIUM to use another
Chromium-based browser.
"""

import json
import re
from pathlib import Path

import pytest
import yaml
from headless_chromium import MATHJAX_DONE, launch, serve

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
PDF = ROOT / "_build" / "pdf" / "book.pdf"
VIEWPORT = {"width": 1280, "height": 900}
# An explorable figure's specification as book/_ext/explorables.py writes it into a page.
EXPLORABLE_SPEC = re.compile(r'<script type="application/json" class="pe-explorable-spec">(.*?)</script>', re.S)


def book_pages() -> list[str]:
    """Pages in reading order, from _toc.yml, as paths relative to the site."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [chapter["file"] for part in toc["parts"] for chapter in part["chapters"]]
    return [f"{name}.html" for name in files]


def load(page, url):
    """Load `url` in `page` as a reader would and wait until MathJax has typeset it; return `page`."""
    page.goto(url, wait_until="networkidle")
    page.evaluate(MATHJAX_DONE)
    return page


@pytest.fixture(scope="session")
def site() -> Path:
    if not (SITE / "index.html").is_file():
        pytest.fail("the book is not built: run `make book` (or `make test`, which builds it) first")
    return SITE


@pytest.fixture(scope="session")
def base_url(site):
    with serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        try:
            browser = launch(playwright)
        except FileNotFoundError as error:
            pytest.fail(str(error))
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def reader(browser):
    """A reader's browser in a colour mode: `reader("dark")` is a browser context whose pages open dark.

    The mode is chosen as pydata-sphinx-theme stores a reader's choice (localStorage `mode`, from
    which its script sets `<html data-theme>`), with the system preference set to match.
    """
    contexts = {}

    def context(mode):
        if mode not in contexts:
            contexts[mode] = browser.new_context(viewport=VIEWPORT, color_scheme=mode)
            contexts[mode].add_init_script(f"localStorage.setItem('mode', '{mode}'); "
                                           f"localStorage.setItem('theme', '{mode}');")
        return contexts[mode]

    yield context
    for opened in contexts.values():
        opened.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    directory = ROOT / "_build" / "screenshots"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def pytest_addoption(parser):
    parser.addoption("--screenshots", action="store_true",
                     help="save a screenshot of every page of the book at both widths to _build/screenshots/")
    parser.addoption("--half", choices=["light", "dark"],
                     help="run one of two halves of these tests of about equal length (`make browser-tests` runs "
                          "both side by side): light, the tests that read the tour's light views and the PDF's; "
                          "dark, every other test")


#: The files whose tests read the tour's light views (tour.py), or the PDF, unless they name the dark mode.
LIGHT_HALF = {"test_rendered_book.py", "test_accessibility.py", "test_questions.py", "test_pdf.py"}


def in_light_half(item) -> bool:
    params = getattr(item, "callspec", None)
    return Path(item.fspath).name in LIGHT_HALF and (params is None or params.params.get("mode") != "dark")


def pytest_collection_modifyitems(config, items):
    half = config.getoption("--half")
    if half is None:
        return
    keep = [item for item in items if in_light_half(item) == (half == "light")]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep


@pytest.fixture(scope="session")
def tour(browser, base_url, request):
    """Every page of the book, visited once per view as the tests first ask for it (tour.py)."""
    from .tour import Tour

    shots = request.getfixturevalue("screenshots") if request.config.getoption("--screenshots") else None
    return Tour(browser, base_url, shots)


def explorable_figures(site: Path = SITE) -> dict[str, list[str]]:
    """Each explorable figure of the built book, by name, with the pages (relative to the site) that show it.

    A figure is found as book/_ext/explorables.py writes it: its Vega-Lite specification in a
    ``<script class="pe-explorable-spec">``, named by ``usermeta.explorable``.
    """
    found: dict[str, list[str]] = {}
    for path in sorted(site.rglob("*.html")):
        if "_static" in path.relative_to(site).parts:
            continue
        for spec in EXPLORABLE_SPEC.findall(path.read_text(encoding="utf-8")):
            found.setdefault(json.loads(spec)["usermeta"]["explorable"], []).append(str(path.relative_to(site)))
    return found
