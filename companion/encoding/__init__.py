"""The encoding itself: frequencies, layouts, the loop, the numpy table, the torch table, the layer, RoPE.

The numpy-backed names are imported with the package; the torch-backed ones
(:func:`torch_sinusoidal_encoding`, :func:`round_to_dtype`, :class:`SinusoidalPositionalEncoding`,
:func:`position_ids_from_input_ids`)
on first use, so that importing the package does not import torch.
"""

from typing import TYPE_CHECKING

from .._lazy import available, lazy_names
from .frequencies import SPACINGS, angular_frequencies, wavelengths
from .layouts import LAYOUTS, layout_permutation
from .loop import loop_encoding
from .rotary import PAIRINGS, apply_rotary
from .table import sinusoidal_encoding

TORCH_BACKED = {
    "SinusoidalPositionalEncoding": ".layer",
    "position_ids_from_input_ids": ".position_ids",
    "round_to_dtype": ".torch_table",
    "torch_sinusoidal_encoding": ".torch_table",
}
if TYPE_CHECKING:  # what type checkers see; at run time these are imported on first use
    from .layer import SinusoidalPositionalEncoding as SinusoidalPositionalEncoding
    from .position_ids import position_ids_from_input_ids as position_ids_from_input_ids
    from .torch_table import round_to_dtype as round_to_dtype
    from .torch_table import torch_sinusoidal_encoding as torch_sinusoidal_encoding
else:
    __getattr__ = lazy_names(__name__, TORCH_BACKED)

__all__ = [
    "LAYOUTS",
    "PAIRINGS",
    "SPACINGS",
    "angular_frequencies",
    "apply_rotary",
    "layout_permutation",
    "loop_encoding",
    "sinusoidal_encoding",
    "wavelengths",
]
if available("torch"):
    __all__ += ["SinusoidalPositionalEncoding", "position_ids_from_input_ids", "round_to_dtype",
                "torch_sinusoidal_encoding"]
