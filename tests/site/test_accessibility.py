"""Every page of the book, in light and in dark mode, checked with axe-core against WCAG 2 A and AA.

axe-core (npm, pinned in package-lock.json) runs on each page once MathJax has typeset it, every folded
part opened and every explorable figure drawn (tour.py, which visits each page once per view for several
test files); a serious or critical violation fails the test, which says
where the fix belongs: an element inside a page's own text (a chapter's markdown, a figure's alt text, a
table) is fixed in that page's source; anything else (the theme's frame, colours, the markup of an
extension) in the book's own CSS (book/_static), templates (book/_templates), extensions (book/_ext) or
_config.yml. Besides the book's pages, the pages Sphinx generates (tour.generated_pages: indices,
search, source pages) are checked.
"""

import pytest
from headless_chromium import SETTLED

from .axe import blocking_violations, report
from .conftest import load
from .tour import PAGES, generated_pages

CHECKED = PAGES + generated_pages()
# How many opacity transitions are running inside the element SOLUTION stands for.
FADING = """() => document.getAnimations().filter(animation => animation.playState === 'running'
    && animation.transitionProperty === 'opacity' && animation.effect.target
    && animation.effect.target.closest('SOLUTION')).length"""


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("path", CHECKED)
def test_no_serious_or_critical_accessibility_violation(tour, path, mode):
    record = tour.view(mode)[path]
    assert record["theme"] == mode
    assert not record["axe"], report(path, mode, record["axe"])


def test_axe_reports_what_it_should(reader, base_url):
    """The check can fail: a page given pale text and an unlabelled image has serious violations."""
    page = load(reader("light").new_page(), f"{base_url}/{PAGES[0]}")
    page.evaluate("""() => {
        const paragraph = document.querySelector('article.bd-article p');
        paragraph.style.color = '#c8c8c8';
        const image = document.createElement('img');
        image.src = '../_static/favicon.svg';
        paragraph.after(image);
    }""")
    violations = {violation["id"]: violation for violation in blocking_violations(page)}
    page.close()
    assert {"color-contrast", "image-alt"} <= set(violations)
    assert all(node["inContent"] for node in violations["image-alt"]["nodes"])
    assert "in the page's own text" in report(PAGES[0], "light", [violations["image-alt"]])


def test_axe_reads_an_opened_solution_at_rest(reader, base_url):
    """A solution a reader opens fades in (sphinx-togglebutton, 0.3 s): read before it ends, its links are paler
    than their colour (axe-core once found 3.7:1 there, by timing alone). The checks end it first (SETTLED)."""
    page = load(reader("light").new_page(), f"{base_url}/notebooks/experiment_reports.html")
    # The first solution with a link in its text (every solution's title is a link to its exercise).
    page.locator("div.solution:has(section a.reference)").first.evaluate("solution => { solution.dataset.opened = ''; }")
    fading = FADING.replace("SOLUTION", "[data-opened]")
    moving = page.evaluate(f"() => {{ document.querySelector('[data-opened] button.toggle-button').click(); "
                           f"return ({fading})(); }}")  # clicked and counted in one step: the fade is 0.3 s
    page.evaluate(SETTLED)
    still = page.evaluate(fading)
    violations = blocking_violations(page, "[data-opened]")
    page.close()
    assert moving > 0 and still == 0
    assert violations == []
