"""`make bench`: the table builders side by side, each chapter's run time, the book build.

Usage: python benchmarks/run.py [--tables] [--chapters] [--book]   (all three by default)

The table comparison is companion.benchmark (the code chapter 6 also runs); the
chapters are executed as the book build executes them; the build is timed from
scratch. Budgets (issue 7): each chapter at most 30 s, the whole build at most 2 min.
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import tempfile
import time

import nbformat
from nbclient import NotebookClient

from companion.benchmark import benchmark, format_benchmark

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHAPTER_BUDGET_SECONDS = 30
BOOK_BUDGET_SECONDS = 120


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
    for part in ("tables", "chapters", "book"):
        parser.add_argument(f"--{part}", action="store_true", help=f"run the {part} benchmark")
    args = parser.parse_args()
    everything = not (args.tables or args.chapters or args.book)
    over_budget = []
    if everything or args.tables:
        print("Float32 table builders, median of 7 rounds, torch on one thread (ratios to companion numpy):")
        print(format_benchmark(benchmark()))
        print()
    if everything or args.chapters:
        print(f"Chapters, executed one by one (budget {CHAPTER_BUDGET_SECONDS} s each):")
        for name, seconds in time_chapters():
            print(f"  {name:32s} {seconds:6.1f} s")
            if seconds > CHAPTER_BUDGET_SECONDS:
                over_budget.append(name)
        print()
    if everything or args.book:
        seconds = time_book()
        print(f"Full book build from scratch (budget {BOOK_BUDGET_SECONDS} s): {seconds:.1f} s")
        if seconds > BOOK_BUDGET_SECONDS:
            over_budget.append("book build")
    if over_budget:
        print("Over budget:", ", ".join(over_budget))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
