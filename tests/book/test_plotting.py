import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion import sinusoidal_encoding
from companion.book.plotting import plot_heatmap


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_heatmap_draws_the_table_with_labels_and_colorbar():
    table = sinusoidal_encoding(np.arange(30), 16)
    ax = plot_heatmap(table, first_position=100)
    image = ax.get_images()[0]
    np.testing.assert_array_equal(image.get_array(), table)
    assert image.get_clim() == (-1, 1)
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    colorbar_axes = [other for other in ax.figure.axes if other is not ax]
    assert len(colorbar_axes) == 1 and "value" in colorbar_axes[0].get_ylabel()
    assert ax.get_ylim() == (129.5, 99.5)  # positions run down from first_position


def test_heatmap_uses_the_given_axes():
    _, ax = plt.subplots()
    assert plot_heatmap(np.zeros((3, 4)), ax=ax, title="t") is ax
    assert ax.get_title() == "t"


def test_heatmap_rejects_non_tables():
    with pytest.raises(ValueError, match="table must be 2-D"):
        plot_heatmap(np.zeros(5))


from companion.analysis.distinguishability import nearest_position_distance, offset_distances
from companion.book.plotting import plot_clock, plot_frequencies, plot_nearest_distances, plot_similarity_matrix


def labelled(ax):
    return bool(ax.get_xlabel() and ax.get_ylabel() and ax.get_title())


def test_clock_puts_each_pair_on_the_unit_circle_coloured_by_position():
    table = sinusoidal_encoding(np.arange(100), 18)
    ax = plot_clock(table, pair=8)
    points = ax.collections[0]
    np.testing.assert_allclose(points.get_offsets(), table[:, 16:18])
    np.testing.assert_array_equal(points.get_array(), np.arange(100))
    assert labelled(ax) and ax.get_aspect() == 1.0


def test_frequencies_plot_one_line_per_base():
    ax = plot_frequencies(64, bases=(1e2, 1e4))
    assert [line.get_label() for line in ax.get_lines()] == ["base 1e+02", "base 1e+04"]
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), 10_000.0 ** (-np.arange(0, 64, 2) / 64))
    assert labelled(ax) and ax.get_yscale() == "log" and "radians per position" in ax.get_ylabel()
    assert "positions" in plot_frequencies(64, quantity="wavelength").get_ylabel()


def test_similarity_matrix_is_constant_along_diagonals():
    ax = plot_similarity_matrix(np.arange(40), 16)
    matrix = np.asarray(ax.get_images()[0].get_array())
    np.testing.assert_allclose(np.diag(matrix, 5), matrix[0, 5], atol=1e-12)
    np.testing.assert_allclose(np.diag(matrix), 1.0)
    assert labelled(ax) and "similarity" in ax.figure.axes[-1].get_ylabel()


def test_nearest_distances_plot_marks_collisions_at_the_bottom():
    ax = plot_nearest_distances([16, 64, 256], {"exact": [1.0, 0.5, 0.1], "float16": [1.0, 0.5, 0.0]})
    assert labelled(ax) and len(ax.get_legend().get_texts()) == 2
    collision = ax.get_lines()[-1]
    assert collision.get_marker() == "v" and collision.get_ydata()[0] < 0.1


@pytest.mark.parametrize(
    "call, message",
    [(lambda: plot_clock(np.zeros((3, 4)), pair=2), "pair must index"),
     (lambda: plot_frequencies(8, quantity="period"), "quantity must be"),
     (lambda: plot_nearest_distances([1, 2], {"a": [1.0]}), "has 1 values for 2 lengths")],
)
def test_plot_helpers_reject_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_offset_distances_match_the_table():
    table = sinusoidal_encoding(np.arange(300), 32)
    direct = np.linalg.norm(table[1:] - table[0], axis=1)
    np.testing.assert_allclose(offset_distances(np.arange(1, 300), 32), direct, atol=1e-12)


def test_nearest_distance_rounded_tables_agree_with_exact_where_rounding_is_small():
    exact, offsets = nearest_position_distance([64, 4096], 8)
    rounded, _ = nearest_position_distance([64, 4096], 8, dtype=np.float32)
    np.testing.assert_allclose(rounded, exact, rtol=1e-5)
    assert np.all(offsets >= 1) and exact[1] <= exact[0]


def test_nearest_distance_rejects_short_tables():
    with pytest.raises(ValueError, match="at least 2"):
        nearest_position_distance([1], 8)
