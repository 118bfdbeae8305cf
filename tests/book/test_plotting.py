import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion import angular_frequencies, sinusoidal_encoding
from companion.analysis.distinguishability import similarity_scales
from companion.book.plotting import (
    plot_angle_map,
    plot_clock,
    plot_columns,
    plot_frequencies,
    plot_frequency_scaling,
    plot_heatmap,
    plot_nearest_distances,
    plot_similarity_by_offset,
    plot_similarity_matrix,
    rows_per_pixel,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def labelled(ax):
    return bool(ax.get_xlabel() and ax.get_ylabel() and ax.get_title())


def line_with_gid(ax, gid):
    (line,) = [line for line in ax.get_lines() if line.get_gid() == gid]
    return line


def test_heatmap_draws_the_table_with_labels_and_colorbar():
    table = sinusoidal_encoding(np.arange(30), 16)
    ax = plot_heatmap(table, first_position=100)
    image = ax.get_images()[0]
    np.testing.assert_array_equal(image.get_array(), table)
    assert image.get_clim() == (-1, 1)
    assert labelled(ax)
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


def test_rows_per_pixel_is_rows_over_the_axes_height_in_pixels():
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    height = ax.get_window_extent().height
    assert height == pytest.approx(5 * 100 * (fig.subplotpars.top - fig.subplotpars.bottom))
    assert rows_per_pixel(ax, 10_000) == pytest.approx(10_000 / height)
    with pytest.raises(ValueError, match="n_rows must be positive"):
        rows_per_pixel(ax, 0)


def test_images_refuse_more_rows_than_pixel_rows():
    """A 10,000-row table in an 8 x 5 inch figure would show one row in 26: refused, unless asked."""
    table = sinusoidal_encoding(np.arange(10_000), 128)
    _, ax = plt.subplots(figsize=(8, 5), dpi=100)
    with pytest.raises(ValueError, match="one row in 26"):
        plot_heatmap(table, ax=ax)
    with pytest.raises(ValueError, match="do not fit"):
        plot_angle_map(np.arange(10_000), 128, ax=ax)
    with pytest.raises(ValueError, match="do not fit"):
        plot_similarity_matrix(np.arange(1_000), 16, ax=ax)
    assert plot_heatmap(table, ax=ax, check_resolution=False).get_images()


def test_angle_map_holds_the_angles_modulo_two_pi_on_a_cyclic_colormap():
    positions = np.arange(5, 105)
    ax = plot_angle_map(positions, 16, base=100.0)
    image = ax.get_images()[0]
    angles = np.asarray(image.get_array())
    expected = np.mod(positions[:, None] * angular_frequencies(16, 100.0), 2 * np.pi)
    np.testing.assert_allclose(angles, expected, atol=1e-12)
    assert angles.min() >= 0 and angles.max() < 2 * np.pi
    assert image.get_cmap().name == "twilight" and image.get_clim() == (0, 2 * np.pi)
    # the angle's sine and cosine are the table's columns
    table = sinusoidal_encoding(positions, 16, base=100.0)
    np.testing.assert_allclose(np.sin(angles), table[:, 0::2], atol=1e-12)
    np.testing.assert_allclose(np.cos(angles), table[:, 1::2], atol=1e-12)
    assert labelled(ax) and ax.get_ylim() == (104.5, 4.5)
    assert "π" in [tick.get_text() for tick in ax.figure.axes[-1].get_yticklabels()]


def test_columns_are_the_tables_sine_columns():
    positions = np.arange(300)
    ax = plot_columns(positions, 64, pairs=[0, 10, 31])
    table = sinusoidal_encoding(positions, 64)
    for line, pair in zip(ax.get_lines(), [0, 10, 31]):
        np.testing.assert_allclose(line.get_ydata(), table[:, 2 * pair], atol=1e-12)
        assert f"column {2 * pair}" in line.get_label()
    assert labelled(ax) and len({line.get_linestyle() for line in ax.get_lines()}) == 3


def test_clock_puts_each_pair_on_the_unit_circle_coloured_by_position():
    table = sinusoidal_encoding(np.arange(100), 18)
    ax = plot_clock(table, pair=8)
    points = ax.collections[0]
    np.testing.assert_allclose(points.get_offsets(), table[:, 16:18])
    np.testing.assert_array_equal(points.get_array(), np.arange(100))
    assert labelled(ax) and ax.get_aspect() == 1.0
    assert ax.get_xlabel().startswith("x: sin") and ax.get_ylabel().startswith("y: cos")


def test_clock_hand_points_at_the_current_position():
    table = sinusoidal_encoding(np.arange(40), 8)
    hand = line_with_gid(plot_clock(table, pair=1), "hand")
    np.testing.assert_allclose(hand.get_xydata(), [[0, 0], table[39, 2:4]])
    hand = line_with_gid(plot_clock(table, pair=1, hand_at=7, first_position=100), "hand")
    np.testing.assert_allclose(hand.get_xydata()[1], table[7, 2:4])
    assert hand.get_label() == "hand at position 107"


def signed_turn(arc):
    """Positive if the arc runs anticlockwise on the page."""
    x, y = arc.get_xdata(), arc.get_ydata()
    return np.sign(x[0] * y[-1] - y[0] * x[-1])


@pytest.mark.parametrize("pair", [0, 2, 5])
def test_clock_arrow_shows_clockwise_with_sine_on_x_and_anticlockwise_with_cosine_on_x(pair):
    table = sinusoidal_encoding(np.arange(60), 12)
    clockwise = plot_clock(table, pair=pair)
    assert signed_turn(line_with_gid(clockwise, "turning direction")) == -1
    anticlockwise = plot_clock(table, pair=pair, sine_on_x=False)
    assert signed_turn(line_with_gid(anticlockwise, "turning direction")) == 1
    np.testing.assert_allclose(anticlockwise.collections[0].get_offsets(), table[:, 2 * pair:2 * pair + 2][:, ::-1])
    assert anticlockwise.get_xlabel().startswith("x: cos")


def test_clock_arrow_starts_at_the_hand():
    table = sinusoidal_encoding(np.arange(30), 8)
    ax = plot_clock(table, pair=0, hand_at=12)
    arc = line_with_gid(ax, "turning direction")
    start = np.array([arc.get_xdata()[0], arc.get_ydata()[0]])
    np.testing.assert_allclose(start / np.linalg.norm(start), table[12, 0:2], atol=1e-12)


def test_frequencies_plot_one_line_per_base():
    ax = plot_frequencies(64, bases=(1e2, 1e4))
    assert [line.get_label() for line in ax.get_lines()] == ["base 100", "base 10,000"]
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), 10_000.0 ** (-np.arange(0, 64, 2) / 64))
    assert labelled(ax) and ax.get_yscale() == "log" and "radians per position" in ax.get_ylabel()
    assert "positions" in plot_frequencies(64, quantity="wavelength").get_ylabel()


def test_wavelength_plot_marks_the_papers_range_and_a_sequence_length():
    ax = plot_frequencies(128, bases=(1e4,), quantity="wavelength", seq_len=512, paper_range=True)
    levels = sorted(line.get_ydata()[0] for line in ax.get_lines()[1:])
    np.testing.assert_allclose(levels, [2 * np.pi, 512, 2 * np.pi * 512, 2 * np.pi * 1e4])
    last = ax.get_lines()[0].get_ydata()[-1]
    assert last == pytest.approx(2 * np.pi * 1e4 ** (126 / 128)) and last < 2 * np.pi * 1e4


def test_similarity_matrix_is_constant_along_diagonals():
    ax = plot_similarity_matrix(np.arange(40), 16)
    matrix = np.asarray(ax.get_images()[0].get_array())
    np.testing.assert_allclose(np.diag(matrix, 5), matrix[0, 5], atol=1e-12)
    np.testing.assert_allclose(np.diag(matrix), 1.0)
    assert labelled(ax) and "similarity" in ax.figure.axes[-1].get_ylabel()


def test_similarity_by_offset_is_the_tables_cosine_similarity_and_marks_its_scales():
    ax = plot_similarity_by_offset(3000, 32, bases=(1e3,))
    curve = ax.get_lines()[0]
    table = sinusoidal_encoding(np.arange(3001), 32, base=1e3)
    direct = table[1:] @ table[0] / 16
    np.testing.assert_allclose(curve.get_ydata(), direct, atol=1e-12)
    half, zero = similarity_scales(32, 1e3)
    markers = {line.get_marker(): line.get_xdata()[0] for line in ax.get_lines()[1:3]}
    assert markers == {"o": half, "s": zero}
    assert direct[half - 1] <= 0.5 < direct[half - 2] and direct[zero - 1] <= 0 < direct[:zero - 1].min()
    assert labelled(ax) and ax.get_xscale() == "log"


def test_frequency_scaling_plots_the_ratio_to_the_original_frequencies():
    omega = angular_frequencies(32)
    ax = plot_frequency_scaling(32, {"a": omega / 4, "b": omega})
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), 0.25)
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), 1.0)
    assert labelled(ax) and ax.get_yscale() == "log"


def test_nearest_distances_plot_marks_and_labels_collisions_at_the_bottom():
    ax = plot_nearest_distances([16, 64, 256], {"exact": [1.0, 0.5, 0.1], "float16": [1.0, 0.5, 0.0]})
    assert labelled(ax)
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert legend == ["exact", "float16", "float16: distance 0 (drawn at the bottom edge)"]
    collision = ax.get_lines()[-1]
    assert collision.get_marker() == "v" and collision.get_ydata()[0] < 0.1
    assert collision.get_xdata()[0] == 256
    assert any("distance 0" in text.get_text() for text in ax.texts)


@pytest.mark.parametrize(
    "call, message",
    [(lambda: plot_clock(np.zeros((3, 4)), pair=2), "pair must index"),
     (lambda: plot_clock(np.zeros((3, 4)), pair=0, hand_at=3), "hand_at must be a row"),
     (lambda: plot_frequencies(8, quantity="period"), "quantity must be"),
     (lambda: plot_frequencies(8, seq_len=10), "use quantity='wavelength'"),
     (lambda: plot_columns(np.arange(5), 8, pairs=[4]), "pairs must be indices"),
     (lambda: plot_columns([], 8, pairs=[0]), "at least one position"),
     (lambda: plot_angle_map([], 8), "at least one position"),
     (lambda: plot_similarity_by_offset(1, 8), "max_offset must be at least 2"),
     (lambda: plot_frequency_scaling(8, {"a": [1.0]}), "one frequency per pair"),
     (lambda: plot_nearest_distances([1, 2], {"a": [1.0]}), "has 1 values for 2 lengths")],
)
def test_plot_helpers_reject_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_frequency_scaling_ticks_count_halvings():
    omega = angular_frequencies(64)
    ax = plot_frequency_scaling(64, {"eight times slower": omega / 8})
    assert [label.get_text() for label in ax.get_yticklabels()] == ["1", "1/2", "1/4", "1/8"]
    np.testing.assert_allclose(ax.get_yticks(), [1, 0.5, 0.25, 0.125])
