"""benchmarks/layer_speed.py: its --device cuda mode says plainly that it skipped where there is no GPU,
and its summary reports each case's ratio with its range over the processes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "layer_speed.py"


def test_the_cuda_mode_says_it_skipped_where_there_is_no_gpu():
    if torch.cuda.is_available():
        pytest.fail("this test checks the machine without a GPU; on a GPU, run `benchmarks/layer_speed.py 3 --device cuda`")
    result = subprocess.run([sys.executable, str(SCRIPT), "1", "--device", "cuda"], capture_output=True, text=True,
                            check=True, timeout=120)
    assert result.stderr.startswith("skipped: --device cuda needs a CUDA GPU")
    assert json.loads(result.stdout) == []  # nothing timed, nothing that reads as a measurement


def test_the_summary_gives_the_median_ratio_and_its_range_over_processes():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import layer_speed
    finally:
        sys.path.remove(str(SCRIPT.parent))
    runs = [[{"case": "decoding step, 0-d tensor offset", "layer": layer, "reference": 1.0, "ratio": layer}]
            for layer in (1.2, 1.9, 1.5)]
    (row,) = layer_speed.summarize(runs)
    assert (row["ratio"], row["ratio_min"], row["ratio_max"], row["target"]) == (1.5, 1.2, 1.9, 2.0)
    assert "1.20-1.90" in layer_speed.format_rows([row])
