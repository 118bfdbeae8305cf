import numpy as np
import pytest

from companion.transformer.tasks import IGNORE, TASKS, CopyOffsetTask, KeyRecallTask, LatestMarkerTask


@pytest.mark.parametrize("name", list(TASKS))
def test_tasks_are_reproducible_and_in_range(name):
    task = TASKS[name]
    tokens, targets = task.sample(np.random.default_rng(5), 32, 20)
    again = task.sample(np.random.default_rng(5), 32, 20)
    np.testing.assert_array_equal(tokens, again[0])
    np.testing.assert_array_equal(targets, again[1])
    assert tokens.shape == targets.shape == (32, 20)
    assert tokens.min() >= 0 and tokens.max() < task.vocab_size
    labelled = targets[targets != IGNORE]
    assert labelled.min() >= 0 and labelled.max() < task.num_classes


@pytest.mark.parametrize("offset", [1, 2, 5])
def test_copy_offset_labels_are_the_tokens_offset_back(offset):
    tokens, targets = CopyOffsetTask(offset=offset).sample(np.random.default_rng(0), 8, 12)
    np.testing.assert_array_equal(targets[:, offset:], tokens[:, :-offset])
    assert np.all(targets[:, :offset] == IGNORE)
    assert CopyOffsetTask(offset=offset).name == f"copy the token {offset} back"


def test_latest_marker_labels_match_a_loop():
    task = LatestMarkerTask()
    tokens, targets = task.sample(np.random.default_rng(1), 16, 30)
    for row_tokens, row_targets in zip(tokens, targets):
        latest = task.markers  # none yet
        for token, target in zip(row_tokens, row_targets):
            if token >= task.symbols:
                latest = token - task.symbols
            assert target == latest


def test_the_control_task_ignores_where_tokens_stand():
    task = KeyRecallTask()
    tokens, targets = task.sample(np.random.default_rng(2), 8, 10)
    np.testing.assert_array_equal(tokens[:, 0] - task.symbols, targets[:, 0])
    assert np.all(targets == targets[:, :1]) and np.all(tokens[:, 1:] < task.symbols)
    assert not task.needs_positions and TASKS["copy"].needs_positions and TASKS["marker"].needs_positions


def test_the_position_tasks_change_their_labels_when_tokens_are_shuffled():
    rng = np.random.default_rng(3)
    for task in (CopyOffsetTask(), LatestMarkerTask()):
        tokens, targets = task.sample(rng, 64, 12)
        order = rng.permutation(12)
        # relabel the shuffled tokens by the task's own rule
        if isinstance(task, CopyOffsetTask):
            relabelled = tokens[:, order][:, : 12 - task.offset]
            assert np.any(relabelled != targets[:, task.offset:])
        else:
            shuffled = tokens[:, order]
            marker_seen = np.maximum.accumulate(np.where(shuffled >= task.symbols, np.arange(12), -1), axis=1)
            last = np.take_along_axis(shuffled, np.maximum(marker_seen, 0), axis=1) - task.symbols
            assert np.any(np.where(marker_seen >= 0, last, task.markers) != targets)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: CopyOffsetTask(offset=0), ValueError, "offset"),
        (lambda: LatestMarkerTask(marker_rate=1.5), ValueError, "marker_rate"),
        (lambda: KeyRecallTask(keys=-1), ValueError, "keys"),
        (lambda: CopyOffsetTask().sample(0, 2, 3), TypeError, "rng"),
        (lambda: CopyOffsetTask().sample(np.random.default_rng(), 2, 2.5), TypeError, "seq_len"),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("symbols", [2, 3, 4])
def test_order_blind_accuracy_is_the_expected_largest_count_by_enumeration(symbols):
    # every sequence of p earlier tokens is equally likely; the best blind guess is a most frequent one
    import itertools

    accuracy = CopyOffsetTask(offset=1, symbols=symbols).order_blind_accuracy(7)
    assert np.isnan(accuracy[0])
    for p in range(1, 7):
        largest = [max(np.bincount(draws, minlength=symbols)) for draws in itertools.product(range(symbols), repeat=p)]
        assert accuracy[p] == pytest.approx(np.mean(largest) / p, rel=1e-12)


def test_order_blind_accuracy_is_what_the_most_frequent_earlier_token_scores():
    task = CopyOffsetTask()
    tokens, targets = task.sample(np.random.default_rng(3), 20_000, 12)
    hits = np.zeros(12)
    for p in range(2, 12):
        counts = np.apply_along_axis(np.bincount, 1, tokens[:, :p], minlength=task.symbols)
        # the guess sees only the counts; ties broken by the smallest id, which costs nothing on average
        hits[p] = np.mean(counts.argmax(axis=1) == targets[:, p])
    exact = task.order_blind_accuracy(12)
    np.testing.assert_allclose(hits[2:], exact[2:], atol=0.015)
    assert exact[2] == 17 / 32 and np.all(np.diff(exact[2:]) < 0)  # fewer ties to win as p grows
    assert 1 / task.symbols < exact[11] < exact[2]


def test_order_blind_accuracy_rejects_a_bad_length():
    with pytest.raises(ValueError, match="seq_len"):
        CopyOffsetTask().order_blind_accuracy(-1)


@pytest.mark.parametrize("markers, marker_rate", [(2, 0.5), (3, 0.2)])
def test_marker_order_blind_accuracy_is_the_best_blind_guess_by_enumeration(markers, marker_rate):
    # every position is ordinary (None) or marker j; the blind guess knows the own token and the earlier counts
    import itertools

    task = LatestMarkerTask(markers=markers, marker_rate=marker_rate)
    accuracy = task.order_blind_accuracy(7)
    kinds = [None, *range(markers)]
    chance = {None: 1 - marker_rate, **{j: marker_rate / markers for j in range(markers)}}
    for p in range(7):
        expected = 0.0
        for tokens in itertools.product(kinds, repeat=p + 1):
            earlier = [token for token in tokens[:-1] if token is not None]
            if tokens[-1] is not None or not earlier:
                hit = 1.0  # the own marker, or "none"
            else:  # the latest marker is any of the earlier ones with equal probability
                hit = max(earlier.count(j) for j in range(markers)) / len(earlier)
            expected += np.prod([chance[token] for token in tokens]) * hit
        assert accuracy[p] == pytest.approx(expected, rel=1e-12)


def test_marker_order_blind_accuracy_is_what_the_most_frequent_earlier_marker_scores():
    task = LatestMarkerTask()
    tokens, targets = task.sample(np.random.default_rng(4), 20_000, 24)
    hits = np.zeros(24)
    for p in range(24):
        markers = np.where(tokens[:, :p] >= task.symbols, tokens[:, :p] - task.symbols, task.markers)
        counts = np.apply_along_axis(np.bincount, 1, markers, minlength=task.markers + 1)[:, : task.markers]
        guess = np.where(counts.sum(axis=1) > 0, counts.argmax(axis=1), task.markers)
        guess = np.where(tokens[:, p] >= task.symbols, tokens[:, p] - task.symbols, guess)  # its own marker
        hits[p] = np.mean(guess == targets[:, p])
    exact = task.order_blind_accuracy(24)
    np.testing.assert_allclose(hits, exact, atol=0.015)
    assert exact[0] == exact[1] == 1 and np.all(np.diff(exact[1:]) < 0)
    assert exact[-1] > task.marker_rate + (1 - task.marker_rate) / task.markers  # above guessing among markers


def test_marker_order_blind_accuracy_rejects_a_bad_length():
    with pytest.raises(ValueError, match="seq_len"):
        LatestMarkerTask().order_blind_accuracy(-1)
