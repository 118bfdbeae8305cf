"""axe-core (npm, pinned in package-lock.json), as the browser tests run it: WCAG 2 A and AA, serious or critical."""

from headless_chromium import SETTLED

from .conftest import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.0, 2.1 and 2.2, levels A and AA: axe-core's tags for them.
WCAG2_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = {"serious", "critical"}

# Every violation of the page (or of the elements `selector` matches), each node with where it lies.
RUN_AXE = """async ([selector, tags]) => {
    const context = selector ? {include: [...document.querySelectorAll(selector)]} : document;
    const results = await axe.run(context, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
    return results.violations.map(violation => ({
        id: violation.id, impact: violation.impact, help: violation.help,
        nodes: violation.nodes.map(node => {
            const element = document.querySelector(node.target[0]);
            return {target: node.target.join(' '), html: node.html.slice(0, 160), summary: node.failureSummary,
                    inContent: !!(element && element.closest('article.bd-article'))};
        }),
    }));
}"""


def source() -> str:
    """axe-core's script, or a message naming the fix if npm has not installed it."""
    if not AXE.is_file():
        raise FileNotFoundError("axe-core is not installed: run `npm ci` (the Makefile's `make test` does)")
    return AXE.read_text()


def blocking_violations(page, selector: str | None = None) -> list[dict]:
    """The serious and critical violations axe-core finds on `page` (its script injected once), once what is
    moving on it has been brought to rest (a solution fading in has, for 0.3 s, text paler than its own colour)."""
    page.bring_to_front()  # a page in the background has its timers slowed, and axe-core with them
    page.evaluate(SETTLED)
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=source())
    return [violation for violation in page.evaluate(RUN_AXE, [selector, WCAG2_A_AA])
            if violation["impact"] in BLOCKING]


def report(path, mode, violations) -> str:
    """The violations, each node with where its fix belongs: the page's own source, or the book's frame."""
    lines = [f"{path} in {mode} mode: {len(violations)} serious or critical WCAG 2 A/AA violations"]
    for violation in violations:
        lines.append(f"- {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            where = ("in the page's own text: fix its source (the notebook or markdown page)" if node["inContent"]
                     else "in the theme's frame: fix book/_static, book/_templates, book/_ext or _config.yml")
            lines.append(f"    {node['target']} {where}\n      {node['html']}\n      {node['summary']}")
    return "\n".join(lines)
