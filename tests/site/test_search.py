"""The book's search, used as a reader uses it, offline: the search box, a query, the results page.

Sphinx's search runs in the browser from the index written with the book (searchindex.js); no
request may leave the local server.
"""

from urllib.parse import urlparse

import pytest

from .conftest import book_pages, load

FIRST_PAGE = book_pages()[0]
# Sphinx's summary once the search is over: "Search finished, found N page(s)" or "did not match".
FINISHED = ("() => /finished|did not match/i.test("
            "document.querySelector('#search-results .search-summary')?.textContent || '')")


def search(context, base_url, query):
    """Type `query` into the search box of the first page; return the result pages' paths and outside requests."""
    page = load(context.new_page(), f"{base_url}/{FIRST_PAGE}")
    outside = []
    page.on("request", lambda request: urlparse(request.url).hostname != "127.0.0.1"
            and not request.url.startswith("data:") and outside.append(request.url))
    page.locator(".search-button-field").first.click()
    box = page.locator("#pst-search-dialog input[name='q']")
    box.press_sequentially(query)
    box.press("Enter")
    page.wait_for_url("**/search.html?q=*")
    page.wait_for_function(FINISHED)
    results = page.eval_on_selector_all("#search-results ul.search li a",
                                        "links => links.map(link => new URL(link.href).pathname.slice(1))")
    page.close()
    return results, outside


@pytest.mark.parametrize("query, chapter", [("rotation", "notebooks/05_linearity_proof.html"),
                                            ("WordSim", "notebooks/04_word2vec_black_brown.html")])
def test_search_finds_the_chapter_offline(reader, base_url, query, chapter):
    results, outside = search(reader("light"), base_url, query)
    assert chapter in results, results
    assert outside == []


def test_search_for_a_word_the_book_lacks_finds_nothing(reader, base_url):
    results, _ = search(reader("light"), base_url, "xylophone")
    assert results == []
