"""Chapter 6 and the experiment reports make claims about trained models; they hold for a fourth seed.

Chapter 6 trains each of its models from seeds 0, 1 and 2, and so do the experiment reports for the
models only their verdicts need (other bases, learned frequencies); their check cells assert, for every
seed, the bands their prose states. Training on another CPU, with other kernels or another thread
count, follows another trajectory, much as another seed does. This test trains all those models from
seed 3 and asserts the same bands (change both together), so that a claim is not a property of the
three seeds the book happens to show. The runs are spread over two processes.
"""

import concurrent.futures
import multiprocessing

import numpy as np
import pytest

from companion import angular_frequencies
from companion.transformer.attention import most_attended_offset
from companion.transformer.experiments import (RANGES, Setup, look_back_weights, mean_attention_maps,
                                               train_and_evaluate)
from companion.transformer.positions import POSITION_SCHEMES
from companion.transformer.probe import position_probe
from companion.transformer.tasks import TASKS

SEEDS = (3,)  # the chapter shows seeds 0, 1 and 2
SETUP = Setup()  # the chapter's
L = SETUP.train_len


def jobs():
    """Every model the chapter trains from one seed: (name, task, scheme, options)."""
    for task in ("copy", "marker", "key"):
        for scheme in POSITION_SCHEMES:
            if scheme != "relative" or task != "key":  # the chapter trains the relative bias on two tasks
                yield (task, scheme), TASKS[task], scheme, {}
    for base in (1e2, 1e6):
        yield ("copy", "sinusoidal", base), TASKS["copy"], "sinusoidal", {"base": base}
    yield ("copy", "learnable"), TASKS["copy"], "sinusoidal", {"learn_frequencies": True}


@pytest.fixture(scope="module")
def runs():
    """{seed: {name: Run}} for every seed and every model of the chapter."""
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        futures = {(seed, name): pool.submit(train_and_evaluate, task, scheme, seed=seed, setup=SETUP, **options)
                   for seed in SEEDS for name, task, scheme, options in jobs()}
        done = {key: future.result() for key, future in futures.items()}
    return {seed: {name: run for (s, name), run in done.items() if s == seed} for seed in SEEDS}


def alias_of_two_back(offsets):
    """p - 2 or an alias of it: within 0.6 radian of it on the fastest pair (1 radian a step)."""
    omega_0 = angular_frequencies(SETUP.d_model)[0]
    return np.abs(np.angle(np.exp(1j * omega_0 * (offsets - 2)))) < 0.6


def best_look_back_head(run):
    """The head with the most weight on p - 2 within L: (head, weight within L, weight from L to 2L)."""
    weights = look_back_weights(run, TASKS["copy"], 2)
    within, beyond = np.nanmean(weights[:, :L], axis=1), np.nanmean(weights[:, L:], axis=1)
    head = int(within.argmax())
    return head, within[head], beyond[head]


@pytest.mark.parametrize("seed", SEEDS)
def test_copying_two_back_needs_relative_positions_and_only_rotary_keeps_it_at_2l(runs, seed):
    run = {scheme: runs[seed][("copy", scheme)] for scheme in POSITION_SCHEMES}
    for scheme in ("sinusoidal", "learned", "rotary"):
        assert run[scheme].at("L") >= 0.98, scheme
    for scheme in ("none", "alibi"):
        assert run[scheme].at("L") <= 0.45, scheme
    assert run["rotary"].at("2L") >= 0.85 and run["rotary"].at("4L") <= 0.5
    assert run["sinusoidal"].at("2L") <= 0.6
    assert run["learned"].at("2L") <= 0.15  # chance is 1/16
    assert abs(run["alibi"].at("4L") - run["alibi"].at("L")) <= 0.06
    # the best head of the sinusoidal model looks 2 back within L, much less beyond; rotary's keeps looking;
    # the learned table's looks 2 back within L at least as well (so doing it is no sign of relative attention)
    best = {scheme: best_look_back_head(run[scheme]) for scheme in ("sinusoidal", "learned", "rotary")}
    _, within, beyond = best["sinusoidal"]
    assert within >= 0.5 and beyond <= within - 0.25
    assert best["rotary"][1] >= 0.5 and best["rotary"][2] >= 0.5
    assert best["learned"][1] >= 0.9 and best["learned"][1] > within
    # rotary's head holds the aliases of p - 2 down to about 2L: for the last query, which sees every offset,
    # the first key to outdraw p - 2 is an alias, about 2L back
    long_maps = mean_attention_maps(run["rotary"], TASKS["copy"], 4 * L)[best["rotary"][0]]
    last = long_maps[-1, ::-1]  # the last query's weight on keys 0, 1, ... back
    rival = int(np.argmax(last > last[2]))
    assert 2 * L - 4 <= rival <= 3 * L and alias_of_two_back(np.array([rival]))[0]
    # NoPE scores what a model blind to order can: the most frequent earlier token; beyond L too (the exercise)
    blind = TASKS["copy"].order_blind_accuracy(4 * L)
    assert abs(run["none"].accuracy.by_position()[2] - blind[2]) <= 0.1
    assert abs(run["none"].accuracy.between(8, 16) - blind[8:16].mean()) <= 0.03
    for length in ("2L", "4L"):
        start, stop = RANGES[length]
        assert abs(run["none"].at(length) - blind[start * L:stop * L].mean()) <= 0.03, length


@pytest.mark.parametrize("seed", SEEDS)
def test_beyond_l_the_sinusoidal_head_attends_to_two_back_or_an_alias_of_it_on_the_fastest_pair(runs, seed):
    aliased = {}
    for scheme in ("sinusoidal", "learned", "rotary"):
        run = runs[seed][("copy", scheme)]
        head, _, _ = best_look_back_head(run)
        offsets = most_attended_offset(mean_attention_maps(run, TASKS["copy"], 4 * L)[head])[L:]
        aliased[scheme] = np.mean(alias_of_two_back(offsets))
    assert aliased["sinusoidal"] >= 0.7 and aliased["learned"] <= 0.35 and aliased["rotary"] >= 0.7


@pytest.mark.parametrize("seed", SEEDS)
def test_a_probe_fitted_within_l_reads_the_sinusoidal_input_beyond_it_but_not_the_blocks_output(runs, seed):
    # fitted on positions 0 to L - 1, scored on L to 2L - 1: (input, after the block)
    def probed(name):
        return position_probe(runs[seed][name], TASKS["copy"], 2 * L, fit_len=L)

    r2 = probed(("copy", "sinusoidal"))
    assert r2[0] >= 0.75 and r2[1] <= 0
    # the experiment reports: base 10^6 and learned frequencies carry the read-out on, base 10^2 does not
    for name in [("copy", "sinusoidal", 1e6), ("copy", "learnable")]:
        r2 = probed(name)
        assert r2[0] >= 0.9 and r2[1] <= 0, name
    assert probed(("copy", "sinusoidal", 1e2))[0] <= 0
    for scheme in ("none", "learned", "rotary", "alibi", "relative"):  # nothing (or untrained rows) to read
        assert probed(("copy", scheme))[0] <= 0, scheme


@pytest.mark.parametrize("seed", SEEDS)
def test_a_learned_relative_bias_copies_to_2l_and_fades_by_4l(runs, seed):
    copy, marker = runs[seed][("copy", "relative")], runs[seed][("marker", "relative")]
    assert copy.at("L") >= 0.98 and copy.at("2L") >= 0.85
    assert 0.5 <= copy.at("4L") <= 0.9 and copy.at("4L") < copy.at("2L")
    assert marker.at("2L") >= 0.75 and marker.at("4L") >= 0.6
    assert copy.at("2L") > runs[seed][("copy", "sinusoidal")].at("2L")


@pytest.mark.parametrize("seed", SEEDS)
def test_the_latest_marker_alibi_keeps_it_to_4l_rotary_to_2l(runs, seed):
    run = {scheme: runs[seed][("marker", scheme)] for scheme in POSITION_SCHEMES}
    for scheme in ("sinusoidal", "learned", "rotary", "alibi"):
        assert run[scheme].at("L") >= 0.9, scheme
    assert run["alibi"].at("2L") >= 0.85 and run["alibi"].at("4L") >= 0.85
    assert run["rotary"].at("2L") >= 0.9 and run["rotary"].at("4L") <= 0.8
    for scheme in ("sinusoidal", "learned"):
        assert run[scheme].at("2L") <= 0.75, scheme
    # NoPE never beats a model blind to order (its own token, each marker's count so far), and nears it at L;
    # past L the learned and sinusoidal models do no better than that model
    blind = TASKS["marker"].order_blind_accuracy(4 * L)
    blind_at = {length: blind[start * L:stop * L].mean() for length, (start, stop) in RANGES.items()}
    for length, value in blind_at.items():
        assert run["none"].at(length) <= value + 0.02, length
    assert run["none"].at("L") >= blind_at["L"] - 0.05
    # rotary at 4L: a little above that model (the chapter states it of the mean over its seeds)
    assert blind_at["4L"] - 0.05 <= run["rotary"].at("4L") <= blind_at["4L"] + 0.15
    for scheme in ("sinusoidal", "learned"):
        assert run[scheme].at("2L") <= blind_at["2L"] + 0.1 and run[scheme].at("4L") <= blind_at["4L"], scheme


@pytest.mark.parametrize("seed", SEEDS)
def test_the_control_needs_no_positions(runs, seed):
    run = {scheme: runs[seed][("key", scheme)] for scheme in POSITION_SCHEMES if scheme != "relative"}
    for scheme in run:
        assert run[scheme].at("L") >= 0.98, scheme
    for scheme in ("none", "alibi"):
        assert min(run[scheme].at(length) for length in ("L", "2L", "4L")) >= 0.99, scheme


@pytest.mark.parametrize("seed", SEEDS)
def test_no_base_and_no_learned_frequency_makes_the_sinusoidal_model_extrapolate(runs, seed):
    bases = {1e2: runs[seed][("copy", "sinusoidal", 1e2)], 1e4: runs[seed][("copy", "sinusoidal")],
             1e6: runs[seed][("copy", "sinusoidal", 1e6)]}
    for base, run in bases.items():
        assert run.at("L") >= 0.98 and run.at("2L") <= 0.6, base
    assert bases[1e2].at("2L") <= 0.2  # the smallest base falls furthest
    learnable = runs[seed][("copy", "learnable")]
    assert learnable.at("L") >= 0.98 and learnable.at("2L") <= 0.7
    moved = learnable.model.positional.frequencies().detach().numpy() / angular_frequencies(SETUP.d_model)
    assert np.abs(moved - 1).max() >= 0.1
