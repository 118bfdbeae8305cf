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
from companion.transformer.attention import most_attended_offset, weight_from_offset, weight_on_offset
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
    # beyond 2L, rotary's head puts its weight on keys at offsets never trained rather than on p - 2
    long_maps = mean_attention_maps(run["rotary"], TASKS["copy"], 4 * L)[best["rotary"][0]]
    far_back = np.mean(weight_from_offset(long_maps, L)[2 * L:])
    two_back = np.mean(weight_on_offset(long_maps, 2)[2 * L:])
    assert far_back >= 0.5 and two_back <= 0.5 and far_back > two_back
    # NoPE scores what a model blind to order can: the most frequent earlier token; beyond L too (the exercise)
    blind = TASKS["copy"].order_blind_accuracy(4 * L)
    assert abs(run["none"].accuracy.by_position()[2] - blind[2]) <= 0.1
    assert abs(run["none"].accuracy.between(8, 16) - blind[8:16].mean()) <= 0.03
    for length in ("2L", "4L"):
        start, stop = RANGES[length]
        assert abs(run["none"].at(length) - blind[start * L:stop * L].mean()) <= 0.03, length


@pytest.mark.parametrize("seed", SEEDS)
def test_beyond_l_the_sinusoidal_head_attends_to_two_back_or_an_alias_of_it_on_the_fastest_pair(runs, seed):
    omega_0 = angular_frequencies(SETUP.d_model)[0]
    aliased = {}
    for scheme in ("sinusoidal", "learned"):
        run = runs[seed][("copy", scheme)]
        head, _, _ = best_look_back_head(run)
        offsets = most_attended_offset(mean_attention_maps(run, TASKS["copy"], 4 * L)[head])[L:]
        aliased[scheme] = np.mean(np.abs(np.angle(np.exp(1j * omega_0 * (offsets - 2)))) < 0.6)
    assert aliased["sinusoidal"] >= 0.7 and aliased["learned"] <= 0.35


@pytest.mark.parametrize("seed", SEEDS)
def test_a_linear_probe_reads_the_position_where_a_scheme_adds_it_and_not_from_rotary(runs, seed):
    r2 = {scheme: np.array([position_probe(runs[seed][("copy", scheme)], TASKS["copy"], n) for n in (L, 2 * L)])
          for scheme in POSITION_SCHEMES}  # rows: up to L, up to 2L; columns: input, after the block
    assert r2["sinusoidal"][:, 0].min() >= 0.99
    assert r2["learned"][0, 0] >= 0.99 and r2["learned"][1, 0] <= 0.8
    for scheme in ("none", "rotary", "alibi"):
        assert np.abs(r2[scheme][:, 0]).max() <= 0.05, scheme
    assert r2["sinusoidal"][:, 1].min() >= 0.45
    assert r2["rotary"][:, 1].max() <= 0.1
    # the experiment reports probe the sinusoidal models with other bases and learned frequencies
    for name in [("copy", "sinusoidal", 1e2), ("copy", "sinusoidal", 1e6), ("copy", "learnable")]:
        r2 = np.array([position_probe(runs[seed][name], TASKS["copy"], n) for n in (L, 2 * L)])
        assert r2[:, 0].min() >= 0.99 and r2[:, 1].min() >= 0.3, name


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
    for scheme in ("sinusoidal", "learned"):
        assert run[scheme].at("2L") <= blind_at["2L"] + 0.1 and run[scheme].at("4L") <= blind_at["4L"], scheme


@pytest.mark.parametrize("seed", SEEDS)
def test_the_control_needs_no_positions(runs, seed):
    run = {scheme: runs[seed][("key", scheme)] for scheme in POSITION_SCHEMES}
    for scheme in POSITION_SCHEMES:
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
