"""How the figures of a page are drawn in dark mode: each on a light card (book/_static/figures.css), measured
from a screenshot, and WCAG 2's contrast ratio to judge them."""

import io

from PIL import Image

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
    """For each figure image of `page` (its folded parts opened first, as a reader opens them): its card's
    colour and its canvas's corner colour as drawn, and the page's."""
    page.bring_to_front()  # a page in the background is painted (and so photographed) only after a delay
    page_colour = page.evaluate("""() => getComputedStyle(document.body).backgroundColor
        .match(/\\d+/g).slice(0, 3).map(Number)""")
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
    """What makes a measured figure hard to read in dark mode: no card, a card lost in the page, a dark canvas."""
    problems = []
    if figure["card"] is None:
        problems.append(f"no card: padding {figure['padding']} px")
    elif contrast(figure["card"], figure["page"]) < 3:
        problems.append(f"card {figure['card']} does not stand out from the page {figure['page']}")
    for part in ("card", "canvas"):
        if figure[part] is not None and contrast(figure[part], BLACK) < 4.5:
            problems.append(f"{part} {figure[part]} too dark for the figure's black text")
    return problems
