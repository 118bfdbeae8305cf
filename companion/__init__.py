"""Companion package of the book *The sinusoidal positional encoding, executed*.

The encoding of "Attention Is All You Need" (Vaswani et al., 2017, Sec. 3.5)
as a loop, as numpy and torch array code and as a PyTorch layer, grouped by concern:

- :mod:`companion.encoding`: the encoding itself (numpy; torch for the tensor table and the layer);
- :mod:`companion.analysis`: what the proofs and the precision chapter compute;
- :mod:`companion.word2vec`: the black/brown experiment (extra ``[word2vec]``);
- :mod:`companion.transformer`: a small Transformer with five position schemes (extra ``[torch]``);
- :mod:`companion.book`: the sources' figures, recipes, plotting and the benchmark.

Only numpy is needed to import it; the torch-backed names are loaded on first use.

>>> import numpy as np
>>> import companion as pe
>>> pe.sinusoidal_encoding(np.arange(4), d_model=8).shape
(4, 8)
"""

from ._environment import require

require("numpy")

from ._lazy import lazy_names  # noqa: E402
from .analysis.similarity import cosine_similarity  # noqa: E402
from .encoding import (  # noqa: E402
    LAYOUTS,
    PAIRINGS,
    SPACINGS,
    TORCH_BACKED,
    angular_frequencies,
    apply_rotary,
    layout_permutation,
    loop_encoding,
    sinusoidal_encoding,
    wavelengths,
)

__getattr__ = lazy_names(__name__, {name: f".encoding{module}" for name, module in TORCH_BACKED.items()})

__version__ = "0.1.0"

__all__ = [
    "LAYOUTS",
    "PAIRINGS",
    "SPACINGS",
    "SinusoidalPositionalEncoding",
    "angular_frequencies",
    "apply_rotary",
    "cosine_similarity",
    "layout_permutation",
    "loop_encoding",
    "round_to_dtype",
    "sinusoidal_encoding",
    "torch_sinusoidal_encoding",
    "wavelengths",
]
