import numpy as np
import pytest
import torch

from companion import sinusoidal_encoding
from companion.transformer.experiments import Setup, train_and_evaluate
from companion.transformer.probe import linear_probe_r2, position_probe
from companion.transformer.tasks import CopyOffsetTask


def test_a_probe_reads_a_position_that_is_linear_in_the_state_and_not_one_that_is_absent():
    rng = np.random.default_rng(0)
    positions = np.tile(np.arange(16.0), 40)
    content = rng.normal(size=(640, 6))
    tracking = np.column_stack([content, 0.5 * positions - 3])
    assert linear_probe_r2(tracking[:320], positions[:320], tracking[320:], positions[320:]) == pytest.approx(1, abs=1e-12)
    assert abs(linear_probe_r2(content[:320], positions[:320], content[320:], positions[320:])) < 0.05
    # R^2 is measured on the held-out states: a probe fitted on noise scores at most about 0 there
    assert linear_probe_r2(content[:40], positions[:40], content[320:], positions[320:]) < 0.05


def test_r2_is_one_minus_the_unexplained_fraction_of_the_variance():
    positions = np.arange(10.0)
    states = np.column_stack([positions, np.zeros(10)])
    shifted = states + np.array([[1.0, 0.0]])  # predicts every position one too high
    expected = 1 - 10 / np.sum((positions - positions.mean()) ** 2)
    assert linear_probe_r2(states, positions, shifted, positions) == pytest.approx(expected, rel=1e-12)


def test_the_sinusoidal_encoding_alone_is_read_back_and_the_stream_of_a_model_has_one_r2_per_point():
    pe = sinusoidal_encoding(np.arange(32), 32)
    positions = np.arange(32.0)
    assert linear_probe_r2(pe, positions, pe, positions) > 0.999
    run = train_and_evaluate(CopyOffsetTask(), "none", setup=Setup(steps=10))
    r2 = position_probe(run, CopyOffsetTask(), 12, num_sequences=32)
    assert r2.shape == (2,) and r2.dtype == np.float64
    assert abs(r2[0]) < 0.1  # no positions in the embeddings


def test_a_probe_fitted_below_fit_len_is_scored_beyond_it_where_a_random_table_is_not_read():
    # a learned table barely trained: rows of random numbers, one per position. Fitted and scored on every
    # position, a probe reads much of them back through the tokens' noise (32 rows, 32 coordinates and a
    # bias); fitted on positions 0 to 15 it says nothing of positions 16 to 31. The sinusoidal encoding's
    # slow pairs, nearly linear in p, carry a read-out fitted below 16 on to 31.
    task = CopyOffsetTask()
    learned = train_and_evaluate(task, "learned", setup=Setup(steps=2))
    assert position_probe(learned, task, 32, num_sequences=32)[0] > 0.5
    assert position_probe(learned, task, 32, fit_len=16, num_sequences=32)[0] < 0
    sinusoidal = train_and_evaluate(task, "sinusoidal", setup=Setup(steps=2))
    assert position_probe(sinusoidal, task, 32, fit_len=16, num_sequences=32)[0] > 0.5


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: linear_probe_r2(np.ones((4, 2)), np.arange(4.0), np.ones((3, 3)), np.arange(3.0)), "shapes"),
        (lambda: linear_probe_r2(np.ones((4, 2)), np.arange(3.0), np.ones((3, 2)), np.arange(3.0)), "one value per"),
        (lambda: linear_probe_r2(np.ones((4, 2)), np.arange(4.0), np.ones((3, 2)), np.ones(3)), "all equal"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_position_probe_checks_its_sizes():
    run = train_and_evaluate(CopyOffsetTask(), "none", setup=Setup(steps=2))
    with pytest.raises(ValueError, match="seq_len"):
        position_probe(run, CopyOffsetTask(), 1)
    with pytest.raises(TypeError, match="num_sequences"):
        position_probe(run, CopyOffsetTask(), 8, num_sequences=1.5)
    for fit_len in (1, 7):
        with pytest.raises(ValueError, match="fit_len"):
            position_probe(run, CopyOffsetTask(), 8, fit_len=fit_len)
    with pytest.raises(TypeError, match="fit_len"):
        position_probe(run, CopyOffsetTask(), 8, fit_len=4.0)
    with torch.no_grad():
        assert position_probe(run, CopyOffsetTask(), 8, num_sequences=8).shape == (2,)
        assert position_probe(run, CopyOffsetTask(), 8, fit_len=4, num_sequences=8).shape == (2,)
