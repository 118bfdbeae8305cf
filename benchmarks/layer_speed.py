"""The layer against hand-written table adds, timed in one process (``make bench`` runs it in several).

Each case times the layer and the hand-written expression it replaces, in turn, round after round,
on one torch thread, float32, and reports the median time per call of each and their ratio.  The
hand-written versions index a table built beforehand, as model code does:

- cached slice: ``x * sqrt(d) + table[:s]`` against the layer with ``max_len=2048``;
- position ids inside the cache: ``x * sqrt(d) + table[ids]`` against ``layer(x, positions=ids)``;
- ``max_len=None`` after its first call, against the layer with ``max_len=2048``;
- one decoding step, ``x * sqrt(d) + table[t : t + 1]`` against ``layer(x, positions=t)``, for a
  single token at position 300 (cached) and at position 3000, past ``max_len=2048``;
- one decoding step with the offset in a 0-d tensor ``t`` (as a model that keeps its cache length in
  a tensor passes it), against the hand-written step with that tensor, ``x * sqrt(d) + table[t : t + 1]``
  (which reads ``t`` as an index, as the layer reads a CPU tensor).

With ``--device cuda`` every forward path also runs under ``torch.cuda.set_sync_debug_mode("error")``,
so a path that waits for the GPU (a host read of an offset or of ids) fails, and the ratios are
those of the GPU (timed with ``torch.cuda.synchronize`` around each round); on a machine without a
GPU it says so and exits without timing anything.

Usage: python benchmarks/layer_speed.py ROUNDS [--device cpu|cuda] (prints one JSON list;
``benchmarks/run.py`` summarises).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time

import torch

from companion import SinusoidalPositionalEncoding

BATCH, SEQ_LEN, D_MODEL, MAX_LEN = 8, 512, 512, 2048
STEP, PAST_CACHE = 300, 3000

#: case -> the target ratio, or None for information only
TARGETS = {
    "cached slice": None,
    "position ids inside the cache": 1.1,
    "max_len=None after the first call": 1.1,
    "decoding step": 2.0,
    "decoding step, 0-d tensor offset": 2.0,
    "decoding step past max_len": None,
}

#: What ``--device cuda`` prints where there is no GPU (tests/test_layer_benchmark.py reads it).
NO_GPU = "skipped: --device cuda needs a CUDA GPU, and torch sees none here (torch.cuda.is_available() is False)"


def cases(device: str = "cpu") -> dict[str, tuple]:
    """case -> (layer call, reference call): each a function of no arguments."""
    torch.manual_seed(0)
    layer = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN, device=device).eval()
    grown = SinusoidalPositionalEncoding(D_MODEL, device=device).eval()
    table = layer.pe.clone()
    factor = math.sqrt(D_MODEL)
    x = torch.randn(BATCH, SEQ_LEN, D_MODEL, device=device)
    ids = torch.randint(0, MAX_LEN, (BATCH, SEQ_LEN), device=device)
    token = torch.randn(1, 1, D_MODEL, device=device)
    held = torch.tensor(STEP, device=device)  # the offset in a 0-d tensor
    grown(x)  # its first call grows the cache
    return {
        "cached slice": (lambda: layer(x), lambda: x * factor + table[:SEQ_LEN]),
        "position ids inside the cache": (lambda: layer(x, positions=ids), lambda: x * factor + table[ids]),
        "max_len=None after the first call": (lambda: grown(x), lambda: layer(x)),
        "decoding step": (lambda: layer(token, positions=STEP), lambda: token * factor + table[STEP : STEP + 1]),
        "decoding step, 0-d tensor offset": (lambda: layer(token, positions=held),
                                             lambda: token * factor + table[held : held + 1]),
        "decoding step past max_len": (lambda: layer(token, positions=PAST_CACHE),
                                       lambda: token * factor + table[STEP : STEP + 1]),
    }


def _calls_per_round(call, minimum_seconds: float = 0.02) -> int:
    start = time.perf_counter()
    call()
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, int(minimum_seconds / once))


def measure(rounds: int, device: str = "cpu") -> list[dict]:
    """Median seconds per call of each case's layer and reference, and their ratio."""
    torch.set_num_threads(1)
    cuda = device == "cuda"
    results = []
    with torch.inference_mode():
        for name, (layer_call, reference_call) in cases(device).items():
            calls = {"layer": layer_call, "reference": reference_call}
            for call in calls.values():  # warm up: kernels, allocator
                for _ in range(3):
                    call()
            if cuda:  # a forward path that waits for the GPU raises here
                torch.cuda.synchronize()
                torch.cuda.set_sync_debug_mode("error")
                try:
                    layer_call()
                finally:
                    torch.cuda.set_sync_debug_mode("default")
            counts = {key: _calls_per_round(call) for key, call in calls.items()}
            samples: dict[str, list[float]] = {key: [] for key in calls}
            for _ in range(rounds):
                for key, call in calls.items():
                    if cuda:
                        torch.cuda.synchronize()
                    start = time.perf_counter()
                    for _ in range(counts[key]):
                        call()
                    if cuda:
                        torch.cuda.synchronize()
                    samples[key].append((time.perf_counter() - start) / counts[key])
            layer_seconds, reference_seconds = (statistics.median(samples[key]) for key in calls)
            results.append({"case": name, "layer": layer_seconds, "reference": reference_seconds,
                            "ratio": layer_seconds / reference_seconds})
    return results


def summarize(runs: list[list[dict]]) -> list[dict]:
    """One row per case over fresh processes: median times, the median of the per-process ratios and their range."""
    summary = []
    for index, row in enumerate(runs[0]):
        rows = [run[index] for run in runs]
        ratios = [r["ratio"] for r in rows]
        summary.append({"case": row["case"], "layer": statistics.median(r["layer"] for r in rows),
                        "reference": statistics.median(r["reference"] for r in rows),
                        "ratio": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
                        "target": TARGETS[row["case"]], "processes": len(rows)})
    return summary


def format_rows(summary: list[dict]) -> str:
    """The summary as a plain-text table (microseconds)."""
    lines = [f"{'case':36s} {'layer us':>10s} {'hand-written us':>16s} {'ratio':>6s} {'range':>11s} {'target':>7s}"]
    for row in summary:
        target = "" if row["target"] is None else f"<= {row['target']:g}"
        spread = f"{row['ratio_min']:.2f}-{row['ratio_max']:.2f}" if "ratio_min" in row else ""
        lines.append(f"{row['case']:36s} {row['layer'] * 1e6:10.1f} {row['reference'] * 1e6:16.1f} "
                     f"{row['ratio']:6.2f} {spread:>11s} {target:>7s}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", type=int, help="rounds of timing per case")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="where the layer and the hand-written add run (cuda: also checks that no path syncs)")
    args = parser.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print(NO_GPU, file=sys.stderr)
        print(json.dumps([]))
        return 0
    print(json.dumps(measure(args.rounds, args.device)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
