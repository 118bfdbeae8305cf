"""The two layouts drawn side by side (companion.book.layout_plots)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion import layout_permutation, sinusoidal_encoding
from companion.book.layout_plots import column_labels, plot_layouts


@pytest.mark.parametrize("d_model", [2, 8, 16])
def test_the_labels_follow_the_permutation_between_the_layouts(d_model):
    interleaved, concatenated = column_labels(d_model), column_labels(d_model, "concatenated")
    order = layout_permutation(d_model, "interleaved", "concatenated")
    assert concatenated == [interleaved[column] for column in order]
    assert interleaved[:2] == ["sin 0", "cos 0"] and concatenated[d_model // 2] == "cos 0"


def test_each_panel_is_its_layouts_table_with_its_labels():
    left, right = plot_layouts(12, 8)
    try:
        for ax, layout in [(left, "interleaved"), (right, "concatenated")]:
            table = sinusoidal_encoding(np.arange(12), 8, layout=layout)
            np.testing.assert_array_equal(ax.images[0].get_array(), table)
            assert [label.get_text() for label in ax.get_xticklabels()] == column_labels(8, layout)
    finally:
        plt.close(left.figure)


def test_the_layouts_hold_the_same_numbers_in_another_order():
    left, right = plot_layouts(10, 16)
    try:
        order = layout_permutation(16, "interleaved", "concatenated")
        np.testing.assert_array_equal(left.images[0].get_array()[:, order], right.images[0].get_array())
    finally:
        plt.close(left.figure)


@pytest.mark.parametrize(("args", "error", "message"), [((0, 8), ValueError, "seq_len must be a positive"),
                                                         ((4, 7), ValueError, "d_model must be a positive even"),
                                                         ((4.0, 8), TypeError, "seq_len")])
def test_plot_layouts_checks_its_arguments(args, error, message):
    with pytest.raises(error, match=message):
        plot_layouts(*args)


def test_column_labels_refuses_an_unknown_layout():
    with pytest.raises(ValueError, match="layout"):
        column_labels(8, "stacked")
