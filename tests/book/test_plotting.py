import matplotlib.pyplot as plt
from matplotlib.backend_bases import FigureCanvasBase
import numpy as np
import pytest

from companion import angular_frequencies, sinusoidal_encoding
from companion.analysis.distinguishability import last_offset_above, similarity_scales, similarity_trend
from companion.book.plotting import (
    plot_angle_map,
    plot_clock,
    plot_columns,
    plot_frequencies,
    plot_frequency_scaling,
    plot_heatmap,
    plot_nearest_distances,
    plot_similarity_by_offset,
    colormap_distance,
    plot_similarity_matrix,
    rendered_pixels,
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


def test_columns_are_smooth_waves_through_the_tables_sine_columns():
    positions = np.arange(300)
    ax = plot_columns(positions, 64, pairs=[0, 10, 31])
    table = sinusoidal_encoding(positions, 64)
    omega = angular_frequencies(64)
    waves = [line for line in ax.get_lines() if line.get_gid() != "samples"]
    for line, pair in zip(waves, [0, 10, 31]):
        x = line.get_xdata()
        np.testing.assert_allclose(line.get_ydata(), np.sin(omega[pair] * x), atol=1e-12)
        assert x[0] == 0 and x[-1] == 299
        assert np.diff(x).max() * omega[pair] <= 2 * np.pi / 24 + 1e-12  # at least 24 points per turn
        assert f"column {2 * pair}" in line.get_label()
    assert len({line.get_linestyle() for line in waves}) == 3
    # wavelengths below 10 positions keep a decimal: 2π is 6.3, not 6
    assert [line.get_label().split("wavelength ")[1] for line in waves] == ["6.3", "112", "47,117"]
    # pair 0 (wavelength 6.3) is sampled 6 times per turn: its table values are marked; pair 31 is not
    (dots,) = [line for line in ax.get_lines() if line.get_gid() == "samples"]
    np.testing.assert_array_equal(dots.get_xdata(), positions)
    np.testing.assert_allclose(dots.get_ydata(), table[:, 0], atol=1e-12)
    assert dots.get_color() == waves[0].get_color() and labelled(ax)


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


def test_clock_colours_rows_by_the_positions_given():
    positions = -np.arange(50)  # walking backwards: 0, -1, ..., -49
    table = sinusoidal_encoding(positions, 8)
    ax = plot_clock(table, pair=1, positions=positions)
    np.testing.assert_array_equal(ax.collections[0].get_array(), positions)
    assert line_with_gid(ax, "hand").get_label() == "hand at position -49"
    assert signed_turn(line_with_gid(ax, "turning direction")) == 1  # the angle decreases: anticlockwise on the page
    with pytest.raises(ValueError, match="one position per row"):
        plot_clock(table, pair=1, positions=positions[:-1])


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
    np.testing.assert_allclose(levels, [2 * np.pi, 511, 2 * np.pi * 511, 2 * np.pi * 1e4])  # 511 steps in 512 positions
    last = ax.get_lines()[0].get_ydata()[-1]
    assert last == pytest.approx(2 * np.pi * 1e4 ** (126 / 128)) and last < 2 * np.pi * 1e4


def test_similarity_matrix_is_constant_along_diagonals():
    ax = plot_similarity_matrix(np.arange(40), 16)
    matrix = np.asarray(ax.get_images()[0].get_array())
    np.testing.assert_allclose(np.diag(matrix, 5), matrix[0, 5], atol=1e-12)
    np.testing.assert_allclose(np.diag(matrix), 1.0)
    assert labelled(ax) and "similarity" in ax.figure.axes[-1].get_ylabel()


def test_similarity_by_offset_draws_the_similarity_its_range_its_trend_and_its_crossings():
    ax = plot_similarity_by_offset(3000, 32, 1e3, envelope_from=50)
    table = sinusoidal_encoding(np.arange(3001), 32, base=1e3)
    direct = table[1:] @ table[0] / 16
    np.testing.assert_allclose(line_with_gid(ax, "similarity").get_ydata(), direct[:50], atol=1e-12)
    # the band spans every value beyond offset 50, and no more
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].min() == pytest.approx(direct[50:].min(), abs=1e-12)
    assert band[:, 1].max() == pytest.approx(direct[50:].max(), abs=1e-12)
    assert band[:, 0].min() == 51 and band[:, 0].max() == 3000
    trend = line_with_gid(ax, "trend")
    np.testing.assert_allclose(trend.get_ydata(), similarity_trend(trend.get_xdata(), 1e3), atol=1e-12)
    half, zero = similarity_scales(32, 1e3)
    settled = last_offset_above(0.5, 32, 1e3, max_offset=3000) + 1
    for gid, offset in (("first 1/2", half), ("settled 1/2", settled), ("first 0", zero)):
        marker = line_with_gid(ax, gid)
        assert marker.get_xdata()[0] == offset and marker.get_ydata()[0] == pytest.approx(direct[offset - 1])
        assert marker.get_markeredgecolor() == "black" and marker.get_zorder() > ax.collections[0].get_zorder()
    assert direct[half - 1] <= 0.5 < direct[: half - 1].min() and direct[zero - 1] <= 0 < direct[: zero - 1].min()
    assert direct[settled - 2] > 0.5 and direct[settled - 1:].max() <= 0.5
    assert labelled(ax) and ax.get_xscale() == "log"


def test_frequency_scaling_plots_the_ratio_to_the_original_frequencies():
    omega = angular_frequencies(32)
    ax = plot_frequency_scaling(32, {"a": omega / 4, "b": omega})
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), 0.25)
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), 1.0)
    assert labelled(ax) and ax.get_yscale() == "log"


def test_nearest_distances_plot_marks_and_labels_collisions_at_the_bottom():
    ax = plot_nearest_distances([16, 64, 256], {"exact": [1.0, 0.5, 0.1], "float16": [1.0, 0.5, 0.0]})
    assert labelled(ax) and ax.get_ylabel() == "distance between the two closest encodings"
    exact, rounded = ax.get_lines()[:2]
    assert exact.get_markerfacecolor() == "none" and exact.get_markersize() > rounded.get_markersize()
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
     (lambda: plot_similarity_by_offset(100, 8), "max_offset must be above envelope_from"),
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


def test_heatmap_passes_its_resampling_to_imshow():
    table = sinusoidal_encoding(np.arange(40), 16)
    assert plot_heatmap(table).get_images()[0].get_interpolation() == "nearest"
    image = plot_heatmap(table, interpolation=None, interpolation_stage=None).get_images()[0]
    assert image.get_interpolation() == plt.rcParams["image.interpolation"]


def test_colormap_distance_is_zero_on_the_map_and_large_off_it():
    on_map = np.asarray(plt.get_cmap("RdBu")(np.linspace(0, 1, 7), bytes=True))[:, :3]
    np.testing.assert_array_equal(colormap_distance(on_map), 0)
    assert colormap_distance(np.array([[128, 128, 128]], dtype=np.uint8))[0] > 50  # RdBu has no mid grey
    assert colormap_distance(on_map[None], cmap="viridis").shape == (1, 7)
    with pytest.raises(ValueError, match="RGB colours on the last axis"):
        colormap_distance(np.zeros((4, 4)))


def test_rendered_pixels_show_what_each_resampling_really_draws():
    """10,000 rows in 384 pixel rows: nearest shows colours of the map, matplotlib's default a colour off it."""
    table = sinusoidal_encoding(np.arange(10_000), 128)
    fig, (nearest, default) = plt.subplots(1, 2, figsize=(8, 5), dpi=100)
    plot_heatmap(table, ax=nearest, colorbar=False, check_resolution=False)
    plot_heatmap(table, ax=default, colorbar=False, check_resolution=False, interpolation=None, interpolation_stage=None)
    shown, filtered = rendered_pixels(nearest), rendered_pixels(default)
    assert shown.shape[0] == pytest.approx(nearest.get_window_extent().height, abs=4)
    assert shown.shape[1] == pytest.approx(nearest.get_window_extent().width, abs=4)
    fast = slice(0, shown.shape[1] * 20 // 128)  # columns 0 to 19: pairs that turn many times per pixel row
    assert np.median(colormap_distance(shown[:, fast])) < 3  # one table entry per pixel: a colour of the map
    assert np.median(colormap_distance(filtered[:, fast])) > 40  # red and blue averaged: purple-grey


def test_rendered_pixels_of_a_closed_figure_are_those_it_showed():
    fig, ax = plt.subplots(figsize=(3, 2), dpi=50)
    plot_heatmap(sinusoidal_encoding(np.arange(20), 8), ax=ax, colorbar=False)
    shown = rendered_pixels(ax)
    plt.close(fig)
    fig.canvas = FigureCanvasBase(fig)  # what a notebook leaves behind after showing it
    np.testing.assert_array_equal(rendered_pixels(ax), shown)


def test_rendered_pixels_refuse_an_axes_without_interior():
    fig = plt.figure(figsize=(2, 2), dpi=10)
    ax = fig.add_axes((0, 0, 0.05, 0.05))
    with pytest.raises(ValueError, match="no interior pixels"):
        rendered_pixels(ax)
