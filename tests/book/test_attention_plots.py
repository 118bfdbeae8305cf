import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion.book.attention_plots import plot_accuracy_by_position, plot_attention_map


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_attention_map_draws_the_weights_on_a_fixed_scale():
    weights = np.tril(np.ones((5, 5))) / np.arange(1, 6)[:, None]
    ax = plot_attention_map(weights, title="uniform causal", train_len=3)
    image = ax.get_images()[0]
    np.testing.assert_array_equal(image.get_array(), weights)
    assert image.get_clim() == (0.0, 1.0) and image.get_cmap().name == "viridis"
    assert [line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == "--"] == [0, 2.5]
    assert "attention weight" in [other.get_ylabel() for other in ax.figure.axes if other is not ax]
    with pytest.raises(ValueError, match="square"):
        plot_attention_map(np.ones((2, 3)))


def test_accuracy_curves_differ_by_style_and_mark_l_and_2l():
    _, ax = plt.subplots()
    drawn = plot_accuracy_by_position({"a": np.ones(8), "b": np.r_[np.nan, np.linspace(1, 0, 7)]}, 2, ax=ax,
                                      chance=0.25, title="t")
    assert drawn is ax and ax.get_title() == "t"
    curves = [line for line in ax.lines if line.get_label() in ("a", "b")]
    assert len({line.get_linestyle() for line in curves}) == 2
    vertical = sorted(line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == ":")
    assert vertical == [1.5, 3.5]
    assert ax.get_xlabel() and ax.get_ylabel() == "accuracy"
    with pytest.raises(ValueError, match="same length"):
        plot_accuracy_by_position({"a": [1.0], "b": [1.0, 0.5]}, 1)


def test_accuracy_over_seeds_draws_the_mean_and_a_band_from_the_smallest_to_the_largest():
    _, ax = plt.subplots()
    seeds = np.array([[1.0, 0.2, 0.4], [1.0, 0.6, np.nan], [1.0, 0.4, 0.5]])
    plot_accuracy_by_position({"model": seeds, "other": np.ones((3, 3))}, 1, ax=ax)
    model = next(line for line in ax.lines if line.get_label() == "model")
    np.testing.assert_allclose(model.get_ydata()[:2], [1.0, 0.4])
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].min() == 0.2 and band[:, 1].max() == 1.0
    with pytest.raises(ValueError, match="one row per seed"):
        plot_accuracy_by_position({"a": np.ones((2, 2, 2))}, 1)
