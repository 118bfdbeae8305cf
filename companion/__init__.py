"""Companion package of the book *The sinusoidal positional encoding, executed*.

The encoding of "Attention Is All You Need" (Vaswani et al., 2017, Sec. 3.5)
as a loop, as numpy and torch array code and as a PyTorch layer, grouped by concern:

- :mod:`companion.encoding`: the encoding itself (numpy; torch for the tensor table and the layer);
- :mod:`companion.analysis`: what the proofs and the precision chapter compute;
- :mod:`companion.word2vec`: the black/brown experiment (extra ``[word2vec]``);
- :mod:`companion.transformer`: a small Transformer with six position schemes (extra ``[torch]``);
- :mod:`companion.book`: the sources' figures, recipes, plotting and the benchmark.

Only numpy is needed to import it; the torch-backed names are loaded on first use.

>>> import numpy as np
>>> import companion as pe
>>> pe.sinusoidal_encoding(np.arange(4), d_model=8).shape
(4, 8)
"""

from typing import TYPE_CHECKING

from ._environment import require

require("numpy")

from ._lazy import available, lazy_names  # noqa: E402
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

if TYPE_CHECKING:  # what type checkers see; at run time these are imported on first use
    from .encoding.layer import SinusoidalPositionalEncoding as SinusoidalPositionalEncoding
    from .encoding.position_ids import position_ids_from_input_ids as position_ids_from_input_ids
    from .encoding.torch_table import round_to_dtype as round_to_dtype
    from .encoding.torch_table import torch_sinusoidal_encoding as torch_sinusoidal_encoding
else:
    __getattr__ = lazy_names(__name__, {name: f".encoding{module}" for name, module in TORCH_BACKED.items()})

__version__ = "0.2.0"

# `from companion import *` imports the torch-backed names only where torch is installed.
__all__ = [
    "LAYOUTS",
    "PAIRINGS",
    "SPACINGS",
    "angular_frequencies",
    "apply_rotary",
    "cosine_similarity",
    "layout_permutation",
    "loop_encoding",
    "sinusoidal_encoding",
    "wavelengths",
]
if available("torch"):
    __all__ += ["SinusoidalPositionalEncoding", "position_ids_from_input_ids", "round_to_dtype",
                "torch_sinusoidal_encoding"]
