import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion import sinusoidal_encoding
from companion.plotting import plot_heatmap


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
