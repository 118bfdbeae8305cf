"""The diagram of where the encoding enters the model (companion.book.diagrams)."""

import matplotlib.pyplot as plt
import pytest

from companion.book.diagrams import ENCODING_ENTRY_EDGES, draw_encoding_entry


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def labels_and_arrows(ax):
    labels = {text.get_position(): text.get_text() for text in ax.texts if getattr(text, "arrow_patch", None) is None}
    arrows = [(text.xyann, text.xy) for text in ax.texts if getattr(text, "arrow_patch", None) is not None]
    return labels, arrows


def nearest_label(labels, point):
    return min(labels.items(), key=lambda item: (item[0][0] - point[0]) ** 2 + (item[0][1] - point[1]) ** 2)[1]


def test_the_token_path_reads_left_to_right_in_the_papers_order():
    labels, _ = labels_and_arrows(draw_encoding_entry())
    row = sorted((x, text) for (x, y), text in labels.items() if y == 2.0)
    names = [text for _, text in row]
    assert [index for index, text in enumerate(names) if "embedding" in text] == [1]
    assert "E[w_{pos}]" in names[1]  # the row of the embedding matrix for the token at pos
    assert "sqrt{d_" in names[2] and names[3] == "$+$" and names[4] == "dropout" and "attention" in names[5]


def test_the_arrows_join_the_nodes_as_described_and_the_encoding_enters_the_sum():
    labels, arrows = labels_and_arrows(draw_encoding_entry())
    edges = {(nearest_label(labels, start), nearest_label(labels, end)) for start, end in arrows}
    assert len(arrows) == len(ENCODING_ENTRY_EDGES) == 7
    assert any("PE(pos)" in start and end == "$+$" for start, end in edges)
    assert any("sqrt" in start and end == "$+$" for start, end in edges)
    assert any(start == "$+$" and end == "dropout" for start, end in edges)
    # every arrow runs along a row or a column, and points away from where it starts
    for (x0, y0), (x1, y1) in arrows:
        assert (x0 == x1) != (y0 == y1)


def test_the_diagram_has_a_title_and_no_axes():
    _, ax = plt.subplots()
    assert draw_encoding_entry(ax) is ax
    assert ax.get_title() and not ax.axison and ax.get_aspect() == 1.0


def test_anything_but_axes_is_refused():
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        draw_encoding_entry(ax=plt.figure())
