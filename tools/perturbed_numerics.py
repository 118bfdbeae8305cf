"""Audit stored outputs for digits that depend on the math library: run a command whose Jupyter
kernels compute with a different, but deterministic, libm.

CPUs and builds differ in the last bits of ``sin``, ``cos``, ``exp``, ``log`` and ``pow`` (glibc, Apple's
libm, numpy's SIMD kernels, SLEEF in PyTorch) and of BLAS reductions. This tool starts every IPython
kernel with those functions wrapped so that each result moves by up to 2 units in the last place
in float64 and 1 in float32, by an amount that is a fixed function of
the result's bits: the same input always gives the same output, as on a real machine. A stored
output that changes under it would change on some reader's machine.

Usage: python tools/perturbed_numerics.py -- python -m pytest --nbval --nbval-current-env notebooks

Not part of ``make test`` (the emulated CPU matrix is); run it after changing what a chapter prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

STARTUP = r'''
import math
import numpy as np

# Largest nudge, in units in the last place, by format: libms and SIMD kernels agree to about
# 1 ulp in float32 and to a couple of ulps in float64.
_ULPS = {np.dtype(np.float64): 2, np.dtype(np.float32): 1, np.dtype(np.float16): 1}


def _nudged(values):
    # values * (1 + k eps), k in [-n, n] a function of |value|'s bits: deterministic, and odd
    # functions stay odd (sin(-x) = -sin(x) holds in every libm)
    array = np.asarray(values)
    if array.dtype.kind == "c":
        result = _nudged(array.real) + 1j * _nudged(array.imag)
        return result.astype(array.dtype) if isinstance(values, np.ndarray) else result.astype(array.dtype)[()]
    if array.dtype not in _ULPS or array.size == 0:
        return values
    n = _ULPS[array.dtype]
    bits = np.abs(array).view({8: np.uint64, 4: np.uint32, 2: np.uint16}[array.itemsize])
    k = ((bits >> 3) % (2 * n + 1)).astype(array.dtype) - n
    result = array * (1 + k * np.finfo(array.dtype).eps)
    return result if isinstance(values, np.ndarray) else result[()]


class _PerturbedUfunc:
    # Computes in the ufunc's own precision, nudges, then casts into `out` (as a libm would round).
    def __init__(self, ufunc):
        self._ufunc = ufunc

    def __getattr__(self, name):  # .outer, .reduce, .nin, ...: the original's
        return getattr(self._ufunc, name)

    def __call__(self, *args, out=None, casting="same_kind", **kwargs):
        result = _nudged(self._ufunc(*args, **kwargs))
        if out is None:
            return result
        target = out[0] if isinstance(out, tuple) else out
        np.copyto(target, result, casting=casting)
        return target


for _name in ["sin", "cos", "tan", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "power",
              "float_power", "arctan2", "hypot"]:
    setattr(np, _name, _PerturbedUfunc(getattr(np, _name)))


def _wrap_reduction(function):
    def perturbed(*args, **kwargs):
        return _nudged(function(*args, **kwargs))
    return perturbed


np.dot = _wrap_reduction(np.dot)
np.einsum = _wrap_reduction(np.einsum)
np.linalg.norm = _wrap_reduction(np.linalg.norm)


def _wrap_math(function):
    def perturbed(x, *rest):
        return float(_nudged(np.float64(function(x, *rest))))
    return perturbed


for _name in ["sin", "cos", "tan", "exp", "log", "pow"]:
    setattr(math, _name, _wrap_math(getattr(math, _name)))

try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    _TORCH_ULPS = {torch.float64: 2, torch.float32: 1, torch.float16: 1, torch.bfloat16: 1}

    def _nudged_tensor(tensor):
        if not isinstance(tensor, torch.Tensor) or tensor.dtype not in _TORCH_ULPS or tensor.numel() == 0:
            return tensor
        n = _TORCH_ULPS[tensor.dtype]
        integer = {8: torch.int64, 4: torch.int32, 2: torch.int16}[tensor.element_size()]
        bits = tensor.detach().abs().contiguous().view(integer)
        steps = torch.remainder(bits >> 3, 2 * n + 1) - n
        return tensor * (1 + steps.to(tensor.dtype) * torch.finfo(tensor.dtype).eps)

    def _wrap_torch(function):
        def perturbed(*args, out=None, **kwargs):
            result = _nudged_tensor(function(*args, **kwargs))
            if out is None:
                return result
            with torch.no_grad():
                out.copy_(result)
            return out
        return perturbed

    for _name in ["sin", "cos", "exp", "log", "pow"]:
        setattr(torch, _name, _wrap_torch(getattr(torch, _name)))
        setattr(torch.Tensor, _name, _wrap_torch(getattr(torch.Tensor, _name)))
'''


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="perturbed-ipython-") as ipython_dir:
        startup = Path(ipython_dir) / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-perturbed-numerics.py").write_text(STARTUP)
        return subprocess.run(argv[1:], env={**os.environ, "IPYTHONDIR": ipython_dir}).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
