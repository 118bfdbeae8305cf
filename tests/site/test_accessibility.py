"""Every page of the book, in light and in dark mode, checked with axe-core against WCAG 2 A and AA.

axe-core (npm, pinned in package-lock.json) is injected into each page once MathJax has typeset it;
a serious or critical violation fails the test, which says where the fix belongs: an element inside
a page's own text (a chapter's markdown, a figure's alt text, a table) is fixed in that page's
source; anything else (the theme's frame, colours, the markup of an extension) in the book's own
CSS (book/_static), templates (book/_templates), extensions (book/_ext) or _config.yml.
"""

import pytest

from .conftest import ROOT, SITE, book_pages, load

# The pages Sphinx generates besides the book's own: the indices (sphinx-proof's proof index among
# them), the search page and, once sphinx.ext.viewcode is enabled, the companion's source pages. Those
# share one template and one code style, so their index and the longest of them (the most kinds of
# highlighted token) stand for them all (each page costs a few seconds in each mode).
GENERATED = ["prf-prf.html", "genindex.html", "search.html"]


def optional_generated_pages() -> list[str]:
    """The module index and viewcode's source pages (index and longest), where the build wrote them."""
    found = [page for page in ("py-modindex.html", "_modules/index.html") if (SITE / page).is_file()]
    sources = sorted((SITE / "_modules").rglob("*/*.html"), key=lambda page: page.stat().st_size)
    return found + [str(sources[-1].relative_to(SITE))] if sources else found


PAGES = book_pages() + GENERATED + optional_generated_pages()
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.0, 2.1 and 2.2, levels A and AA: axe-core's tags for them.
WCAG2_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = {"serious", "critical"}

RUN_AXE = """async (tags) => {
    const results = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
    return results.violations.map(violation => ({
        id: violation.id, impact: violation.impact, help: violation.help,
        nodes: violation.nodes.map(node => {
            const element = document.querySelector(node.target[0]);
            return {target: node.target.join(' '), html: node.html.slice(0, 160), summary: node.failureSummary,
                    inContent: !!(element && element.closest('article.bd-article'))};
        }),
    }));
}"""


@pytest.fixture(scope="session")
def axe_source():
    if not AXE.is_file():
        pytest.fail("axe-core is not installed: run `npm ci` (the Makefile's `make test` does)")
    return AXE.read_text()


def report(path, mode, violations):
    lines = [f"{path} in {mode} mode: {len(violations)} serious or critical WCAG 2 A/AA violations"]
    for violation in violations:
        lines.append(f"- {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            where = ("in the page's own text: fix its source (the notebook or markdown page)" if node["inContent"]
                     else "in the theme's frame: fix book/_static, book/_templates, book/_ext or _config.yml")
            lines.append(f"    {node['target']} {where}\n      {node['html']}\n      {node['summary']}")
    return "\n".join(lines)


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("path", PAGES)
def test_no_serious_or_critical_accessibility_violation(reader, base_url, axe_source, path, mode):
    page = load(reader(mode).new_page(), f"{base_url}/{path}")
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    page.add_script_tag(content=axe_source)
    violations = [violation for violation in page.evaluate(RUN_AXE, WCAG2_A_AA) if violation["impact"] in BLOCKING]
    page.close()
    assert not violations, report(path, mode, violations)


def test_axe_reports_what_it_should(reader, base_url, axe_source):
    """The check can fail: a page given pale text and an unlabelled image has serious violations."""
    page = load(reader("light").new_page(), f"{base_url}/{PAGES[0]}")
    page.evaluate("""() => {
        const paragraph = document.querySelector('article.bd-article p');
        paragraph.style.color = '#c8c8c8';
        const image = document.createElement('img');
        image.src = '../_static/favicon.svg';
        paragraph.after(image);
    }""")
    page.add_script_tag(content=axe_source)
    violations = {violation["id"]: violation for violation in page.evaluate(RUN_AXE, WCAG2_A_AA)}
    page.close()
    assert {"color-contrast", "image-alt"} <= set(violations)
    assert all(node["inContent"] for node in violations["image-alt"]["nodes"])
    assert "in the page's own text" in report(PAGES[0], "light", [violations["image-alt"]])
