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

from .cards import FIGURES, illegible, rendered_figures
from .conftest import load
from .tour import CHAPTERS, OPEN


@pytest.mark.parametrize("path", CHAPTERS)
def test_every_figure_sits_on_a_light_card_in_dark_mode(tour, path):
    """Each figure of the chapter, folded ones opened as a reader opens them, as tour.py photographed it."""
    record = tour.view("dark")[path]
    assert record["theme"] == "dark"
    assert {figure["src"]: problems for figure in record["cards"] if (problems := illegible(figure))} == {}


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
    page.evaluate(OPEN)
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
