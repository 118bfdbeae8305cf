"""`make bench`: the table builders and the layer over fresh processes, each chapter's run time, the book build.

Usage: python benchmarks/run.py [--tables] [--layer] [--chapters] [--book] [--processes N] [--record]
(all four parts by default)

Speed targets are asserted here, and only here (the chapters show timings but never assert them):

- each chapter executes in at most its budget, and the book builds in at most 2 minutes;
- at 4096 x 512, the companion's numpy builder takes at most half the time of the fastest
  float32 recipe (the median over fresh processes of the ratio within each process), and its
  median time over the processes is within 1.3 times the fastest process's (a builder whose
  speed depends on what a process did before would fail this);
- at 4096 x 512, the companion's torch builder (angle addition for consecutive positions) takes
  at most 0.6 of the time of the pow recipe (d2l's), the same kind of median of ratios;
- the layer, against the hand-written table add it replaces (benchmarks/layer_speed.py, batch 8, seq_len
  512, d_model 512, float32, one thread): position ids inside the cache at most 1.1 times
  ``x * sqrt(d) + table[ids]``; ``max_len=None`` after its first call at most 1.1 times the cached
  layer; one decoding step, with an int offset and with the offset in a 0-d tensor, at most 2 times
  ``x * sqrt(d) + table[t : t + 1]`` with that int or tensor (the median over the processes of the
  per-process ratio; the range over the processes is printed beside it).

Every run is a fresh Python process (companion.book.benchmark.benchmark for the tables,
benchmarks/layer_speed.py for the layer); the summary is written to _build/benchmark.json, and with
--record the tables' also to data/benchmark.json, the figures the chapters quote, and the layer's
to data/layer_benchmark.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import nbformat
from nbclient import NotebookClient

import layer_speed as layer_benchmark  # benchmarks/layer_speed.py, beside this script
from companion.book.benchmark import format_summary, summarize_processes

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHAPTER_BUDGET_SECONDS = {"06_attention_and_a_trained_model": 90, "experiment_reports": 60}
DEFAULT_CHAPTER_BUDGET_SECONDS = 30
BOOK_BUDGET_SECONDS = 120
TARGET_SIZE = (4096, 512)
TARGET_RATIO = 0.5
TARGET_SPREAD = 1.3
TORCH_TARGET_RATIO = 0.6
LAYER_SCRIPT = ROOT / "benchmarks" / "layer_speed.py"
ROUNDS = 7

ONE_PROCESS = """
import json, sys
from companion.book.benchmark import BENCHMARK_SIZES, LOOP_METHODS, LOOP_SIZE, benchmark
rounds = int(sys.argv[1])
builders = benchmark(BENCHMARK_SIZES, rounds=rounds)
loop = benchmark([LOOP_SIZE], rounds=rounds, methods=LOOP_METHODS, baseline="loop (Python)")
print(json.dumps({"builders": builders, "loop": loop}))
"""


def machine() -> str:
    """The CPU model and core count, as the record names the machine."""
    model = platform.processor() or platform.machine()
    cpuinfo = pathlib.Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {len(os.sched_getaffinity(0))} cores, {platform.system()}"


def time_tables(processes: int) -> tuple[dict, list[dict]]:
    runs = []
    for index in range(processes):
        result = subprocess.run([sys.executable, "-c", ONE_PROCESS, str(ROUNDS)],
                                check=True, capture_output=True, text=True)
        runs.append(json.loads(result.stdout))
        print(f"  process {index + 1} of {processes} done", flush=True)
    summaries = {"builders": summarize_processes([run["builders"] for run in runs]),
                 "loop": summarize_processes([run["loop"] for run in runs], references=("loop (Python)",))}
    return summaries, runs


def check_tables(summary: list[dict]) -> list[str]:
    failures = []
    at_target = {row["method"]: row for row in summary if (row["seq_len"], row["d_model"]) == TARGET_SIZE}
    companion = at_target["companion (numpy)"]
    size = f"{TARGET_SIZE[0]} x {TARGET_SIZE[1]}"
    print(f"At {size}: companion (numpy) takes {companion['ratio']:.2f} of the fastest recipe's time "
          f"(target at most {TARGET_RATIO}); its median over processes is {companion['spread']:.2f} times "
          f"the fastest process's (target at most {TARGET_SPREAD}).")
    if companion["ratio"] > TARGET_RATIO:
        failures.append(f"companion (numpy) at {size}: {companion['ratio']:.2f} of the fastest recipe")
    if companion["spread"] > TARGET_SPREAD:
        failures.append(f"companion (numpy) at {size}: spread {companion['spread']:.2f} over processes")
    return failures


def torch_to_pow_recipe(runs: list[dict]) -> float:
    """Median over processes of companion (torch) / pow recipe (torch) at the target size, in each process."""
    ratios = []
    for run in runs:
        seconds = {row["method"]: row["seconds"] for row in run["builders"]
                   if (row["seq_len"], row["d_model"]) == TARGET_SIZE}
        ratios.append(seconds["companion (torch)"] / seconds["pow recipe (torch)"])
    return statistics.median(ratios)


def check_torch_table(runs: list[dict]) -> list[str]:
    ratio = torch_to_pow_recipe(runs)
    size = f"{TARGET_SIZE[0]} x {TARGET_SIZE[1]}"
    print(f"At {size}: companion (torch) takes {ratio:.2f} of the pow recipe's (d2l's) time "
          f"(target at most {TORCH_TARGET_RATIO}).")
    return [f"companion (torch) at {size}: {ratio:.2f} of the pow recipe"] if ratio > TORCH_TARGET_RATIO else []


def time_layer(processes: int, device: str = "cpu") -> tuple[list[dict], list[list[dict]]]:
    runs = []
    for index in range(processes):
        result = subprocess.run([sys.executable, str(LAYER_SCRIPT), str(ROUNDS), "--device", device], check=True,
                                capture_output=True, text=True)
        if device == "cuda" and result.stderr.startswith("skipped"):
            print(f"  {result.stderr.strip()}", flush=True)
            return [], []
        runs.append(json.loads(result.stdout))
        print(f"  process {index + 1} of {processes} done", flush=True)
    return layer_benchmark.summarize(runs), runs


def check_layer(summary: list[dict]) -> list[str]:
    return [f"layer, {row['case']}: {row['ratio']:.2f} of the hand-written add (target {row['target']:g})"
            for row in summary if row["target"] is not None and row["ratio"] > row["target"]]


def time_chapters() -> list[tuple[str, float]]:
    timings = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        client = NotebookClient(notebook, timeout=600, resources={"metadata": {"path": str(path.parent)}})
        start = time.perf_counter()
        client.execute()
        timings.append((path.stem, time.perf_counter() - start))
    return timings


def time_book() -> float:
    with tempfile.TemporaryDirectory() as output:
        start = time.perf_counter()
        subprocess.run(
            [str(pathlib.Path(sys.executable).parent / "jupyter-book"), "build", str(ROOT), "--all",
             "--path-output", output, "-W", "-n", "--keep-going"],
            check=True, stdout=subprocess.DEVNULL,
        )
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for part in ("tables", "layer", "chapters", "book"):
        parser.add_argument(f"--{part}", action="store_true", help=f"run the {part} benchmark")
    parser.add_argument("--processes", type=int, default=5, help="fresh processes for the tables (at least 3)")
    parser.add_argument("--layer-device", choices=("cpu", "cuda"), default="cpu",
                        help="where the layer's benchmark runs (cuda: every path under the sync debug mode 'error')")
    parser.add_argument("--record", action="store_true", help="also write data/benchmark.json")
    args = parser.parse_args()
    if args.processes < 3:
        parser.error("--processes must be at least 3")
    everything = not (args.tables or args.layer or args.chapters or args.book)
    build = {}
    failures = []
    if everything or args.tables:
        print(f"Float32 table builders in {args.processes} fresh processes, median of {ROUNDS} rounds each, "
              "torch on one thread:", flush=True)
        summaries, runs = time_tables(args.processes)
        print(format_summary(summaries["builders"]))
        print()
        print("The float64 table, chapter 2's comparison (ratios to the loop's time):")
        print(format_summary(summaries["loop"], reference="loop"))
        failures += check_tables(summaries["builders"])
        failures += check_torch_table(runs)
        record = {"machine": machine(), "date": datetime.date.today().isoformat(), "processes": args.processes,
                  "rounds": ROUNDS, **summaries}
        build.update(record, runs=runs)
        if args.record:
            (ROOT / "data" / "benchmark.json").write_text(json.dumps(record, indent=1) + "\n")
            print("recorded in data/benchmark.json")
        print()
    if everything or args.layer:
        print(f"The layer against the hand-written table add in {args.processes} fresh processes, median of "
              f"{ROUNDS} rounds each, float32, one thread (batch {layer_benchmark.BATCH}, seq_len "
              f"{layer_benchmark.SEQ_LEN}, d_model {layer_benchmark.D_MODEL}):", flush=True)
        layer_summary, layer_runs = time_layer(args.processes, args.layer_device)
        print(layer_benchmark.format_rows(layer_summary))
        failures += check_layer(layer_summary)
        layer_record = {"machine": machine(), "date": datetime.date.today().isoformat(),
                        "processes": args.processes, "rounds": ROUNDS, "device": args.layer_device,
                        "load_average": os.getloadavg(), "layer": layer_summary}
        build.update(layer=layer_summary, layer_runs=layer_runs)
        if args.record and layer_summary and args.layer_device == "cpu":
            (ROOT / "data" / "layer_benchmark.json").write_text(json.dumps(layer_record, indent=1) + "\n")
            print("recorded in data/layer_benchmark.json")
        print()
    if build:
        (ROOT / "_build").mkdir(exist_ok=True)
        (ROOT / "_build" / "benchmark.json").write_text(json.dumps(build, indent=1) + "\n")
    if everything or args.chapters:
        print("Chapters, executed one by one:")
        for name, seconds in time_chapters():
            budget = CHAPTER_BUDGET_SECONDS.get(name, DEFAULT_CHAPTER_BUDGET_SECONDS)
            print(f"  {name:36s} {seconds:6.1f} s (budget {budget} s)")
            if seconds > budget:
                failures.append(f"chapter {name}: {seconds:.1f} s")
        print()
    if everything or args.book:
        seconds = time_book()
        print(f"Full book build from scratch (budget {BOOK_BUDGET_SECONDS} s): {seconds:.1f} s")
        if seconds > BOOK_BUDGET_SECONDS:
            failures.append(f"book build: {seconds:.1f} s")
    for failure in failures:
        print("Over budget:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
