"""Companion package of the book *The sinusoidal positional encoding, executed*.

The encoding of "Attention Is All You Need" (Vaswani et al., 2017, Sec. 3.5)
as a loop, as numpy and torch array code and as a PyTorch layer, with the
source documents' code and figures for comparison.

>>> import numpy as np
>>> import companion as pe
>>> pe.sinusoidal_encoding(np.arange(4), d_model=8).shape
(4, 8)
"""

from ._environment import require

require("numpy")
require("torch")

from .encoding import sinusoidal_encoding
from .frequencies import angular_frequencies, wavelengths
from .layouts import LAYOUTS, layout_permutation
from .loop import loop_encoding
from .module import SinusoidalPositionalEncoding
from .similarity import cosine_similarity
from .torch_encoding import torch_sinusoidal_encoding

__version__ = "0.1.0"

__all__ = [
    "LAYOUTS",
    "SinusoidalPositionalEncoding",
    "angular_frequencies",
    "cosine_similarity",
    "layout_permutation",
    "loop_encoding",
    "sinusoidal_encoding",
    "torch_sinusoidal_encoding",
    "wavelengths",
]
