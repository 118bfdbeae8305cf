"""No chapter page weighs more than 3 MB on its own (tools/page_weight.py): its HTML, figures and data,
and any file no other page loads; what the pages share (the theme, MathJax, Vega) is counted once."""

import pytest
from page_weight import LIMIT, measure

from .conftest import book_pages

CHAPTERS = [page for page in book_pages() if page.startswith("notebooks/")]


@pytest.fixture(scope="module")
def weights(site):
    measured, shared = measure(site, book_pages())
    return {weight.page: weight for weight in measured}, shared


@pytest.mark.parametrize("path", CHAPTERS)
def test_a_chapter_page_weighs_at_most_3_mb_on_its_own(weights, path):
    weight = weights[0][path]
    largest = sorted(weight.own_files.items(), key=lambda item: -item[1])[:5]
    assert weight.total <= LIMIT, f"{path}: {weight.total / 1e6:.2f} MB of its own; largest files: {largest}"


def test_what_every_page_loads_is_shared_not_owned(weights):
    measured, shared = weights
    assert any(name.startswith("_static/mathjax/") for name in shared)
    assert all(not name.startswith("_static/styles/") for weight in measured.values() for name in weight.own_files)
