"""The explorable figures' data equal the companion's, their specifications are valid Vega-Lite 5, and each
output is the MIME bundle every reader's tool can read (companion.book.explorables)."""

import base64
import io
import json
import re
import sys
import types
from pathlib import Path

import jsonschema
import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

from companion import sinusoidal_encoding
from companion.analysis.distinguishability import similarity_scales, similarity_trend
from companion.analysis.linearity import relative_dot_product, rotation_matrix
from companion.book.explorables import Explorable, clocks, look_back, rotation, similarity_by_offset, table
from companion.book.explorables.attention import look_back_maps
from companion.book.explorables.figure import LIBRARIES, SCRIPT, VEGALITE_MIME, choice, slider, spec_script
from companion.book.explorables.similarity import similarity_curves
from companion.book.explorables.table import CELL, column_pairs, wave_reference
from companion.book.plotting import plot_similarity_by_offset
from companion.transformer.attention import attention_weights, offset_head

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "node_modules" / "vega-lite" / "build" / "vega-lite-schema.json"


@pytest.fixture(scope="module")
def figures():
    return {"clocks": clocks(), "table": table(), "rotation": rotation(), "look_back": look_back(),
            "similarity": similarity_by_offset(d_models=(16, 128), bases=(100, 10_000), max_offset=20_000)}


def flattened(figure, name):
    """A dataset of the figure as rows, its lists unrolled as the page's flatten transform does."""
    columns = figure.dataset(name)
    return [dict(zip(columns, values)) for values in zip(*columns.values())]


def test_every_specification_is_valid_vega_lite_5(figures):
    if not SCHEMA.is_file():
        pytest.fail("vega-lite is not installed: run `npm ci` (the Makefile's `make test` does)")
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    for name, figure in figures.items():
        error = jsonschema.exceptions.best_match(validator.iter_errors(figure.spec))
        assert error is None, f"{name}: {error.message} at {list(error.absolute_path)}"
        assert figure.spec["usermeta"] == {"explorable": name} and figure.name == name


def test_the_clocks_draw_the_companions_table(figures):
    figure = figures["clocks"]
    rows = flattened(figure, "clocks")
    drawn = np.zeros((101, 16))
    for row in rows:
        drawn[row["position"], 2 * row["pair"]] = row["sine"]
        drawn[row["position"], 2 * row["pair"] + 1] = row["cosine"]
    expected = sinusoidal_encoding(np.arange(101), 16)
    np.testing.assert_allclose(drawn, expected, rtol=0, atol=5e-8)
    assert figure.data["table"] is not None and np.array_equal(figure.data["table"], expected)
    assert figure.spec["params"] == [slider("p", "position p", 0, 100, 10)]


def test_the_table_starts_from_the_companions_table_and_names_its_waves(figures):
    """The page computes the cells itself (CELL); tests/site/test_explorables.py checks every state it offers."""
    figure = figures["table"]
    np.testing.assert_array_equal(figure.data["table"], sinusoidal_encoding(np.arange(50), 64))
    assert figure.data["pairs"] == column_pairs(64) == [0, 4, 8, 16] and column_pairs(128) == [0, 8, 16, 32]
    assert "pow(base, -(datum.column - datum.column % 2) / d_model)" in CELL  # base^(-2i/d_model), i the pair
    waves = wave_reference(64, 10_000.0, 10)
    assert waves.shape == (4 * 41, 3)
    np.testing.assert_allclose(waves[waves[:, 1] == 0, 2], np.sin(np.arange(41) / 4), rtol=0, atol=1e-15)


def test_the_similarity_is_the_companions_and_matches_the_chapters_figure(figures):
    curves = similarity_curves(128, 10_000.0, max_offset=20_000)
    np.testing.assert_allclose(curves["similarity"], relative_dot_product(np.arange(1, 101), 128) / 64, rtol=1e-14)
    np.testing.assert_allclose(curves["trend"], similarity_trend(curves["trend_offsets"]), rtol=1e-14)
    assert (curves["half"], curves["zero"]) == tuple(similarity_scales(128))
    # What plot_similarity_by_offset draws for the same state: line, band and trend.
    ax = plot_similarity_by_offset(20_000, 128, bins=120)
    lines = {line.get_gid(): line for line in ax.get_lines()}
    np.testing.assert_array_equal(lines["similarity"].get_ydata(), curves["similarity"])
    np.testing.assert_array_equal(lines["trend"].get_ydata(), curves["trend"])
    band = ax.collections[0].get_paths()[0].vertices
    assert set(np.round(band[:, 1], 12)) == set(np.round(np.concatenate([curves["low"], curves["high"]]), 12))
    plt.close("all")
    drawn = [row for row in flattened(figures["similarity"], "similarity") if row["d_model"] == 128
             and row["base"] == 10_000]
    np.testing.assert_allclose([row["similarity"] for row in drawn], curves["similarity"], rtol=0, atol=5e-8)


def test_the_rotation_lands_on_the_shifted_encoding(figures):
    figure = figures["rotation"]
    for row in flattened(figure, "rotation"):
        pair, offset = row["pair"], row["offset"]
        rotated = rotation_matrix(offset, 8) @ sinusoidal_encoding([3], 8)[0]
        shifted = sinusoidal_encoding([3 + offset], 8)[0]
        np.testing.assert_allclose([row["rotated_sine"], row["rotated_cosine"]], rotated[2 * pair: 2 * pair + 2],
                                   rtol=0, atol=5e-8)
        np.testing.assert_allclose([row["shifted_sine"], row["shifted_cosine"]], shifted[2 * pair: 2 * pair + 2],
                                   rtol=0, atol=5e-8)
    assert np.abs(figure.data["rotated"] - figure.data["shifted"]).max() < 1e-12


def test_the_attention_maps_are_the_chapters_head(figures):
    figure = figures["look_back"]
    pe = sinusoidal_encoding(np.arange(24), 32)
    for k in (0, 2, 8):
        w_q, w_k = offset_head(k, 32, sharpness=8.0)
        expected = attention_weights((pe @ w_q) @ (pe @ w_k).T, causal=True)
        np.testing.assert_array_equal(figure.data["maps"][k], expected)
        drawn = np.zeros((24, 24))
        for row in flattened(figure, "maps"):
            if row["offset"] == k:
                drawn[row["query"], row["key"]] = row["weight"]
        np.testing.assert_allclose(drawn, expected, rtol=0, atol=5e-8)
        assert np.array_equal(expected[k:].argmax(axis=1), np.arange(k, 24) - k)
    assert figure.data["on_target"].min() > 0.9
    assert look_back_maps([1, 2], seq_len=6).shape == (2, 6, 6)


def test_the_output_is_one_mime_bundle_with_a_stand_in_and_its_description(figures):
    for name, figure in figures.items():
        bundle = figure._repr_mimebundle_()
        assert set(bundle) == {VEGALITE_MIME, "image/png", "text/plain"}, name
        image = Image.open(io.BytesIO(base64.b64decode(bundle["image/png"])))
        assert image.format == "PNG" and image.width >= 400, name
        assert bundle["text/plain"] == figure.description == figure.spec["description"]
        # The description says what the controls change, in the reader's terms.
        for param in figure.spec["params"]:
            assert param["bind"]["name"].split(" (")[0] in figure.description, (name, param["bind"]["name"])
        assert b"matplotlib" not in figure.stand_in  # no version stamp: the same bytes with any matplotlib


def test_the_specification_makes_no_request_to_another_host(figures):
    for figure in figures.values():
        text = json.dumps(figure.spec)
        assert re.findall(r"https?://[^\"]+", text) == ["https://vega.github.io/schema/vega-lite/v5.json"]
        assert '"url"' not in text  # all data inline


def test_in_colab_the_output_loads_vega_itself_and_shows_the_stand_in_meanwhile(figures, monkeypatch):
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    figure = figures["look_back"]
    bundle = figure._repr_mimebundle_()
    html = bundle["text/html"]
    assert VEGALITE_MIME in bundle and 'class="pe-explorable-stand-in"' in html
    assert f'alt="{figure.description}"' in html and spec_script(figure.spec) in html
    urls = re.findall(r"https://cdn\.jsdelivr\.net/npm/([a-z-]+)@([\d.]+)/build/\1\.min\.js", html)
    assert dict(urls) == LIBRARIES
    assert SCRIPT.read_text() in html


def test_the_libraries_are_those_the_book_serves():
    lock = json.loads((ROOT / "package-lock.json").read_text())["packages"]
    assert {name: lock[f"node_modules/{name}"]["version"] for name in LIBRARIES} == LIBRARIES


def test_a_specification_cannot_close_its_script_element():
    element = spec_script({"description": "</script><script>alert(1)</script>"})
    assert element.count("</") == 1 and element.endswith("</script>")


def test_controls_refuse_a_first_state_they_do_not_offer():
    with pytest.raises(ValueError, match="value must be one of"):
        choice("base", "base", [100, 10_000], 500)
    with pytest.raises(ValueError, match="labels must name each"):
        choice("base", "base", [100, 10_000], 100, labels=["100"])
    with pytest.raises(ValueError, match="value must be in"):
        slider("p", "position p", 0, 10, 11)


@pytest.mark.parametrize("call, message", [
    (lambda: clocks(32), "d_model must be at most 16"),
    (lambda: clocks(position=200), "position in 0..max_position"),
    (lambda: table(d_models=(24,)), "multiples of 16"),
    (lambda: table(d_model=512), "value must be one of"),
    (lambda: similarity_by_offset(base=5), "first state"),
    (lambda: similarity_by_offset(max_offset=50), "max_offset must be above 100"),
    (lambda: rotation(offset=100), "offset in"),
    (lambda: look_back(max_offset=30), "max_offset below it"),
])
def test_bad_arguments_are_refused_with_a_message(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_a_dataset_unrolls_like_the_page():
    figure = clocks(4, max_position=3, position=1)
    rows = figure.dataset("clocks")
    assert rows["pair"].tolist() == [0] * 4 + [1] * 4 and rows["position"].tolist() == [0, 1, 2, 3] * 2
    with pytest.raises(KeyError, match="no dataset 'maps'"):
        figure.dataset("maps")


def test_an_explorable_reads_as_its_description_and_refuses_an_incomplete_figure(figures):
    figure = figures["rotation"]
    assert repr(figure) == f"Explorable('rotation': {figure.description})"
    with pytest.raises(ValueError, match="usermeta.explorable"):
        Explorable("demo", figure.spec, figure.stand_in, figure.description)
    with pytest.raises(ValueError, match="must be a PNG"):
        Explorable("rotation", figure.spec, b"GIF89a", figure.description)
