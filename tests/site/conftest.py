"""Fixtures for the tests of the rendered book: the built site, a local server, a browser.

These tests read `_build/html`, so the book must be built first (`make test` builds it
before running them). The browser is Debian's Chromium, driven by Playwright; no browser
is downloaded. Set CHROMIUM to use another Chromium-based browser.
"""

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Flags that keep Chromium from calling home (see the machine notes): offline it would log errors.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-default-apps"]


def book_pages() -> list[str]:
    """Pages in reading order, from _toc.yml, as paths relative to the site."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [chapter["file"] for part in toc["parts"] for chapter in part["chapters"]]
    return [f"{name}.html" for name in files]


@pytest.fixture(scope="session")
def site() -> Path:
    if not (SITE / "index.html").is_file():
        pytest.fail("the book is not built: run `make book` (or `make test`, which builds it) first")
    return SITE


@pytest.fixture(scope="session")
def base_url(site):
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no browser at {CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    directory = ROOT / "_build" / "screenshots"
    directory.mkdir(parents=True, exist_ok=True)
    return directory
