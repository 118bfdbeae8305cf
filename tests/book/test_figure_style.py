"""The book's matplotlib style (companion/book/figures.mplstyle) makes figures whose text is legible
where the book draws them: at least 10 CSS pixels in the desktop column, at least 7 points printed."""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from figure_text import png_size, smallest_text  # noqa: E402

COLUMN_PX, PRINTED_COLUMN_PX = 688, 673  # the desktop column at 1280 px; A4 less 16 mm margins, in CSS px


def drawn(style):
    with plt.style.context(style):
        figure, ax = plt.subplots()
        ax.plot([0, 1, 2], [0, 1, 4], label="a line")
        ax.set(title="A title", xlabel="position p", ylabel="value")
        ax.legend()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", bbox_inches="tight")
        points, pixels, _ = smallest_text(figure, figure.dpi)
        plt.close(figure)
    return pixels, png_size(buffer.getvalue())[0]


def css_px(pixels, width, column):
    return pixels * min(1, column / width)


def test_the_style_loads_by_its_package_name():
    with plt.style.context("companion.book.figures"):
        assert plt.rcParams["font.size"] == 11 and plt.rcParams["xtick.labelsize"] == 10


def test_a_figure_in_the_books_style_is_legible_on_screen_and_on_paper():
    pixels, width = drawn("companion.book.figures")
    assert css_px(pixels, width, COLUMN_PX) >= 10
    assert css_px(pixels, width, PRINTED_COLUMN_PX) * 0.75 >= 7


def test_matplotlibs_defaults_in_a_wide_figure_are_not():
    """The check can fail: twelve inches wide with matplotlib's sizes, the tick labels are drawn too small."""
    pixels, width = drawn({"figure.figsize": (12, 4)})
    assert css_px(pixels, width, COLUMN_PX) < 10


