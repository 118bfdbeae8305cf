"""The explorable figures in a real browser: moved by keyboard, drawing the companion's values, offline.

Each figure's control is operated by keyboard as a reader would (focused by its visible label, then
arrow keys); the test asserts that the drawn marks changed and that the values they were drawn from
equal the companion's for the new state. The values are read from Vega's scenegraph: each drawn item
and the datum it was drawn from. The table's cells are computed in the page by a formula; it is
checked against the companion for every combination its controls offer. The page is the figures'
test page (tests/site/explorables_book.py), built with the book's configuration and static files.
"""

from __future__ import annotations

import io
from urllib.parse import urlparse

import numpy as np
import pytest
from PIL import Image

from companion import sinusoidal_encoding
from companion.analysis.linearity import rotation_matrix
from companion.book.explorables.attention import look_back_maps
from companion.book.explorables.similarity import similarity_curves
from companion.book.explorables.table import column_pairs

from .conftest import ROOT
from .explorables_book import FIGURES
from .test_dark_mode_figures import contrast

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG2_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# Values are stored rounded to 7 decimals: within float32's resolution of numbers up to 1.
FLOAT32 = 1e-7

# Every drawn item of the marks named `name` (Vega-Lite's `name` + "_marks"), with the datum it was drawn from.
MARKS = """([figure, name]) => {
    const view = document.querySelector(`.pe-explorable[data-explorable="${figure}"]`).peView;
    const found = [];
    const walk = node => {
        if (!node) return;
        if (node.marktype && node.name === name + '_marks') {
            for (const item of node.items) found.push({...item.datum, _x: item.x, _y: item.y, _x2: item.x2, _y2: item.y2,
                                                       _fill: item.fill || null});
        }
        for (const child of node.items || []) walk(child);
    };
    walk(view.scenegraph().root);
    return found;
}"""
# The same, as one flat array of the named fields per drawn item (lighter, for many states).
FIELDS = """([figure, name, fields]) => {
    const view = document.querySelector(`.pe-explorable[data-explorable="${figure}"]`).peView;
    const found = [];
    const walk = node => {
        if (!node) return;
        if (node.marktype && node.name === name + '_marks') {
            for (const item of node.items) for (const field of fields) found.push(item.datum[field]);
        }
        for (const child of node.items || []) walk(child);
    };
    walk(view.scenegraph().root);
    return found;
}"""
# The colour each drawn item is filled with.
FILLS = FIELDS.replace("item.datum[field]", "item[field]").replace("([figure, name, fields])", "([figure, name])").replace(
    "for (const field of fields) ", "for (const field of ['fill']) ")
SIGNAL = """([figure, name, value]) => {
    const view = document.querySelector(`.pe-explorable[data-explorable="${figure}"]`).peView;
    if (value === null) return view.signal(name);
    return view.signal(name, value).runAsync().then(() => view.signal(name));
}"""
SETTLE = """async figure => {
    await document.querySelector(`.pe-explorable[data-explorable="${figure}"]`).peView.runAsync();
}"""


def open_figures(context, url):
    """Open the test page and wait until every figure is drawn; return the page and what went wrong."""
    page = context.new_page()
    problems = []
    page.on("console", lambda message: message.type == "error" and problems.append(f"console: {message.text}"))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("request", lambda request: urlparse(request.url).hostname not in (None, "127.0.0.1")
            and not request.url.startswith("data:") and problems.append(f"request to another host: {request.url}"))
    page.goto(url, wait_until="networkidle")
    page.evaluate("window.peExplorables.embedAll().then(() => true)")
    return page, problems


@pytest.fixture
def light_page(reader, explorables_url):
    page, problems = open_figures(reader("light"), explorables_url)
    yield page
    page.close()
    assert problems == []


def marks(page, figure, name):
    return page.evaluate(MARKS, [figure, name])


def control(page, figure, label):
    """The input of `figure` whose visible label reads `label`."""
    bind = f'.pe-explorable[data-explorable="{figure}"] .vega-bind:has(.vega-bind-name:text-is("{label}"))'
    return page.locator(f"{bind} input, {bind} select")


def press(page, figure, label, key, times=1):
    """Reach the control labelled `label` in `figure` with the Tab key, as a keyboard reader does, and press `key`."""
    target = control(page, figure, label)
    target.evaluate("input => input.closest('.pe-explorable').scrollIntoView()")
    # Start from the figure's container, then Tab forward to the control.
    page.locator(f'.pe-explorable[data-explorable="{figure}"]').evaluate(
        "figure => { figure.tabIndex = -1; figure.focus(); }")
    for _ in range(10):
        page.keyboard.press("Tab")
        if target.evaluate("input => input === document.activeElement"):
            break
    else:
        raise AssertionError(f"the control {label!r} of {figure} is not reached with the Tab key")
    for _ in range(times):
        page.keyboard.press(key)
    page.evaluate(SETTLE, figure)


def test_every_figure_is_drawn_with_its_labelled_controls(light_page):
    figures = light_page.evaluate("""() => [...document.querySelectorAll('.pe-explorable')].map(container => ({
        name: container.dataset.explorable, live: container.classList.contains('pe-explorable-is-live'),
        standInShown: getComputedStyle(container.querySelector('.pe-explorable-stand-in')).display !== 'none',
        svg: !!container.querySelector('.pe-explorable-live svg'),
        label: container.querySelector('.pe-explorable-live').getAttribute('aria-label'),
        controls: [...container.querySelectorAll('.vega-bind')].map(bind => ({
            label: bind.querySelector('.vega-bind-name').textContent.trim(),
            input: bind.querySelector('input, select').tagName.toLowerCase(),
            named: bind.querySelector('input, select').closest('label') !== null})),
    }))""")
    assert [figure["name"] for figure in figures] == [name for name, _, _ in FIGURES]
    labels = {figure["name"]: [control["label"] for control in figure["controls"]] for figure in figures}
    assert labels == {"clocks": ["position p"], "table": ["d_model", "base"], "similarity": ["d_model", "base"],
                      "rotation": ["offset k"], "look_back": ["offset k (how far back the head looks)"]}
    for figure in figures:
        assert figure["live"] and figure["svg"] and not figure["standInShown"], figure
        assert figure["label"] and all(control["named"] for control in figure["controls"]), figure


def test_clocks_turn_with_the_position(light_page):
    before = marks(light_page, "clocks", "hand_0")
    press(light_page, "clocks", "position p", "ArrowRight", times=5)
    assert light_page.evaluate(SIGNAL, ["clocks", "p", None]) == 15
    row = sinusoidal_encoding([15], 16)[0]
    hands = [marks(light_page, "clocks", f"hand_{pair}") for pair in range(8)]
    assert all(len(hand) == 1 and hand[0]["position"] == 15 for hand in hands)
    drawn = np.array([[hand[0]["sine"], hand[0]["cosine"]] for hand in hands]).ravel()
    np.testing.assert_allclose(drawn, row, rtol=0, atol=FLOAT32)
    bars = sorted(marks(light_page, "clocks", "vector"), key=lambda bar: bar["column"])
    np.testing.assert_allclose([bar["value"] for bar in bars], row, rtol=0, atol=FLOAT32)
    assert (hands[0][0]["_x"], hands[0][0]["_y"]) != (before[0]["_x"], before[0]["_y"])  # the hand moved


def test_the_table_follows_d_model_and_base(light_page):
    before = light_page.evaluate(FIELDS, ["table", "image", ["position"]])
    press(light_page, "table", "d_model", "ArrowDown")
    assert light_page.evaluate(SIGNAL, ["table", "d_model", None]) == 128
    after = light_page.evaluate(FIELDS, ["table", "image", ["position", "column", "value"]])
    assert len(before) == 50 * 64 and len(after) == 3 * 50 * 128
    cells = np.reshape(after, (-1, 3))
    drawn = np.zeros((50, 128))
    drawn[cells[:, 0].astype(int), cells[:, 1].astype(int)] = cells[:, 2]
    np.testing.assert_allclose(drawn, sinusoidal_encoding(np.arange(50), 128), rtol=0, atol=FLOAT32)
    colours = light_page.evaluate(FILLS, ["table", "image"])
    press(light_page, "table", "base", "ArrowUp")
    assert light_page.evaluate(SIGNAL, ["table", "base", None]) == 1000
    assert light_page.evaluate(FILLS, ["table", "image"]) != colours  # redrawn in other colours


def test_the_tables_formula_matches_the_companion_for_every_choice(light_page):
    """The page computes the table (and the waves) itself: every state its controls offer is checked."""
    spec_params = light_page.evaluate("""() => JSON.parse(document.querySelector(
        '.pe-explorable[data-explorable="table"] script.pe-explorable-spec').textContent).params""")
    options = {param["name"]: param["bind"]["options"] for param in spec_params}
    for d_model in options["d_model"]:
        light_page.evaluate(SIGNAL, ["table", "d_model", d_model])
        for base in options["base"]:
            light_page.evaluate(SIGNAL, ["table", "base", base])
            cells = np.reshape(light_page.evaluate(FIELDS, ["table", "image", ["position", "column", "value"]]), (-1, 3))
            drawn = np.full((50, d_model), np.nan)
            drawn[cells[:, 0].astype(int), cells[:, 1].astype(int)] = cells[:, 2]
            expected = sinusoidal_encoding(np.arange(50), d_model, base=base)
            np.testing.assert_allclose(drawn, expected, rtol=0, atol=FLOAT32, err_msg=f"d_model {d_model}, base {base}")
            waves = np.reshape(light_page.evaluate(FIELDS, ["table", "waves", ["position", "pair", "value"]]), (-1, 3))
            assert set(waves[:, 1]) == set(column_pairs(d_model))
            omega = base ** (-2 * waves[:, 1] / d_model)
            np.testing.assert_allclose(waves[:, 2], np.sin(omega * waves[:, 0]), rtol=0, atol=FLOAT32)


def test_similarity_follows_the_base(light_page):
    before = marks(light_page, "similarity", "trend")
    press(light_page, "similarity", "base", "ArrowDown")
    assert light_page.evaluate(SIGNAL, ["similarity", "base", None]) == 100_000
    curves = similarity_curves(128, 100_000.0)
    line = marks(light_page, "similarity", "similarity")
    np.testing.assert_array_equal([point["offset"] for point in line], curves["offsets"])
    np.testing.assert_allclose([point["similarity"] for point in line], curves["similarity"], rtol=0, atol=FLOAT32)
    band = marks(light_page, "similarity", "band")
    np.testing.assert_allclose([point["low"] for point in band], curves["low"], rtol=0, atol=FLOAT32)
    np.testing.assert_allclose([point["high"] for point in band], curves["high"], rtol=0, atol=FLOAT32)
    trend = marks(light_page, "similarity", "trend")
    np.testing.assert_allclose([point["trend"] for point in trend], curves["trend"], rtol=0, atol=FLOAT32)
    assert [point["_y"] for point in trend] != [point["_y"] for point in before]  # the trend law moved
    crossings = {point["crossing"]: point["offset"] for point in marks(light_page, "similarity", "crossings")}
    assert crossings == {"half": curves["half"], "zero": curves["zero"]}


def test_the_rotation_lands_on_the_shifted_encoding(light_page):
    before = marks(light_page, "rotation", "rotated_0")
    press(light_page, "rotation", "offset k", "ArrowRight", times=3)
    assert light_page.evaluate(SIGNAL, ["rotation", "k", None]) == 8
    rotated_by_companion = rotation_matrix(8, 8) @ sinusoidal_encoding([3], 8)[0]
    shifted_by_companion = sinusoidal_encoding([11], 8)[0]
    for pair in range(4):
        (rotated,) = marks(light_page, "rotation", f"rotated_{pair}")
        (shifted,) = marks(light_page, "rotation", f"shifted_{pair}")
        np.testing.assert_allclose([rotated["rotated_sine"], rotated["rotated_cosine"]],
                                   rotated_by_companion[2 * pair: 2 * pair + 2], rtol=0, atol=FLOAT32)
        np.testing.assert_allclose([shifted["shifted_sine"], shifted["shifted_cosine"]],
                                   shifted_by_companion[2 * pair: 2 * pair + 2], rtol=0, atol=FLOAT32)
        assert abs(rotated["_x"] - shifted["_x"]) < 0.01 and abs(rotated["_y"] - shifted["_y"]) < 0.01  # lands on it
    (moved,) = marks(light_page, "rotation", "rotated_0")
    assert (before[0]["_x"], before[0]["_y"]) != (moved["_x"], moved["_y"])  # pair 0's point was redrawn elsewhere


def test_the_head_looks_back_by_the_chosen_offset(light_page):
    before = {(cell["query"], cell["key"]): cell["_fill"] for cell in marks(light_page, "look_back", "attention")}
    press(light_page, "look_back", "offset k (how far back the head looks)", "ArrowRight")
    assert light_page.evaluate(SIGNAL, ["look_back", "k", None]) == 3
    (expected,) = look_back_maps([3])
    cells = marks(light_page, "look_back", "attention")
    drawn = np.zeros_like(expected)
    for cell in cells:
        drawn[cell["query"], cell["key"]] = cell["weight"]
    np.testing.assert_allclose(drawn, expected, rtol=0, atol=FLOAT32)
    assert np.array_equal(drawn[3:].argmax(axis=1), np.arange(3, 24) - 3)
    assert {(cell["query"], cell["key"]): cell["_fill"] for cell in cells} != before


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_no_serious_or_critical_accessibility_violation(reader, explorables_url, mode):
    page, problems = open_figures(reader(mode), explorables_url)
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    page.add_script_tag(content=AXE.read_text())
    violations = page.evaluate("""async tags => (await axe.run(document, {runOnly: {type: 'tag', values: tags},
        resultTypes: ['violations']})).violations.filter(v => ['serious', 'critical'].includes(v.impact))
        .map(v => `${v.id}: ${v.help} (${v.nodes.map(node => node.target.join(' ')).join('; ')})`)""", WCAG2_A_AA)
    page.close()
    assert problems == [] and violations == []


def test_in_dark_mode_each_figure_sits_on_a_light_card(reader, explorables_url):
    page, problems = open_figures(reader("dark"), explorables_url)
    background = tuple(page.evaluate("() => getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number)"))[:3]
    for name, _, _ in FIGURES:
        figure = page.locator(f'.pe-explorable[data-explorable="{name}"]')
        figure.scroll_into_view_if_needed()
        shot = Image.open(io.BytesIO(figure.screenshot())).convert("RGB")
        card = shot.getpixel((2, shot.height // 2))
        assert contrast(card, (0, 0, 0)) >= 15 and contrast(card, background) >= 3, (name, card, background)
    page.close()
    assert problems == []


def test_print_and_readers_without_javascript_see_the_stand_ins(browser, explorables_url):
    shown = """() => [...document.querySelectorAll('.pe-explorable')].map(container => {
        const image = container.querySelector('.pe-explorable-stand-in'), live = container.querySelector('.pe-explorable-live');
        return {alt: image.alt.length, loaded: image.complete && image.naturalWidth > 0,
                image: image.getBoundingClientRect().height > 100, chart: !!live && live.getBoundingClientRect().height > 0};
    })"""
    printed = browser.new_page()
    printed.goto(explorables_url, wait_until="networkidle")
    printed.evaluate("window.peExplorables.embedAll().then(() => true)")
    printed.emulate_media(media="print")
    on_paper = printed.evaluate(shown)
    printed.close()
    without_scripts = browser.new_context(java_script_enabled=False)
    page = without_scripts.new_page()
    page.goto(explorables_url, wait_until="networkidle")
    static = page.locator(".pe-explorable-stand-in").evaluate_all(
        "images => images.map(image => ({alt: image.alt.length, loaded: image.complete && image.naturalWidth > 0, "
        "image: image.getBoundingClientRect().height > 100, chart: false}))")
    without_scripts.close()
    for states in (on_paper, static):
        assert len(states) == len(FIGURES)
        assert all(state["alt"] > 100 and state["loaded"] and state["image"] and not state["chart"] for state in states), states


def test_vega_is_loaded_once_per_page_and_never_copied_into_an_output(light_page):
    scripts = light_page.evaluate("() => [...document.scripts].map(script => script.getAttribute('src') || '')")
    for library in ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js", "explorables.js"):
        assert sum(source.split("?")[0].endswith(f"_static/{'vega/' if 'vega' in library else ''}{library}")
                   for source in scripts) == 1, library
    served = light_page.evaluate("() => fetch(location.href).then(response => response.text()).then(text => text.length)")
    assert served < 500_000  # the page as served: five figures' data and specifications, no library


def test_in_colab_the_output_draws_itself_in_its_own_sandboxed_frame(browser, tmp_path):
    """Colab shows each output in a sandboxed frame with a network: the output loads Vega from jsDelivr.

    jsDelivr is played here by the npm copies the book serves (the test makes no request to another
    host); the versions are those of package-lock.json (tests/book/test_explorables.py).
    """
    import sys
    import types

    from headless_chromium import serve

    from companion.book.explorables import look_back

    sys.modules["google.colab"] = types.ModuleType("google.colab")
    try:
        html = look_back()._repr_mimebundle_()["text/html"]
    finally:
        del sys.modules["google.colab"]
    (tmp_path / "output.html").write_text(f"<!doctype html><html lang='en'><body>{html}</body></html>")
    (tmp_path / "notebook.html").write_text('<iframe sandbox="allow-scripts" src="output.html" width="900" '
                                            'height="700" title="output"></iframe>')
    context = browser.new_context()
    served = []

    def from_npm(route):
        package = urlparse(route.request.url).path.split("/")[2].split("@")[0]
        served.append(package)
        route.fulfill(path=ROOT / "node_modules" / package / "build" / f"{package}.min.js",
                      content_type="text/javascript")

    context.route("https://cdn.jsdelivr.net/**", from_npm)
    with serve(tmp_path) as url:
        page = context.new_page()
        page.goto(f"{url}/notebook.html")
        frame = page.frame_locator("iframe")
        frame.locator(".pe-explorable.pe-explorable-is-live svg").wait_for(timeout=20_000)
        stand_in = frame.locator(".pe-explorable-stand-in").evaluate("image => getComputedStyle(image).display")
        labels = frame.locator(".vega-bind-name").all_text_contents()
        context.close()
    assert stand_in == "none" and labels == ["offset k (how far back the head looks)"]
    assert served == ["vega", "vega-lite", "vega-embed"]
