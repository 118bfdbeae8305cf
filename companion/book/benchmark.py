"""Timing the table builders side by side, on one thread.

:func:`benchmark` times every method in one process: each method builds the
float32 table of positions ``0 .. seq_len - 1``; methods are timed in turn,
round after round, so that drifts in the machine's speed affect them alike,
and the median of the rounds is reported.  Errors are measured against the
float64 table evaluated one entry at a time.

One process is not enough to judge speed: what a process has allocated and
cached before changes how fast its allocations are.  ``make bench``
(``benchmarks/run.py``) therefore runs :func:`benchmark` in several fresh
processes and summarises them with :func:`summarize_processes`, which is
where the speed targets are asserted; the chapters only show timings, and
quote the figures ``make bench`` recorded (:func:`recorded_benchmark`).
"""

from __future__ import annotations

import contextlib
import json
import statistics
import time
from importlib.resources import files

import numpy as np

from .._environment import require

torch = require("torch")

from .._checks import check_count, check_d_model  # noqa: E402
from ..analysis.precision import direct_float64_table  # noqa: E402
from ..encoding.loop import loop_encoding  # noqa: E402
from ..encoding.table import sinusoidal_encoding  # noqa: E402
from ..encoding.torch_table import torch_sinusoidal_encoding  # noqa: E402
from .recipes import annotated_transformer_encoding, d2l_encoding  # noqa: E402

__all__ = [
    "BENCHMARK_SIZES",
    "RECIPES",
    "SPEED_METHODS",
    "benchmark",
    "format_benchmark",
    "format_summary",
    "LOOP_METHODS",
    "LOOP_SIZE",
    "one_torch_thread",
    "recorded_benchmark",
    "summarize_processes",
]

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
#: The third-party float32 recipes the companion is compared with.
RECIPES = ("exp/log recipe (torch)", "pow recipe (torch)")

#: The comparison in the chapter *The vectorized version*: the float64 table by a Python
#: loop, by one sine and cosine per entry, and by the companion, at (seq_len, d_model) = LOOP_SIZE.
LOOP_SIZE = (1000, 512)
LOOP_METHODS = {
    "loop (Python)": lambda n, d: loop_encoding(n, d),
    "one sin and cos per entry (numpy)": lambda n, d: direct_float64_table(np.arange(n), d),
    "companion (numpy, float64)": lambda n, d: sinusoidal_encoding(np.arange(n), d),
}


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


def benchmark(sizes=BENCHMARK_SIZES, *, rounds: int = 7, methods=None, baseline: str = "companion (numpy)") -> list[dict]:
    """Median time and max error of each method at each size.

    Parameters
    ----------
    sizes : sequence of (int, int), default ``BENCHMARK_SIZES``
        ``(seq_len, d_model)`` pairs.
    rounds : int, default 7
        Timing rounds per method; each round times enough calls to last 20 ms.
    methods : dict, optional
        Name -> function(seq_len, d_model); default ``SPEED_METHODS``.
    baseline : str, default "companion (numpy)"
        The method of `methods` that the ratios divide by.

    Returns
    -------
    list of dict
        One per (size, method): ``seq_len``, ``d_model``, ``method``,
        ``seconds`` (median per call), ``ratio`` (to `baseline` at that
        size) and ``max_error`` (against the float64 table).

    Raises
    ------
    ValueError
        If `rounds` is not positive, a size is invalid, or `baseline` is not in `methods`.

    Examples
    --------
    >>> rows = benchmark([(64, 16)], rounds=1)
    >>> [row["method"] for row in rows][:2], rows[0]["ratio"]
    (['companion (numpy)', 'companion (torch)'], 1.0)
    """
    methods = SPEED_METHODS if methods is None else methods
    if check_count(rounds, "rounds") < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if baseline not in methods:
        raise ValueError(f"baseline must be one of the methods {list(methods)}, got {baseline!r}")
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
            baseline_seconds = statistics.median(samples[baseline])
            for name, build in builds.items():
                table = build()
                table = table.double().numpy() if isinstance(table, torch.Tensor) else table.astype(np.float64)
                seconds = statistics.median(samples[name])
                results.append({"seq_len": seq_len, "d_model": d_model, "method": name, "seconds": seconds,
                                "ratio": seconds / baseline_seconds,
                                "max_error": float(np.abs(table - reference).max())})
    return results


def format_benchmark(results: list[dict], reference: str = "companion") -> str:
    """The results of :func:`benchmark` as a plain-text table.

    Parameters
    ----------
    results : list of dict
        As returned by :func:`benchmark`.
    reference : str, default "companion"
        What the ratios divide by (the `baseline` given to :func:`benchmark`), for
        the column title.

    Returns
    -------
    str
        One line per method and size: time in milliseconds, ratio to the
        reference, max error.

    Examples
    --------
    >>> print(format_benchmark([{"seq_len": 8, "d_model": 4, "method": "m", "seconds": 1e-3,
    ...                          "ratio": 2.0, "max_error": 3e-8}]))
    size         method                        median ms  x companion  max error
    8 x 4        m                                 1.000         2.00    3.0e-08
    >>> print(format_benchmark([{"seq_len": 8, "d_model": 4, "method": "m", "seconds": 1e-3,
    ...                          "ratio": 2.0, "max_error": 3e-8}], reference="pow recipe").splitlines()[0])
    size         method                        median ms  x pow recipe  max error
    """
    title = f"x {reference}"
    width = max(12, len(title))
    lines = [f"{'size':12s} {'method':28s} {'median ms':>10s} {title:>{width}s} {'max error':>10s}"]
    for row in results:
        size = f"{row['seq_len']} x {row['d_model']}"
        lines.append(f"{size:12s} {row['method']:28s} {row['seconds'] * 1e3:10.3f} {row['ratio']:{width}.2f} "
                     f"{row['max_error']:10.1e}")
    return "\n".join(lines)


def summarize_processes(runs: list[list[dict]], references=RECIPES) -> list[dict]:
    """Combine :func:`benchmark` results of several fresh processes, one row per size and method.

    Parameters
    ----------
    runs : list of list of dict
        One :func:`benchmark` result per process, all over the same sizes and methods.
    references : sequence of str, default ``RECIPES``
        The methods to compare with: each ratio divides by the fastest of them.

    Returns
    -------
    list of dict
        ``seq_len``, ``d_model``, ``method``; ``seconds``: the median over processes of each
        process's median time; ``best``: the fastest process's median; ``spread``:
        ``seconds / best`` (1 when every process agrees); ``ratio``: the median over
        processes of the method's time divided by the fastest reference's time *in the same
        process* (nan if no reference was measured); ``max_error`` as in :func:`benchmark`; ``processes``: how many.

    Raises
    ------
    ValueError
        If `runs` is empty or the runs do not cover the same sizes and methods.

    Examples
    --------
    >>> def run(companion_ms, recipe_ms):
    ...     return [{"seq_len": 8, "d_model": 4, "method": method, "seconds": ms / 1e3, "max_error": 0.0}
    ...             for method, ms in [("companion (numpy)", companion_ms), ("pow recipe (torch)", recipe_ms)]]
    >>> rows = summarize_processes([run(1.0, 4.0), run(2.0, 4.0), run(1.2, 3.0)])
    >>> row = rows[0]
    >>> row["method"], round(row["seconds"] * 1e3, 3), round(row["spread"], 2), round(row["ratio"], 2)
    ('companion (numpy)', 1.2, 1.2, 0.4)
    """
    if not runs:
        raise ValueError("runs must hold the results of at least one process")
    keys = [(row["seq_len"], row["d_model"], row["method"]) for row in runs[0]]
    tables = []
    for run in runs:
        table = {(row["seq_len"], row["d_model"], row["method"]): row for row in run}
        if sorted(table) != sorted(keys):
            raise ValueError("every process must measure the same sizes and methods")
        tables.append(table)
    summary = []
    for seq_len, d_model, method in keys:
        times = [table[seq_len, d_model, method]["seconds"] for table in tables]
        measured = [name for name in references if (seq_len, d_model, name) in tables[0]]
        ratios = [table[seq_len, d_model, method]["seconds"] / min(table[seq_len, d_model, name]["seconds"]
                                                                     for name in measured)
                  for table in tables] if measured else [float("nan")]
        median = statistics.median(times)
        summary.append({"seq_len": seq_len, "d_model": d_model, "method": method, "seconds": median,
                        "best": min(times), "spread": median / min(times), "ratio": statistics.median(ratios),
                        "max_error": max(table[seq_len, d_model, method]["max_error"] for table in tables),
                        "processes": len(tables)})
    return summary


def format_summary(summary: list[dict], reference: str = "fastest recipe") -> str:
    """The rows of :func:`summarize_processes` as a plain-text table.

    Parameters
    ----------
    summary : list of dict
        As returned by :func:`summarize_processes`.
    reference : str, default "fastest recipe"
        What the ratios divide by, for the column title.

    Returns
    -------
    str
        One line per size and method: median and best time in milliseconds, the spread over
        processes, the median ratio to the reference, the max error.

    Examples
    --------
    >>> print(format_summary([{"seq_len": 8, "d_model": 4, "method": "m", "seconds": 2e-3, "best": 1e-3,
    ...                        "spread": 2.0, "ratio": 0.5, "max_error": 3e-8}]))
    size         method                        median ms  best ms  spread x fastest recipe  max error
    8 x 4        m                                 2.000    1.000    2.00              0.5    3.0e-08
    """
    width = max([28] + [len(row["method"]) for row in summary])
    title = f"x {reference}"
    lines = [f"{'size':12s} {'method':{width}s} {'median ms':>10s} {'best ms':>8s} {'spread':>7s} "
             f"{title:>{max(len(title), 8)}s} {'max error':>10s}"]
    for row in summary:
        size = f"{row['seq_len']} x {row['d_model']}"
        lines.append(f"{size:12s} {row['method']:{width}s} {row['seconds'] * 1e3:10.3f} {row['best'] * 1e3:8.3f} "
                     f"{row['spread']:7.2f} {row['ratio']:{max(len(title), 8)}.3g} {row['max_error']:10.1e}")
    return "\n".join(lines)


def recorded_benchmark() -> dict:
    """The figures ``make bench`` recorded on the book's build machine (``data/benchmark.json``).

    Chapters quote these instead of asserting on timings of their own, which depend on the
    machine and its load.

    Returns
    -------
    dict
        ``machine`` (str), ``date`` (ISO date), ``processes`` (int), ``rounds`` (int),
        ``builders`` (the rows of :func:`summarize_processes` for ``SPEED_METHODS``: each
        ``ratio`` is the median over the processes of the builder's time divided by the fastest
        recipe's time in the same process, which need not equal the ratio of the medians
        ``seconds``) and ``loop`` (for ``LOOP_METHODS``, ratios to the loop, the same way).

    Raises
    ------
    FileNotFoundError
        If the companion was installed without its data (reinstall it).

    Examples
    --------
    >>> record = recorded_benchmark()
    >>> sorted(record)
    ['builders', 'date', 'loop', 'machine', 'processes', 'rounds']
    """
    return json.loads((files("companion.data") / "benchmark.json").read_text(encoding="utf-8"))
