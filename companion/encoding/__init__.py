"""The encoding itself: frequencies, layouts, the loop, the numpy table, the torch table, the layer, RoPE.

The numpy-backed names are imported with the package; the torch-backed ones
(:func:`torch_sinusoidal_encoding`, :func:`round_to_dtype`, :class:`SinusoidalPositionalEncoding`)
on first use, so that importing the package does not import torch.
"""

from .._lazy import lazy_names
from .frequencies import SPACINGS, angular_frequencies, wavelengths
from .layouts import LAYOUTS, layout_permutation
from .loop import loop_encoding
from .rotary import PAIRINGS, apply_rotary
from .table import sinusoidal_encoding

TORCH_BACKED = {
    "SinusoidalPositionalEncoding": ".layer",
    "round_to_dtype": ".torch_table",
    "torch_sinusoidal_encoding": ".torch_table",
}
__getattr__ = lazy_names(__name__, TORCH_BACKED)

__all__ = [
    "LAYOUTS",
    "PAIRINGS",
    "SPACINGS",
    "SinusoidalPositionalEncoding",
    "angular_frequencies",
    "apply_rotary",
    "layout_permutation",
    "loop_encoding",
    "round_to_dtype",
    "sinusoidal_encoding",
    "torch_sinusoidal_encoding",
    "wavelengths",
]
