import numpy as np
import pytest
import torch

from companion.transformer.attention import weight_on_offset
from companion.transformer.experiments import (
    RANGES, SEEDS, SeedRuns, Setup, accuracy_table, compare_schemes, comparison_table, look_back_weights,
    mean_attention_maps, results_table, train_and_evaluate, train_over_seeds)
from companion.transformer.model import SmallTransformer
from companion.transformer.tasks import CopyOffsetTask, KeyRecallTask, LatestMarkerTask
from companion.transformer.training import PositionAccuracy, evaluate, fixed_threads, train

TINY = Setup(steps=30, test_sequences=32)


def test_fixed_threads_sets_and_restores_the_thread_count():
    before = torch.get_num_threads()
    with fixed_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match="num_threads"):
        with fixed_threads(0):
            pass


def test_a_run_is_repeatable_and_leaves_the_global_generator_alone():
    torch.manual_seed(123)
    expected_next = torch.rand(1)
    torch.manual_seed(123)
    first = train_and_evaluate(CopyOffsetTask(), "rotary", seed=4, setup=TINY)
    assert torch.equal(torch.rand(1), expected_next)
    second = train_and_evaluate(CopyOffsetTask(), "rotary", seed=4, setup=TINY)
    np.testing.assert_array_equal(first.losses, second.losses)
    for a, b in zip(first.model.state_dict().values(), second.model.state_dict().values()):
        assert torch.equal(a, b)
    np.testing.assert_array_equal(first.accuracy.correct, second.accuracy.correct)
    other = train_and_evaluate(CopyOffsetTask(), "rotary", seed=5, setup=TINY)
    assert not np.array_equal(first.losses, other.losses)


def test_untrained_rows_of_a_learned_table_keep_their_initial_values():
    run = train_and_evaluate(KeyRecallTask(), "learned", seed=0, setup=TINY)
    torch.manual_seed(0)
    initial = SmallTransformer(20, 4, scheme="learned", max_len=64).positional.table.weight
    trained = run.model.positional.table.weight
    assert torch.equal(trained[16:], initial[16:])
    assert not torch.equal(trained[:16], initial[:16])


def test_causal_evaluation_at_4l_gives_the_accuracy_at_2l():
    run = train_and_evaluate(LatestMarkerTask(), "alibi", seed=1, setup=TINY)
    task, model = LatestMarkerTask(), run.model
    tokens, targets = task.sample(np.random.default_rng(9), 64, 64)
    with torch.no_grad():
        long = model(torch.from_numpy(tokens)).argmax(-1)
        short = model(torch.from_numpy(tokens[:, :32])).argmax(-1)
    assert torch.equal(long[:, :32], short)


def test_position_accuracy_ranges():
    accuracy = PositionAccuracy(np.array([0, 2, 4, 1]), np.array([0, 4, 4, 4]))
    np.testing.assert_array_equal(accuracy.by_position(), [np.nan, 0.5, 1.0, 0.25])
    assert accuracy.between(0, 2) == 0.5 and accuracy.between(1, 4) == 7 / 12
    with pytest.raises(ValueError, match="no labelled position"):
        accuracy.between(0, 1)
    run = train_and_evaluate(KeyRecallTask(), "none", setup=TINY)
    assert RANGES == {"L": (0, 1), "2L": (1, 2), "4L": (2, 4)}
    assert run.at("2L") == run.accuracy.between(16, 32) and run.accuracy.counted.tolist() == [32] * 64


def test_training_lowers_the_loss_and_checks_its_sizes():
    task = CopyOffsetTask()
    torch.manual_seed(0)
    model = SmallTransformer(16, 16, scheme="rotary")
    losses = train(model, task, seq_len=16, steps=150, rng=np.random.default_rng(0))
    assert losses[-10:].mean() < 0.5 * losses[:10].mean()
    assert not model.training
    with pytest.raises(ValueError, match="steps"):
        train(model, task, seq_len=16, steps=0, rng=np.random.default_rng(0))
    accuracy = evaluate(model, task, seq_len=16, num_sequences=64, rng=np.random.default_rng(1))
    assert accuracy.counted.tolist() == [0, 0] + [64] * 14


def test_accuracy_table_has_a_row_per_run_and_a_column_per_range():
    run = train_and_evaluate(KeyRecallTask(), "none", setup=TINY)
    table = accuracy_table({"none": run, "a longer label": run}).splitlines()
    assert table[0].split() == ["scheme", "at", "L", "at", "2L", "at", "4L"]
    assert table[2].startswith("a longer label") and table[2].split()[-3:] == [f"{run.at(r):.2f}" for r in RANGES]
    with pytest.raises(ValueError, match="empty"):
        accuracy_table({})


def test_mean_attention_maps_are_causal_rows_that_sum_to_one_and_give_the_look_back_weights():
    run = train_and_evaluate(CopyOffsetTask(), "rotary", setup=Setup(steps=10))
    maps = mean_attention_maps(run, CopyOffsetTask(), 32)
    assert maps.shape == (4, 32, 32)
    np.testing.assert_allclose(maps.sum(axis=-1), 1.0, atol=1e-6)
    assert np.all(np.triu(maps, k=1) == 0)  # no query looks ahead
    np.testing.assert_array_equal(look_back_weights(run, CopyOffsetTask(), 2), weight_on_offset(maps, 2))


def test_runs_over_seeds_are_the_single_runs_side_by_side_and_the_table_shows_mean_and_range():
    runs = train_over_seeds(CopyOffsetTask(), "rotary", seeds=(4, 5), setup=TINY)
    singles = [train_and_evaluate(CopyOffsetTask(), "rotary", seed=seed, setup=TINY) for seed in (4, 5)]
    for length in RANGES:
        np.testing.assert_array_equal(runs.at(length), [run.at(length) for run in singles])
    np.testing.assert_array_equal(runs.by_position(), np.stack([run.accuracy.by_position() for run in singles]))
    line = accuracy_table({"rotary": runs}).splitlines()[1]
    values = runs.at("2L")
    assert f"{values.mean():.2f} [{values.min():.2f}, {values.max():.2f}]" in line
    assert SEEDS == (0, 1, 2)
    with pytest.raises(ValueError, match="empty"):
        SeedRuns(())


def test_compare_schemes_trains_every_scheme_from_every_seed():
    runs = compare_schemes(KeyRecallTask(), ["none", "learned"], seeds=(0, 1), setup=TINY)
    assert list(runs) == ["none", "learned"]
    assert all(len(seed_runs.runs) == 2 for seed_runs in runs.values())
    np.testing.assert_array_equal(runs["none"].runs[1].losses,
                                  train_and_evaluate(KeyRecallTask(), "none", seed=1, setup=TINY).losses)


def test_results_table_puts_each_task_over_its_schemes_rows():
    runs = compare_schemes(KeyRecallTask(), ["none", "rotary"], seeds=(0, 1), setup=TINY)
    lines = results_table({"recall the key": runs, "again": {"none": runs["none"]}}).splitlines()
    assert lines[0].split() == ["at", "L", "at", "2L", "at", "4L"]
    assert lines[1] == "recall the key" and lines[4] == "again"
    values = runs["rotary"].at("4L")
    assert lines[3].split()[0] == "rotary" and lines[3].endswith(
        f"{values.mean():.2f} [{values.min():.2f}, {values.max():.2f}]")
    with pytest.raises(ValueError, match="empty"):
        results_table({"recall the key": {}})


def test_comparison_table_puts_schemes_in_columns_and_the_range_over_seeds_in_cells():
    runs = compare_schemes(CopyOffsetTask(), ["none", "rotary"], seeds=(0, 1), setup=TINY)
    table = comparison_table(["none", "rotary", "untrained"], {"enters": {"none": "nowhere", "rotary": "q and k"}},
                             {"copy": runs}, lengths=("L", "4L"))
    header, enters, at_l, at_4l = table.splitlines()
    assert header.split() == ["none", "rotary", "untrained"]
    assert enters.split() == ["enters", "nowhere", "q", "and", "k", "-"]
    low, high = runs["rotary"].at("4L").min(), runs["rotary"].at("4L").max()
    expected = f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}"
    assert at_4l.split()[:3] == ["copy", "at", "4L"] and at_4l.split()[4] == expected
    assert at_l.split()[-1] == "-"  # not trained
    with pytest.raises(KeyError, match="RANGES"):
        comparison_table(["none"], {}, {"copy": runs}, lengths=("3L",))
    with pytest.raises(ValueError, match="empty"):
        comparison_table([], {}, {})
