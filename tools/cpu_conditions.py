"""Run a command on an emulated CPU, or while every core is kept busy.

The book promises that every stored output reproduces on any machine. Two conditions that
differ from the machine that wrote the outputs can be produced on any machine:

- ``emulated``: the math kernels of a plainer CPU. OpenBLAS is told to use its Sandybridge
  kernels, PyTorch its scalar ("default") kernels, one thread each, and numpy's AVX-512 code
  paths are switched off where the CPU has them (``NPY_DISABLE_CPU_FEATURES``), so that numpy's
  ``sin``, ``cos``, ``exp`` and friends take the AVX2 or baseline paths other CPUs take.
- ``loaded``: one busy process per core runs for as long as the command does, and is stopped
  afterwards whatever happens (an error, Ctrl-C, or the end of this process).

Usage: python tools/cpu_conditions.py {emulated,loaded} -- COMMAND [ARG ...]
The exit status is the command's.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys

EMULATED_ENVIRONMENT = {
    "OPENBLAS_CORETYPE": "Sandybridge",
    "ATEN_CPU_CAPABILITY": "default",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}

# Which of numpy's runtime-dispatched SIMD targets this CPU supports, read in the interpreter that
# will run the command (numpy 1.x and 2.x name them differently: AVX512F, AVX512_SKX, X86_V4, ...).
NUMPY_TARGETS = """
import json
try:
    from numpy._core import _multiarray_umath as umath
except ImportError:
    from numpy.core import _multiarray_umath as umath
supported = [name for name in umath.__cpu_dispatch__ if umath.__cpu_features__.get(name)]
print(json.dumps({"dispatch": list(umath.__cpu_dispatch__), "supported": supported}))
"""


def is_avx512(target: str) -> bool:
    return "AVX512" in target or target == "X86_V4"


def numpy_targets(python: str) -> dict:
    """numpy's dispatch targets and those this CPU supports, as seen by `python`."""
    result = subprocess.run([python, "-c", NUMPY_TARGETS], check=True, capture_output=True, text=True)
    return json.loads(result.stdout)


def emulated_environment(python: str = sys.executable) -> dict[str, str]:
    """The variables of the emulated CPU, with numpy's AVX-512 targets disabled if this CPU has them."""
    environment = dict(EMULATED_ENVIRONMENT)
    avx512 = [name for name in numpy_targets(python)["supported"] if is_avx512(name)]
    if avx512:
        environment["NPY_DISABLE_CPU_FEATURES"] = " ".join(avx512)
    return environment


def check_emulation(python: str, environment: dict[str, str]) -> list[str]:
    """numpy's AVX-512 targets still active under `environment` (empty when the emulation took effect)."""
    result = subprocess.run([python, "-c", NUMPY_TARGETS], check=True, capture_output=True, text=True,
                            env={**os.environ, **environment})
    if result.stderr.strip():  # numpy warns when asked to disable what it cannot: that would pollute outputs
        raise RuntimeError(f"numpy complained about the emulated environment: {result.stderr.strip()}")
    return [name for name in json.loads(result.stdout)["supported"] if is_avx512(name)]


def _die_with_parent():  # runs in the child before exec (Linux): a killed parent takes its load with it
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


@contextlib.contextmanager
def busy_cores(count: int | None = None):
    """Keep `count` cores (default: every core this process may use) busy while the block runs.

    Yields the list of busy processes; they are killed and reaped when the block exits, by any route.
    """
    count = count or len(os.sched_getaffinity(0))
    workers = []
    try:
        for _ in range(count):
            workers.append(subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                            preexec_fn=_die_with_parent, stdin=subprocess.DEVNULL))
        yield workers
    finally:
        for worker in workers:
            worker.kill()
        for worker in workers:
            worker.wait()


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in ("emulated", "loaded") or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    condition, command = argv[0], argv[2:]
    # A SIGTERM (from make, CI or a timeout) unwinds through the finally blocks like Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    if condition == "emulated":
        environment = emulated_environment()
        still_on = check_emulation(sys.executable, environment)
        if still_on:
            print(f"cpu_conditions: could not disable numpy's AVX-512 targets {still_on}", file=sys.stderr)
            return 1
        shown = " ".join(f"{key}={value!r}" for key, value in environment.items())
        print(f"cpu_conditions: emulated CPU: {shown}", flush=True)
        return subprocess.run(command, env={**os.environ, **environment}).returncode
    with busy_cores() as workers:
        print(f"cpu_conditions: {len(workers)} busy processes keep every core loaded", flush=True)
        return subprocess.run(command).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
