"""tools/cpu_conditions.py: the emulated CPU really is emulated, and the load is always stopped."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from cpu_conditions import EMULATED_ENVIRONMENT, busy_cores, check_emulation, emulated_environment, numpy_targets

TOOL = Path(__file__).parents[2] / "tools" / "cpu_conditions.py"


def test_the_emulated_environment_switches_off_avx512_where_the_cpu_has_it():
    environment = emulated_environment()
    assert EMULATED_ENVIRONMENT.items() <= environment.items()
    avx512 = [name for name in numpy_targets(sys.executable)["supported"] if "AVX512" in name or name == "X86_V4"]
    assert ("NPY_DISABLE_CPU_FEATURES" in environment) == bool(avx512)
    assert check_emulation(sys.executable, environment) == []  # nothing of AVX-512 left on


def test_the_emulated_environment_reaches_the_command():
    command = "import os; print(os.environ['OPENBLAS_CORETYPE'], os.environ['ATEN_CPU_CAPABILITY'])"
    result = subprocess.run([sys.executable, str(TOOL), "emulated", "--", sys.executable, "-c", command],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Sandybridge default"


def test_busy_cores_run_during_the_block_and_stop_after_it():
    with busy_cores(2) as workers:
        assert len(workers) == 2 and all(worker.poll() is None for worker in workers)
        # each one computes: its CPU time grows (how fast depends on what else the machine runs)
        processes = [psutil.Process(worker.pid) for worker in workers]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and min(process.cpu_times().user for process in processes) < 0.2:
            time.sleep(0.1)
        assert min(process.cpu_times().user for process in processes) >= 0.2
    assert all(worker.poll() is not None for worker in workers)


def test_busy_cores_stop_when_the_block_fails():
    with pytest.raises(RuntimeError), busy_cores(1) as workers:
        raise RuntimeError("a failing command")
    assert workers[0].poll() is not None


def test_the_tool_passes_on_the_exit_status_and_leaves_no_load_behind():
    result = subprocess.run([sys.executable, str(TOOL), "loaded", "--", sys.executable, "-c", "raise SystemExit(3)"],
                            capture_output=True, text=True)
    assert result.returncode == 3
    assert "busy processes keep every core loaded" in result.stdout


def test_a_terminated_tool_stops_its_load():
    tool = subprocess.Popen([sys.executable, str(TOOL), "loaded", "--", sys.executable, "-c",
                             "import time; time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    assert "busy processes" in tool.stdout.readline()
    load = [child for child in psutil.Process(tool.pid).children() if "while True" in " ".join(child.cmdline())]
    assert load
    tool.send_signal(signal.SIGTERM)
    tool.wait(timeout=30)
    tool.stdout.close()
    gone, alive = psutil.wait_procs(load, timeout=10)
    assert alive == []


def test_usage_is_explained():
    result = subprocess.run([sys.executable, str(TOOL), "hot"], capture_output=True, text=True)
    assert result.returncode == 2 and "Usage" in result.stderr
