"""Timing the table builders side by side, in one process, on one thread.

``make bench`` prints :func:`format_benchmark` of :func:`benchmark`, and
chapter 6 shows the same measurements.  Each method builds the float32 table
of positions ``0 .. seq_len - 1``; methods are timed in turn, round after
round, so that drifts in the machine's speed affect them alike, and the
median of the rounds is reported.  Errors are measured against the float64
table evaluated one entry at a time.
"""

from __future__ import annotations

import contextlib
import statistics
import time

import numpy as np
import torch

from ._checks import check_count, check_d_model
from .encoding import sinusoidal_encoding
from .precision import direct_float64_table
from .recipes import annotated_transformer_encoding, d2l_encoding
from .torch_encoding import torch_sinusoidal_encoding

__all__ = ["BENCHMARK_SIZES", "SPEED_METHODS", "benchmark", "format_benchmark", "one_torch_thread"]

#: (seq_len, d_model) of the benchmark table, from 512 x 128 to 16384 x 1024.
BENCHMARK_SIZES = ((512, 128), (1024, 256), (4096, 512), (8192, 512), (16384, 1024))

#: The float32 table builders compared: name -> function(seq_len, d_model).
SPEED_METHODS = {
    "companion (numpy)": lambda n, d: sinusoidal_encoding(np.arange(n), d, dtype=np.float32),
    "companion (torch)": lambda n, d: torch_sinusoidal_encoding(torch.arange(n), d),
    "exp/log recipe (torch)": lambda n, d: annotated_transformer_encoding(torch.arange(n), d),
    "pow recipe (torch)": lambda n, d: d2l_encoding(torch.arange(n), d),
    "float64 then cast (numpy)": lambda n, d: direct_float64_table(np.arange(n), d).astype(np.float32),
}
RECIPES = ("exp/log recipe (torch)", "pow recipe (torch)")


@contextlib.contextmanager
def one_torch_thread():
    """Run the enclosed code with torch limited to one intra-op thread.

    Yields
    ------
    None

    Examples
    --------
    >>> with one_torch_thread():
    ...     torch.get_num_threads()
    1
    """
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def _calls_per_round(build, minimum_seconds: float = 0.02) -> int:
    start = time.perf_counter()
    build()
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, int(minimum_seconds / once))


def benchmark(sizes=BENCHMARK_SIZES, *, rounds: int = 7, methods=None) -> list[dict]:
    """Median time and max error of each method at each size.

    Parameters
    ----------
    sizes : sequence of (int, int), default ``BENCHMARK_SIZES``
        ``(seq_len, d_model)`` pairs.
    rounds : int, default 7
        Timing rounds per method; each round times enough calls to last 20 ms.
    methods : dict, optional
        Name -> function(seq_len, d_model); default ``SPEED_METHODS``,
        which must then include "companion (numpy)", the baseline of the ratios.

    Returns
    -------
    list of dict
        One per (size, method): ``seq_len``, ``d_model``, ``method``,
        ``seconds`` (median per call), ``ratio`` (to "companion (numpy)" at
        that size) and ``max_error`` (against the float64 table).

    Raises
    ------
    ValueError
        If `rounds` is not positive or a size is invalid.

    Examples
    --------
    >>> rows = benchmark([(64, 16)], rounds=1)
    >>> [row["method"] for row in rows][:2], rows[0]["ratio"]
    (['companion (numpy)', 'companion (torch)'], 1.0)
    """
    methods = SPEED_METHODS if methods is None else methods
    if check_count(rounds, "rounds") < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    results = []
    with one_torch_thread():
        for seq_len, d_model in sizes:
            seq_len, d_model = check_count(seq_len, "seq_len"), check_d_model(d_model)
            builds = {name: (lambda build=build: build(seq_len, d_model)) for name, build in methods.items()}
            calls = {name: _calls_per_round(build) for name, build in builds.items()}
            samples = {name: [] for name in builds}
            for _ in range(rounds):
                for name, build in builds.items():
                    start = time.perf_counter()
                    for _ in range(calls[name]):
                        build()
                    samples[name].append((time.perf_counter() - start) / calls[name])
            reference = direct_float64_table(np.arange(seq_len), d_model)
            baseline = statistics.median(samples["companion (numpy)"])
            for name, build in builds.items():
                table = build()
                table = table.double().numpy() if isinstance(table, torch.Tensor) else table.astype(np.float64)
                seconds = statistics.median(samples[name])
                results.append({"seq_len": seq_len, "d_model": d_model, "method": name, "seconds": seconds,
                                "ratio": seconds / baseline, "max_error": float(np.abs(table - reference).max())})
    return results


def format_benchmark(results: list[dict]) -> str:
    """The results of :func:`benchmark` as a plain-text table.

    Parameters
    ----------
    results : list of dict
        As returned by :func:`benchmark`.

    Returns
    -------
    str
        One line per method and size: time in milliseconds, ratio to the
        companion, max error.

    Examples
    --------
    >>> print(format_benchmark([{"seq_len": 8, "d_model": 4, "method": "m", "seconds": 1e-3,
    ...                          "ratio": 2.0, "max_error": 3e-8}]))
    size         method                        median ms  x companion  max error
    8 x 4        m                                 1.000         2.00    3.0e-08
    """
    lines = [f"{'size':12s} {'method':28s} {'median ms':>10s} {'x companion':>12s} {'max error':>10s}"]
    for row in results:
        size = f"{row['seq_len']} x {row['d_model']}"
        lines.append(f"{size:12s} {row['method']:28s} {row['seconds'] * 1e3:10.3f} {row['ratio']:12.2f} "
                     f"{row['max_error']:10.1e}")
    return "\n".join(lines)
