"""Figures stay legible in dark mode: each sits on a light card that stands out from the dark page.

Matplotlib draws black text on a white (or transparent) canvas. In dark mode the book puts every
figure of the content on a white card (book/_static/figures.css), dimmed with the image by the
theme. Each figure is measured as rendered, from a screenshot: the card (its padding) and the
canvas's corner must be light enough for black text (WCAG's 4.5:1 for text) and the card must stand
out from the page's background (3:1, WCAG's contrast for the edges of graphics).
"""

import base64
import io

import pytest
from bs4 import BeautifulSoup
from PIL import Image, ImageDraw

from .conftest import book_pages, load

CHAPTERS = [page for page in book_pages() if page.startswith("notebooks/")]
# An explorable figure's stand-in is hidden once its chart is drawn (on its own card: test_explorables.py).
FIGURES = ("main figure img:not(.pe-explorable-stand-in), "
           "main div.cell_output img:not(.pe-explorable-stand-in)")
BLACK = (0, 0, 0)


def luminance(rgb):
    def channel(value):
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4
    red, green, blue = (channel(value) for value in rgb[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first, second):
    """WCAG 2's contrast ratio of two colours, from 1 to 21."""
    darker, lighter = sorted([luminance(first), luminance(second)])
    return (lighter + 0.05) / (darker + 0.05)


def rendered_figures(page):
    """For each figure image: its card's colour and its canvas's corner colour as drawn, and the page's."""
    page_colour = page.evaluate("""() => getComputedStyle(document.body).backgroundColor
        .match(/\\d+/g).slice(0, 3).map(Number)""")
    # Figures inside collapsed solutions are measured too, opened as a reader would open them
    # (sphinx-togglebutton opens every toggle before printing; <details> open by hand).
    page.evaluate("""() => { window.dispatchEvent(new Event('beforeprint'));
        document.querySelectorAll('details').forEach(details => { details.open = true; }); }""")
    measured = []
    for index in range(page.locator(FIGURES).count()):
        image = page.locator(FIGURES).nth(index)
        image.scroll_into_view_if_needed()
        padding = image.evaluate("image => parseFloat(getComputedStyle(image).paddingLeft)")
        shot = Image.open(io.BytesIO(image.screenshot(animations="disabled"))).convert("RGB")
        inset = round(padding) + 3  # inside the canvas, past the card
        measured.append({"src": image.get_attribute("src"), "padding": padding, "page": tuple(page_colour),
                         "card": shot.getpixel((2, shot.height // 2)) if padding >= 4 else None,
                         "canvas": shot.getpixel((inset, inset))})
    return measured


def illegible(figure):
    problems = []
    if figure["card"] is None:
        problems.append(f"no card: padding {figure['padding']} px")
    elif contrast(figure["card"], figure["page"]) < 3:
        problems.append(f"card {figure['card']} does not stand out from the page {figure['page']}")
    for part in ("card", "canvas"):
        if figure[part] is not None and contrast(figure[part], BLACK) < 4.5:
            problems.append(f"{part} {figure[part]} too dark for the figure's black text")
    return problems


@pytest.mark.parametrize("path", CHAPTERS)
def test_every_figure_sits_on_a_light_card_in_dark_mode(reader, base_url, path):
    page = load(reader("dark").new_page(), f"{base_url}/{path}")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    figures = rendered_figures(page)
    page.close()
    assert {figure["src"]: problems for figure in figures if (problems := illegible(figure))} == {}


def transparent_figure_png():
    """A figure as matplotlib saves it with a transparent canvas: black strokes on nothing."""
    image = Image.new("RGBA", (400, 300), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.line([(40, 260), (360, 40)], fill=(0, 0, 0, 255), width=3)
    draw.text((150, 270), "position", fill=(0, 0, 0, 255))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def test_a_figure_with_a_transparent_canvas_is_legible_only_on_the_card(reader, base_url, site):
    """The check can fail: without the card, a transparent figure's black text is drawn on the dark page."""
    with_a_figure = next(path for path in CHAPTERS
                         if BeautifulSoup((site / path).read_text(), "html.parser").select(FIGURES))
    page = load(reader("dark").new_page(), f"{base_url}/{with_a_figure}")
    page.locator(FIGURES).first.evaluate("(image, source) => { image.srcset = ''; image.src = source; }",
                                         transparent_figure_png())
    page.wait_for_function("image => image.complete && image.naturalWidth === 400",
                           arg=page.locator(FIGURES).first.element_handle())
    on_the_card = rendered_figures(page)[0]
    page.add_style_tag(content="html[data-theme='dark'] .bd-content img { background: none !important; "
                               "padding: 0 !important; }")
    without_the_card = rendered_figures(page)[0]
    page.close()
    assert illegible(on_the_card) == []
    assert any("too dark" in problem for problem in illegible(without_the_card)), without_the_card
