"""The module that the reference card (book/reference.md) offers to copy is the companion's layer.

The test reads the page's one ``python`` block that defines a module, runs it as a reader who pasted
it would, and compares its output with :class:`companion.SinusoidalPositionalEncoding` with the same
settings: equal to float32 rounding in float32, and in float64 equal to the exact table
(:func:`companion.sinusoidal_encoding`) to a few units in the last place of the angle.
"""

import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from companion import SinusoidalPositionalEncoding, sinusoidal_encoding  # noqa: E402

# The card beside "The encoding at a glance" (book/glance.md), which has no room for it on its one page.
CARD = Path(__file__).parent.parent / "book" / "reference.md"
WIDTHS_LENGTHS_OFFSETS = [(2, 1, 0), (8, 5, 0), (64, 33, 7), (128, 100, 1000), (512, 64, 0), (512, 16, 100_000)]


def copyable_block() -> str:
    blocks = re.findall(r"^```python\n(.*?)^```$", CARD.read_text(), re.MULTILINE | re.DOTALL)
    modules = [block for block in blocks if "(nn.Module)" in block]
    assert len(modules) == 1, f"expected one python block defining a module in {CARD.name}, found {len(modules)}"
    return modules[0]


@pytest.fixture(scope="module")
def glance_layer():
    namespace = {"__name__": "glance"}
    exec(compile(copyable_block(), str(CARD), "exec"), namespace)  # what a reader who pastes it runs
    return namespace["SinusoidalPositionalEncoding"]


def test_the_block_is_short_enough_to_copy_and_fits_the_page():
    lines = copyable_block().splitlines()
    assert 15 <= len(lines) <= 20, len(lines)
    assert max(map(len, lines)) <= 79  # the code column of the page, the PDF and Colab


def test_the_copied_module_rejects_an_odd_width_by_name(glance_layer):
    with pytest.raises(ValueError, match="d_model must be even, got 7"):
        glance_layer(7)


@pytest.mark.parametrize(("d_model", "seq_len", "offset"), WIDTHS_LENGTHS_OFFSETS)
def test_the_copied_module_equals_the_companions_layer_in_float32(glance_layer, d_model, seq_len, offset):
    x = torch.randn(3, seq_len, d_model, generator=torch.Generator().manual_seed(d_model + seq_len))
    ours = glance_layer(d_model)(x, offset)
    theirs = SinusoidalPositionalEncoding(d_model, max_len=32)(x, positions=offset)
    assert ours.dtype == theirs.dtype == torch.float32 and ours.shape == theirs.shape
    # Both add float64 values rounded once to float32: at most one float32 rounding apart.
    ulp = torch.finfo(torch.float32).eps * theirs.abs().clamp(min=1.0)
    assert torch.all((ours - theirs).abs() <= ulp), (ours - theirs).abs().max()


@pytest.mark.parametrize(("d_model", "seq_len", "offset"), WIDTHS_LENGTHS_OFFSETS)
def test_the_copied_module_is_the_exact_table_in_float64(glance_layer, d_model, seq_len, offset):
    zeros = torch.zeros(1, seq_len, d_model, dtype=torch.float64)
    ours = glance_layer(d_model)(zeros, offset)[0].numpy()
    exact = sinusoidal_encoding(np.arange(offset, offset + seq_len), d_model)
    # Two float64 evaluations of the same angles: apart by a few units in the last place of the angle.
    largest_angle = offset + seq_len - 1
    assert np.abs(ours - exact).max() <= 4 * np.finfo(np.float64).eps * max(1.0, largest_angle)
    layer = SinusoidalPositionalEncoding(d_model, dtype=torch.float64)
    assert np.abs(ours - layer(zeros, positions=offset)[0].numpy()).max() <= 4 * np.finfo(np.float64).eps * max(
        1.0, largest_angle
    )


def test_the_copied_module_scales_and_drops_out_as_the_paper_and_the_layer_do(glance_layer):
    x = torch.ones(2, 4, 16)
    module = glance_layer(16, dropout=0.5)
    scaled = module.eval()(x) - glance_layer(16)(torch.zeros_like(x))  # x * sqrt(d_model)
    assert torch.allclose(scaled, torch.full_like(x, 4.0), rtol=0, atol=1e-6)
    torch.manual_seed(0)
    dropped = module.train()(x)
    assert 0 < int((dropped == 0).sum()) < dropped.numel()
    torch.manual_seed(0)
    layer = SinusoidalPositionalEncoding(16, dropout=0.5).train()(x)
    assert torch.equal(dropped == 0, layer == 0)  # the same mask, from the same random numbers
    assert torch.allclose(dropped, layer, rtol=0, atol=1e-6)  # kept entries doubled (1 / (1 - 0.5))


def test_decoding_one_token_at_a_time_gives_the_whole_sequence(glance_layer):
    module, x = glance_layer(32), torch.randn(1, 6, 32, generator=torch.Generator().manual_seed(0))
    steps = torch.cat([module(x[:, t : t + 1], t) for t in range(6)], dim=1)
    assert torch.equal(steps, module(x))


def test_interleaving_on_the_wrong_axis_would_be_caught():
    """The comparison above fails for the concatenated layout: the stacking axis is really tested."""
    broken = copyable_block().replace("dim=-1).flatten(1)", "dim=1).flatten(1)")
    assert broken != copyable_block()
    namespace = {"__name__": "glance_broken"}
    exec(compile(broken, "broken", "exec"), namespace)
    x = torch.zeros(1, 4, 8)
    assert not torch.allclose(namespace["SinusoidalPositionalEncoding"](8)(x), SinusoidalPositionalEncoding(8)(x))
