"""Run every chapter as a new Colab user would, from a wheel, in an environment like Colab's.

The chapters run are the reader notebooks in colab/, the copies that Colab opens (`make colab` writes
them from the chapters, with the chapters' own code cells).

The environment is Colab's: its Python (3.13, found under pyenv or on PATH) and its preinstalled
packages at Colab's versions, both read from tools/colab-preinstalled.txt, which names its source.
For each chapter: a fresh directory holding only that notebook, and the chapter's own setup cell
installing the companion with its extras (gensim is the one Colab lacks), here from a locally built
wheel (the PE_BOOK_INSTALL override that only this test sets). The chapter must run without an error, print what the
committed notebook printed (cells tagged nbval-ignore-output or nbval-skip excepted, as in
nbval), and leave Colab's numpy and torch in place; what it installed is removed before the next
chapter. In chapters 2 and 5 a scripted learner (tools/scripted_learner.py) then works in the same
kernel: its cells, appended to the chapter, answer exercises wrong, read the checker's feedback and
answer right, and the feedback must say what the learner expects. Finally a chapter run without the
companion must stop with a message and no traceback.

The chapters run on the emulated plainer CPU of tools/cpu_conditions.py (OpenBLAS's Sandybridge
kernels, torch's scalar kernels, one thread, no AVX-512 in numpy): with Colab's other Python, numpy
and torch, that makes this run the book's check that every stored output reproduces on another
machine, beside strict nbval's run on this one.

The environment (about 3 GB, mostly torch's CUDA build) is built once per machine, outside the
clone, as pip keeps its cache: in ~/.cache/positional-encoding-book/colab-env (under $XDG_CACHE_HOME
if set, or in $COLAB_ENV_DIR), so that a fresh clone (CI) does not install it again; it is reused
while its package list and interpreter are unchanged and nothing else is installed in it; `--prepare` only
builds it (a lock makes a second caller wait for it), with no package of the book's environment (any
Python 3.11+ runs it): `make test` starts that in the background at once, so that its download and
unpacking overlap the book's own install. The chapters run
in parallel, one per core, each worker in its own hard-linked copy of the environment.

Usage: python tools/simulate_colab.py [colab/NN_name.ipynb ...]   (default: every reader notebook)
       python tools/simulate_colab.py --prepare
Set COLAB_PYTHON to the interpreter to use if it is not found.
"""

from __future__ import annotations

import concurrent.futures
import fcntl
import glob
import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cpu_conditions
import scripted_learner

ROOT = Path(__file__).resolve().parent.parent
PREINSTALLED = ROOT / "tools" / "colab-preinstalled.txt"
KEPT_PACKAGES = ("numpy", "torch")
# The runner's own notebook machinery (nbclient drives the kernel; Colab has its own front end).
RUNNER_PACKAGES = ("nbclient==0.10.2", "nbformat==5.10.4")
# The chapter that runs longest (its models train from three seeds; about three times any other chapter, the
# README's Cost table) starts first, the others by size: none is then left running alone at the end.
LONGEST = "06_attention_and_a_trained_model"
CACHE = Path(os.environ.get("COLAB_ENV_DIR")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "positional-encoding-book")
ENVIRONMENT = CACHE / "colab-env"
LOCK = CACHE / "colab-env.lock"

RUNNER = """
import sys, nbformat
from nbclient import NotebookClient
path = sys.argv[1]
notebook = nbformat.read(path, as_version=4)
NotebookClient(notebook, timeout=900, allow_errors=True, record_timing=False,
               resources={"metadata": {"path": sys.argv[2]}}).execute()
nbformat.write(notebook, path)
"""


def colab_python_version() -> str:
    """The "# python: X.Y" line of tools/colab-preinstalled.txt."""
    match = re.search(r"^# python: (\d+\.\d+)\s*$", PREINSTALLED.read_text(), re.MULTILINE)
    if not match:
        raise SystemExit(f"{PREINSTALLED} does not say which Python Colab runs (a '# python: X.Y' line)")
    return match.group(1)


def find_python(version: str) -> Path:
    """An interpreter of Python `version`: $COLAB_PYTHON, pyenv's, or pythonX.Y on PATH."""
    candidates = [os.environ.get("COLAB_PYTHON", "")]
    pyenv_root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates += sorted(glob.glob(f"{pyenv_root}/versions/{version}*/bin/python{version}"), reverse=True)
    candidates.append(shutil.which(f"python{version}") or "")
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return Path(candidate)
    raise SystemExit(
        f"Colab runs Python {version} (tools/colab-preinstalled.txt), and no Python {version} was found: "
        f"not $COLAB_PYTHON, not under {pyenv_root}/versions, not python{version} on PATH. Install it "
        f"(`pyenv install {version}`) or set COLAB_PYTHON to its interpreter."
    )


def run(command, **kwargs):
    return subprocess.run(command, check=True, text=True, capture_output=True, **kwargs)


def frozen(python: Path) -> dict[str, str]:
    """Installed distributions: name -> version, or -> source for "name @ url" installs."""
    installed = {}
    for line in run([str(python), "-m", "pip", "freeze", "--all"]).stdout.splitlines():
        separator = "==" if "==" in line else " @ " if " @ " in line else None
        if separator:
            name, version = line.split(separator, 1)
            installed[name.strip()] = version.strip()
    return installed


# What nbval leaves out of its comparison: pictures (their pixels depend on the machine's fonts and
# libraries) and widget views (their model ids are random).
UNCOMPARED = ("image/png", "image/jpeg", "application/vnd.jupyter.widget-view+json")


def text_outputs(cell) -> list[str]:
    """The cell's outputs as nbval compares them: streams, and every kind of data but UNCOMPARED; consecutive
    chunks of one stream are joined, as nbval does (how a kernel splits a stream into messages depends on
    when it flushes)."""
    texts, last_stream = [], None
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            text = "".join(output["text"])
            if last_stream == output["name"]:
                texts[-1] += text
            else:
                texts.append(f"{output['name']}: {text}")
            last_stream = output["name"]
            continue
        last_stream = None
        if output["output_type"] in ("execute_result", "display_data"):
            for kind, value in sorted(output["data"].items()):
                if kind not in UNCOMPARED:
                    texts.append(f"{kind}: {''.join(value) if isinstance(value, list) else value}")
    return texts


def compared(cell) -> bool:
    """Whether nbval compares the cell's outputs (its cell tags, as nbval reads them)."""
    tags = set(cell.get("metadata", {}).get("tags", []))
    return cell["cell_type"] == "code" and not tags & {"nbval-ignore-output", "nbval-skip"}


def problems_with(executed_path: Path, committed_path: Path) -> list[str]:
    executed = json.loads(executed_path.read_text())["cells"]
    committed = json.loads(committed_path.read_text())["cells"]
    problems = []
    # The setup cell (the first code cell, below the chapter's title) installs the companion: what pip
    # prints there is the machine's, not the chapter's.
    setup = next(index for index, cell in enumerate(committed) if cell["cell_type"] == "code")
    for index, (ran, stored) in enumerate(zip(executed, committed)):
        for output in ran.get("outputs", []):
            if output["output_type"] == "error":
                problems.append(f"cell {index}: {output['ename']}: {output['evalue']}")
        if index != setup and compared(stored) and text_outputs(ran) != text_outputs(stored):
            problems.append(f"cell {index}: output differs from the committed notebook:\n"
                            f"  got      {text_outputs(ran)!r:.300}\n  expected {text_outputs(stored)!r:.300}")
    return problems


def execute(python: Path, notebook: Path, workdir: Path, env: dict, appended: list[dict] = ()) -> Path:
    """Run a copy of `notebook` in `workdir`, with the cells `appended` after its own (same kernel); return the copy."""
    workdir.mkdir()
    copy = workdir / notebook.name
    if appended:
        contents = json.loads(notebook.read_text())
        contents["cells"] += appended
        copy.write_text(json.dumps(contents, indent=1))
    else:
        shutil.copy(notebook, copy)
    runner = workdir.with_name(f"{workdir.name}-runner.py")  # one per chapter: workers run side by side
    runner.write_text(RUNNER)
    # The kernel's own log (debugpy's notes on Python 3.13, pip's progress) is shown only on failure.
    result = subprocess.run([str(python), str(runner), str(copy), str(workdir)], env=env, cwd=workdir,
                            capture_output=True, text=True)
    if result.returncode:
        raise SystemExit(f"{notebook.name}: the runner failed:\n{result.stdout}{result.stderr}")
    return copy


def prepare_environment() -> tuple[Path, dict[str, str]]:
    """Colab's environment in ENVIRONMENT, built unless an intact one for the same package list is there.

    Returns its interpreter and its packages. Holds LOCK while it works, so a second caller waits.
    """
    version = colab_python_version()
    interpreter = find_python(version)
    spec = hashlib.sha256("\n".join([PREINSTALLED.read_text(), *RUNNER_PACKAGES, str(interpreter)]).encode()).hexdigest()
    python, marker = ENVIRONMENT / "bin" / "python", ENVIRONMENT / "ready.json"
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file() and python.is_file():
            ready = json.loads(marker.read_text())
            if ready["spec"] == spec and frozen(python) == ready["packages"]:
                return python, ready["packages"]
        shutil.rmtree(ENVIRONMENT, ignore_errors=True)
        run([str(interpreter), "-m", "venv", str(ENVIRONMENT)])
        run([str(python), "-m", "pip", "install", "--quiet", "-r", str(PREINSTALLED), *RUNNER_PACKAGES])
        packages = frozen(python)
        marker.write_text(json.dumps({"spec": spec, "packages": packages}, indent=1))
        return python, packages


def worker_environment(python: Path, directory: Path) -> Path:
    """A private copy of Colab's environment for one worker: hard links, so it costs no disk and little time.

    What a chapter installs or removes in the copy (new files, unlinked files) leaves the original as it
    was; the copy is always driven by its own interpreter (`python -m pip`, the kernel), never by the
    original's scripts, whose first lines name the original.
    """
    shutil.copytree(ENVIRONMENT, directory, symlinks=True, copy_function=os.link)
    return directory / python.relative_to(ENVIRONMENT)


def run_chapter(python: Path, baseline: dict[str, str], wheel: Path, notebook: Path, scratch: Path,
                env: dict[str, str]) -> list[str]:
    """Run one chapter in the environment of `python` as a new Colab user would; return its problems."""
    began = time.perf_counter()
    env = {**env, "PATH": f"{python.parent}{os.pathsep}{env['PATH']}"}
    requirement = f"positional-encoding-companion[all] @ {wheel.as_uri()}"  # as the setup cell's, from the wheel
    learner = scripted_learner.cells(notebook.stem) if notebook.stem in scripted_learner.LEARNERS else []
    executed = execute(python, notebook, scratch / notebook.stem, {**env, "PE_BOOK_INSTALL": requirement}, learner)
    problems = problems_with(executed, notebook)
    if learner:
        ran = json.loads(executed.read_text())["cells"][-len(learner):]
        problems += scripted_learner.problems(notebook.stem, ran)
    after = frozen(python)
    for package in KEPT_PACKAGES:
        if after.get(package) != baseline[package]:
            problems.append(f"{package} was replaced: {baseline[package]} -> {after.get(package)}")
    if "positional-encoding-companion" not in after:
        problems.append("the setup cell did not install the companion")
    added = sorted(set(after) - set(baseline))
    if added:
        run([str(python), "-m", "pip", "uninstall", "--yes", "--quiet", *added])
    status = "ok" if not problems else "FAILED"
    steps = f", a learner's {len(learner)} answers" if learner else ""
    print(f"{notebook.name:36s} {status} in {time.perf_counter() - began:.0f} s (installed {len(added)} packages"
          f"{steps})", flush=True)
    return [f"{notebook.name}: {problem}" for problem in problems]


def main(notebooks: list[Path], workers: int) -> int:
    failures = []
    with tempfile.TemporaryDirectory(prefix="colab-") as scratch:
        scratch = Path(scratch)
        start = time.perf_counter()
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(scratch / "dist"), str(ROOT)])
        wheel = next((scratch / "dist").glob("*.whl"))
        python, baseline = prepare_environment()
        print(f"Colab-like environment ready in {time.perf_counter() - start:.0f} s: Python "
              f"{run([str(python), '-c', 'import platform; print(platform.python_version())']).stdout.strip()}, "
              f"numpy {baseline['numpy']}, torch {baseline['torch']}; companion wheel {wheel.name}", flush=True)
        emulated = cpu_conditions.emulated_environment(str(python))
        still_on = cpu_conditions.check_emulation(str(python), emulated)
        if still_on:
            raise SystemExit(f"could not disable numpy's AVX-512 targets {still_on} in Colab's environment")
        print("on an emulated CPU: " + " ".join(f"{key}={value}" for key, value in emulated.items()), flush=True)
        env = {key: value for key, value in os.environ.items() if not key.startswith(("VIRTUAL_ENV", "PYTHON"))}
        env.update(emulated)
        # One chapter at a time per worker, each worker with its own copy of the environment (a chapter
        # installs the companion and removes it afterwards); the longest chapters first.
        workers = max(1, min(workers, len(notebooks)))
        pythons = queue.Queue()
        for number in range(workers):
            pythons.put(worker_environment(python, scratch / f"env-{number}"))
        longest_first = sorted(notebooks, key=lambda notebook: (notebook.stem != LONGEST, -notebook.stat().st_size))

        def one(notebook: Path) -> list[str]:
            own = pythons.get()
            try:
                return run_chapter(own, baseline, wheel, notebook, scratch, env)
            finally:
                pythons.put(own)

        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for problems in pool.map(one, longest_first):
                failures += problems
        # Without the companion (not in Colab, no override), a chapter stops with a message.
        env["PATH"] = f"{python.parent}{os.pathsep}{env['PATH']}"
        executed = execute(python, notebooks[0], scratch / "without-companion", env)
        # The setup cell: the first code cell (the reader notebook opens with the chapter's title above it).
        setup = next(cell for cell in json.loads(executed.read_text())["cells"] if cell["cell_type"] == "code")
        outputs = setup.get("outputs", [])
        errors = [output for output in outputs if output["output_type"] == "error"]
        if not (errors and errors[0]["ename"] == "SystemExit"
                and "needs the book's companion package" in errors[0]["evalue"]
                and not any("File " in line or "Traceback" in line for line in errors[0]["traceback"])):
            failures.append(f"without the companion, the first cell did not stop with a plain message: {outputs!r:.500}")
        else:
            print(f"without the companion: stops with the message {errors[0]['evalue']!r:.90}...")
    for failure in failures:
        print("FAILURE:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--prepare"]:
        began = time.perf_counter()
        prepare_environment()
        print(f"Colab-like environment ready in {ENVIRONMENT} after {time.perf_counter() - began:.0f} s")
        sys.exit(0)
    from book_links import READER_NOTEBOOKS  # needs the book's environment (nbformat, yaml); --prepare does not

    chosen = [Path(argument).resolve() for argument in sys.argv[1:]]
    sys.exit(main(chosen or sorted(READER_NOTEBOOKS.glob("*.ipynb")), workers=os.cpu_count() or 1))
