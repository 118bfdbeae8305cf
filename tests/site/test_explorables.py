"""The explorable figures in a real browser, in their chapters: moved by keyboard, the companion's values, offline.

Each figure is tested on the page of the built book (_build/html) that holds it, as a reader sees it;
the pages are found by scanning the book for the figures (each of the five must appear exactly once).
Each figure's control is operated by keyboard as a reader would (the figure focused, then the Tab key
to its labelled control, then arrow keys); the test asserts that the drawn marks changed and that the
values they were drawn from equal the companion's for the new state. The values are read from Vega's
scenegraph: each drawn item and the datum it was drawn from. The table's cells are computed in the
page by a formula; it is checked against the companion for every combination its controls offer.

Each chapter page is opened once per colour mode and reading width and shared by the tests (a chapter
costs a second or two to load); a test that moves a figure first puts it back in the state the chapter
shows. The figures are moved and checked on a desktop (1280 px) and on a phone (390 px), where each is
drawn narrower, its panels stacked (explorables.js): there too it must fit the screen. axe-core checks
each figure, drawn, with the rest of its page in both colour modes (test_accessibility.py).
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

from .cards import contrast
from .conftest import ROOT, explorable_figures

# Values are stored rounded to 7 decimals: within float32's resolution of numbers up to 1.
FLOAT32 = 1e-7
#: The figures these tests know, by name (``usermeta.explorable``).
NAMES = ("clocks", "table", "similarity", "rotation", "look_back")
#: The figures' sizes as the chapters draw them (the controls' states are read from the page).
CLOCKS_D_MODEL = 16  # chapter 2
ROTATION_D_MODEL, ROTATION_POSITION = 8, 3  # chapter 5

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
    const container = document.querySelector(`.pe-explorable[data-explorable="${figure}"]`);
    const view = container.peUnpainted || container.peView;
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
    const container = document.querySelector(`.pe-explorable[data-explorable="${figure}"]`);
    const view = container.peUnpainted || container.peView;
    if (value === null) return view.signal(name);
    return view.signal(name, value).runAsync().then(() => view.signal(name));
}"""
SETTLE = """async figure => {
    await document.querySelector(`.pe-explorable[data-explorable="${figure}"]`).peView.runAsync();
}"""


# The figure's parameters as its specification declares them (name, initial value, control).
PARAMS = """figure => JSON.parse(document.querySelector(
    `.pe-explorable[data-explorable="${figure}"] script.pe-explorable-spec`).textContent).params"""
# An unpainted twin of the figure's view: the same specification, compiled and run by the page's own
# Vega-Lite and Vega, its marks laid out in a scenegraph but not painted (renderer "none"); FIELDS and
# SIGNAL read it instead of the drawn view until UNPAINTED_END. Painting the table's 6,400 cells is
# most of the cost of a state (about 2 s of 2.2 s), and the formula is what is checked for every state.
UNPAINTED = """async figure => {
    const container = document.querySelector(`.pe-explorable[data-explorable="${figure}"]`);
    const spec = JSON.parse(container.querySelector('script.pe-explorable-spec').textContent);
    container.peUnpainted = new vega.View(vega.parse(vegaLite.compile(spec).spec), {renderer: 'none'});
    await container.peUnpainted.runAsync();
}"""
UNPAINTED_END = """figure => {
    const container = document.querySelector(`.pe-explorable[data-explorable="${figure}"]`);
    container.peUnpainted.finalize();
    delete container.peUnpainted;
}"""
# Put every control of the figure back to its initial value (the state the chapter shows).
RESET = """async figure => {
    const container = document.querySelector(`.pe-explorable[data-explorable="${figure}"]`);
    const view = container.peView;
    for (const param of JSON.parse(container.querySelector('script.pe-explorable-spec').textContent).params) {
        if (param.bind && view.signal(param.name) !== param.value) view.signal(param.name, param.value);
    }
    await view.runAsync();
}"""


#: The reading widths, in CSS pixels: a desktop's window, a phone's screen.
DESKTOP, PHONE = 1280, 390


class Chapters:
    """The book's pages that hold the figures, each opened once per colour mode and width and shared by the tests.

    Every opened page records what went wrong on it (a console error, an uncaught exception, a
    request to another host); `problems(figure, mode)` reads that record.
    """

    def __init__(self, reader, browser, base_url, pages):
        self.reader, self.base_url, self.pages = reader, base_url, pages
        self.phone = browser.new_context(viewport={"width": PHONE, "height": 800}, color_scheme="light")
        self.phone.add_init_script("localStorage.setItem('mode', 'light'); localStorage.setItem('theme', 'light');")
        self.opened = {}

    def url(self, figure):
        return f"{self.base_url}/{self.pages[figure]}"

    def page(self, figure, mode="light", width=DESKTOP):
        """The page that holds `figure`, in colour mode `mode` (a phone's pages are light) at `width`, with
        every figure drawn.

        The first call in a mode opens every page that holds a figure, loading them side by side (each
        load ends with half a second without network requests)."""
        key = mode if width == DESKTOP else f"{mode}-{width}"
        if (self.pages[figure], key) not in self.opened:
            loading = []
            for path in sorted(set(self.pages.values())):
                page = (self.reader(mode) if width == DESKTOP else self.phone).new_page()
                problems = []
                page.on("console", lambda message, problems=problems: message.type == "error"
                        and problems.append(f"console: {message.text}"))
                page.on("pageerror", lambda error, problems=problems: problems.append(f"page error: {error}"))
                page.on("request", lambda request, problems=problems: urlparse(request.url).hostname
                        not in (None, "127.0.0.1") and not request.url.startswith("data:")
                        and problems.append(f"request to another host: {request.url}"))
                page.goto(f"{self.base_url}/{path}", wait_until="commit")
                loading.append(page)
                self.opened[(path, key)] = page, problems
            for page in loading:
                page.wait_for_load_state("networkidle")
                page.evaluate("window.peExplorables.embedAll().then(() => true)")
        return self.opened[(self.pages[figure], key)][0]

    def problems(self, figure, mode="light", width=DESKTOP):
        key = mode if width == DESKTOP else f"{mode}-{width}"
        return self.opened[(self.pages[figure], key)][1]

    def close(self):
        for page, _ in self.opened.values():
            page.close()
        self.phone.close()


@pytest.fixture(scope="module")
def figure_pages(site):
    """Each figure's page, found in the built book; each of the five appears once, on one page."""
    found = explorable_figures(site)
    assert {name: len(pages) for name, pages in found.items()} == {name: 1 for name in NAMES}, found
    return {name: pages[0] for name, pages in found.items()}


@pytest.fixture(scope="module")
def chapters(reader, browser, base_url, figure_pages):
    opened = Chapters(reader, browser, base_url, figure_pages)
    yield opened
    opened.close()


def _shown(chapters, width):
    used = []

    def page_of(figure):
        page = chapters.page(figure, width=width)
        page.bring_to_front()  # the reader's tab: keyboard focus, painting
        page.evaluate(RESET, figure)
        used.append(figure)
        return page

    yield page_of
    problems = {figure: chapters.problems(figure, width=width) for figure in used}
    assert problems == {figure: [] for figure in used}


@pytest.fixture
def light(chapters):
    """`light(figure)`: the page holding `figure` in light mode on a desktop, the figure back in the chapter's
    state; at the end of the test, nothing went wrong on any page the test used."""
    yield from _shown(chapters, DESKTOP)


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def shown(chapters, request):
    """As `light`, on a desktop and on a phone: the figures are moved and checked at both widths."""
    yield from _shown(chapters, request.param)


def marks(page, figure, name):
    return page.evaluate(MARKS, [figure, name])


def signal(page, figure, name):
    return page.evaluate(SIGNAL, [figure, name, None])


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


def test_each_figure_is_in_the_book_once(figure_pages):
    assert sorted(figure_pages) == sorted(NAMES)
    assert all(page.startswith("notebooks/") for page in figure_pages.values()), figure_pages


def test_every_figure_is_drawn_with_its_labelled_controls(shown):
    figures = {}
    for name in NAMES:
        figures[name] = shown(name).evaluate("""name => {
            const container = document.querySelector(`.pe-explorable[data-explorable="${name}"]`);
            return {live: container.classList.contains('pe-explorable-is-live'),
                standInShown: getComputedStyle(container.querySelector('.pe-explorable-stand-in')).display !== 'none',
                svg: !!container.querySelector('.pe-explorable-live svg'),
                label: container.querySelector('.pe-explorable-live').getAttribute('aria-label'),
                controls: [...container.querySelectorAll('.vega-bind')].map(bind => ({
                    label: bind.querySelector('.vega-bind-name').textContent.trim(),
                    input: bind.querySelector('input, select').tagName.toLowerCase(),
                    named: bind.querySelector('input, select').closest('label') !== null}))};
        }""", name)
    labels = {name: [control["label"] for control in figure["controls"]] for name, figure in figures.items()}
    assert labels == {"clocks": ["position p"], "table": ["d_model", "base"], "similarity": ["d_model", "base"],
                      "rotation": ["offset k"], "look_back": ["offset k (how far back the head looks)"]}
    for figure in figures.values():
        assert figure["live"] and figure["svg"] and not figure["standInShown"], figure
        assert figure["label"] and all(control["named"] for control in figure["controls"]), figure


def test_clocks_turn_with_the_position(shown):
    page = shown("clocks")
    start = signal(page, "clocks", "p")
    before = marks(page, "clocks", "hand_0")
    press(page, "clocks", "position p", "ArrowRight", times=5)
    position = signal(page, "clocks", "p")
    assert position == start + 5
    row = sinusoidal_encoding([position], CLOCKS_D_MODEL)[0]
    hands = [marks(page, "clocks", f"hand_{pair}") for pair in range(CLOCKS_D_MODEL // 2)]
    assert all(len(hand) == 1 and hand[0]["position"] == position for hand in hands)
    drawn = np.array([[hand[0]["sine"], hand[0]["cosine"]] for hand in hands]).ravel()
    np.testing.assert_allclose(drawn, row, rtol=0, atol=FLOAT32)
    bars = sorted(marks(page, "clocks", "vector"), key=lambda bar: bar["column"])
    np.testing.assert_allclose([bar["value"] for bar in bars], row, rtol=0, atol=FLOAT32)
    assert (hands[0][0]["_x"], hands[0][0]["_y"]) != (before[0]["_x"], before[0]["_y"])  # the hand moved


def next_option(page, figure, name, step=1):
    """The option of `figure`'s select `name` that `step` presses of ArrowDown (or ArrowUp, -1) choose."""
    options = params(page, figure)[name]["bind"]["options"]
    chosen = options.index(signal(page, figure, name)) + step
    assert 0 <= chosen < len(options), f"the chapter's {name} of {figure} is the last option that way"
    return options[chosen]


def params(page, figure):
    return {param["name"]: param for param in page.evaluate(PARAMS, figure)}


def test_the_table_follows_d_model_and_base(shown):
    page = shown("table")
    before = page.evaluate(FIELDS, ["table", "image", ["position"]])
    # The narrower width: fewer cells to redraw (the formula is checked for every width below).
    narrower, smaller_base = next_option(page, "table", "d_model", -1), next_option(page, "table", "base", -1)
    press(page, "table", "d_model", "ArrowUp")
    assert signal(page, "table", "d_model") == narrower
    after = page.evaluate(FIELDS, ["table", "image", ["position", "column", "value"]])
    seq_len = max(before) + 1
    assert len(before) == seq_len * params(page, "table")["d_model"]["value"] and len(after) == 3 * seq_len * narrower
    cells = np.reshape(after, (-1, 3))
    drawn = np.full((seq_len, narrower), np.nan)
    drawn[cells[:, 0].astype(int), cells[:, 1].astype(int)] = cells[:, 2]
    base = signal(page, "table", "base")
    np.testing.assert_allclose(drawn, sinusoidal_encoding(np.arange(seq_len), narrower, base=base),
                               rtol=0, atol=FLOAT32)
    colours = page.evaluate(FILLS, ["table", "image"])
    press(page, "table", "base", "ArrowUp")
    assert signal(page, "table", "base") == smaller_base
    assert page.evaluate(FILLS, ["table", "image"]) != colours  # redrawn in other colours


def test_the_tables_formula_matches_the_companion_for_every_choice(light):
    """The page computes the table (and the waves) itself: every state its controls offer is checked,
    on an unpainted twin of the figure's view (the drawn view is checked by the test above, and the
    twin must agree with it in the chapter's state)."""
    page = light("table")
    options = {name: param["bind"]["options"] for name, param in params(page, "table").items()}
    drawn_cells = page.evaluate(FIELDS, ["table", "image", ["position", "column", "value"]])
    seq_len = max(drawn_cells[0::3]) + 1
    page.evaluate(UNPAINTED, "table")
    try:
        assert page.evaluate(FIELDS, ["table", "image", ["position", "column", "value"]]) == drawn_cells
        for d_model in options["d_model"]:
            page.evaluate(SIGNAL, ["table", "d_model", d_model])
            for base in options["base"]:
                page.evaluate(SIGNAL, ["table", "base", base])
                cells = np.reshape(page.evaluate(FIELDS, ["table", "image", ["position", "column", "value"]]), (-1, 3))
                drawn = np.full((seq_len, d_model), np.nan)
                drawn[cells[:, 0].astype(int), cells[:, 1].astype(int)] = cells[:, 2]
                expected = sinusoidal_encoding(np.arange(seq_len), d_model, base=base)
                np.testing.assert_allclose(drawn, expected, rtol=0, atol=FLOAT32,
                                           err_msg=f"d_model {d_model}, base {base}")
                waves = np.reshape(page.evaluate(FIELDS, ["table", "waves", ["position", "pair", "value"]]), (-1, 3))
                assert set(waves[:, 1]) == set(column_pairs(d_model))
                omega = base ** (-2 * waves[:, 1] / d_model)
                np.testing.assert_allclose(waves[:, 2], np.sin(omega * waves[:, 0]), rtol=0, atol=FLOAT32)
    finally:
        page.evaluate(UNPAINTED_END, "table")


def test_similarity_follows_the_base(shown):
    page = shown("similarity")
    before = marks(page, "similarity", "trend")
    larger_base = next_option(page, "similarity", "base")
    press(page, "similarity", "base", "ArrowDown")
    assert signal(page, "similarity", "base") == larger_base
    curves = similarity_curves(signal(page, "similarity", "d_model"), float(larger_base))
    line = marks(page, "similarity", "similarity")
    np.testing.assert_array_equal([point["offset"] for point in line], curves["offsets"])
    np.testing.assert_allclose([point["similarity"] for point in line], curves["similarity"], rtol=0, atol=FLOAT32)
    band = marks(page, "similarity", "band")
    np.testing.assert_allclose([point["low"] for point in band], curves["low"], rtol=0, atol=FLOAT32)
    np.testing.assert_allclose([point["high"] for point in band], curves["high"], rtol=0, atol=FLOAT32)
    trend = marks(page, "similarity", "trend")
    np.testing.assert_allclose([point["trend"] for point in trend], curves["trend"], rtol=0, atol=FLOAT32)
    assert [point["_y"] for point in trend] != [point["_y"] for point in before]  # the trend law moved
    crossings = {point["crossing"]: point["offset"] for point in marks(page, "similarity", "crossings")}
    assert crossings == {"half": curves["half"], "zero": curves["zero"]}


def test_the_rotation_lands_on_the_shifted_encoding(shown):
    page = shown("rotation")
    start = signal(page, "rotation", "k")
    before = marks(page, "rotation", "rotated_0")
    press(page, "rotation", "offset k", "ArrowRight", times=3)
    offset = signal(page, "rotation", "k")
    assert offset == start + 3
    rotated_by_companion = (rotation_matrix(offset, ROTATION_D_MODEL)
                            @ sinusoidal_encoding([ROTATION_POSITION], ROTATION_D_MODEL)[0])
    shifted_by_companion = sinusoidal_encoding([ROTATION_POSITION + offset], ROTATION_D_MODEL)[0]
    for pair in range(ROTATION_D_MODEL // 2):
        (rotated,) = marks(page, "rotation", f"rotated_{pair}")
        (shifted,) = marks(page, "rotation", f"shifted_{pair}")
        np.testing.assert_allclose([rotated["rotated_sine"], rotated["rotated_cosine"]],
                                   rotated_by_companion[2 * pair: 2 * pair + 2], rtol=0, atol=FLOAT32)
        np.testing.assert_allclose([shifted["shifted_sine"], shifted["shifted_cosine"]],
                                   shifted_by_companion[2 * pair: 2 * pair + 2], rtol=0, atol=FLOAT32)
        assert abs(rotated["_x"] - shifted["_x"]) < 0.01 and abs(rotated["_y"] - shifted["_y"]) < 0.01  # lands on it
    (moved,) = marks(page, "rotation", "rotated_0")
    assert (before[0]["_x"], before[0]["_y"]) != (moved["_x"], moved["_y"])  # pair 0's point was redrawn elsewhere


def test_the_head_looks_back_by_the_chosen_offset(shown):
    page = shown("look_back")
    start = signal(page, "look_back", "k")
    before = {(cell["query"], cell["key"]): cell["_fill"] for cell in marks(page, "look_back", "attention")}
    press(page, "look_back", "offset k (how far back the head looks)", "ArrowRight")
    offset = signal(page, "look_back", "k")
    assert offset == start + 1
    cells = marks(page, "look_back", "attention")
    seq_len = max(cell["query"] for cell in cells) + 1
    (expected,) = look_back_maps([offset], seq_len=seq_len)
    drawn = np.zeros_like(expected)
    for cell in cells:
        drawn[cell["query"], cell["key"]] = cell["weight"]
    np.testing.assert_allclose(drawn, expected, rtol=0, atol=FLOAT32)
    assert np.array_equal(drawn[offset:].argmax(axis=1), np.arange(offset, seq_len) - offset)
    assert {(cell["query"], cell["key"]): cell["_fill"] for cell in cells} != before


def test_on_a_phone_every_figure_fits_the_screen_and_its_controls_are_reachable(chapters):
    """At 390 px each figure is drawn within the column (its panels stacked), no wider than the screen, with
    nothing to scroll sideways, and each control lies within the screen."""
    fitted = {}
    for name in NAMES:
        page = chapters.page(name, width=PHONE)
        fitted[name] = page.evaluate("""name => {
            const figure = document.querySelector(`.pe-explorable[data-explorable="${name}"]`);
            const live = figure.querySelector('.pe-explorable-live');
            const svg = live.querySelector('svg').getBoundingClientRect();
            return {viewport: window.innerWidth, page: document.documentElement.scrollWidth,
                    figure: figure.getBoundingClientRect().right, drawn: svg.right, left: svg.left,
                    scrolls: live.scrollWidth > live.clientWidth + 1, narrowed: figure.dataset.narrowed,
                    controls: [...figure.querySelectorAll('.vega-bind input, .vega-bind select')]
                        .map(input => input.getBoundingClientRect().right)};
        }""", name)
    for name, figure in fitted.items():
        assert figure["page"] <= PHONE and figure["figure"] <= PHONE and figure["left"] >= 0, (name, figure)
        assert figure["drawn"] <= figure["figure"] + 1 and not figure["scrolls"], (name, figure)
        assert figure["controls"] and max(figure["controls"]) <= PHONE, (name, figure)
    assert all(figure["narrowed"] == "true" for figure in fitted.values()), fitted
    assert all(chapters.problems(name, width=PHONE) == [] for name in NAMES)


def test_in_dark_mode_each_figure_sits_on_a_light_card(chapters):
    for name in NAMES:
        page = chapters.page(name, "dark")
        page.bring_to_front()  # a page in the background is painted (and so photographed) only after a delay
        background = tuple(page.evaluate(
            "() => getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number)"))[:3]
        figure = page.locator(f'.pe-explorable[data-explorable="{name}"]')
        figure.scroll_into_view_if_needed()
        shot = Image.open(io.BytesIO(figure.screenshot())).convert("RGB")
        card = shot.getpixel((2, shot.height // 2))
        assert contrast(card, (0, 0, 0)) >= 15 and contrast(card, background) >= 3, (name, card, background)
        # The whole chart fits on its card: nothing cut off at its right edge, no scrolling to see it.
        assert figure.locator(".pe-explorable-live").evaluate("live => live.scrollWidth <= live.clientWidth"), name
        assert chapters.problems(name, "dark") == []


def test_print_and_readers_without_javascript_see_the_stand_ins(browser, chapters):
    shown = """() => [...document.querySelectorAll('.pe-explorable')].map(container => {
        const image = container.querySelector('.pe-explorable-stand-in');
        const live = container.querySelector('.pe-explorable-live');
        return {alt: image.alt.length, loaded: image.complete && image.naturalWidth > 0,
                image: image.getBoundingClientRect().height > 100,
                chart: !!live && live.getBoundingClientRect().height > 0};
    })"""
    on_paper, static = [], []
    holding = {chapters.url(name): name for name in NAMES}  # each page, by one of its figures
    for name in holding.values():
        printed = chapters.page(name)
        printed.emulate_media(media="print")
        on_paper += printed.evaluate(shown)
        printed.emulate_media(media="screen")
    without_scripts = browser.new_context(java_script_enabled=False)
    pages = [without_scripts.new_page() for _ in holding]
    for page, url in zip(pages, holding):  # loaded side by side: no script runs, nothing is slowed
        page.goto(url, wait_until="commit")
    for page in pages:
        page.wait_for_load_state("load")
        static += page.evaluate(shown)
    without_scripts.close()
    for states in (on_paper, static):
        assert len(states) == len(NAMES)
        assert all(state["alt"] > 100 and state["loaded"] and state["image"] and not state["chart"]
                   for state in states), states


def test_vega_is_loaded_once_per_page_and_never_copied_into_an_output(light, site):
    libraries = {name: (site / "_static" / "vega" / name).read_text() for name in
                 ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js")}
    for name in NAMES:
        page = light(name)
        scripts = page.evaluate("() => [...document.scripts].map(script => script.getAttribute('src') || '')")
        for library in (*libraries, "explorables.js"):
            assert sum(source.split("?")[0].endswith(f"_static/{'vega/' if 'vega' in library else ''}{library}")
                       for source in scripts) == 1, (name, library)
        served = page.evaluate("() => fetch(location.href).then(response => response.text())")
        # No output inlines a library: no stretch of its code is in the page as served.
        for library, code in libraries.items():
            middle = len(code) // 2
            assert code[middle: middle + 200] not in served, (name, library)


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
