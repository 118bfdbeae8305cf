"""Position ids from token ids, as fairseq and the models ported from it number them (pads excluded)."""

from __future__ import annotations

import numbers

from .._environment import require

require("torch")

import torch  # noqa: E402

from .._checks import MAX_EXACT_POSITION  # noqa: E402
from .torch_table import reads_values  # noqa: E402

__all__ = ["position_ids_from_input_ids"]

# The largest id is padding_idx + past_key_values_length + seq_len: the layer encodes ids exactly up to 2**53
_ALLOWED = ("past_key_values_length must be non-negative, and padding_idx + past_key_values_length + seq_len (the "
            "largest position id) at most 2**53 so that every id stays an exact position")


def _check_past_length(past_key_values_length: int | torch.Tensor, padding_idx: int, input_ids: torch.Tensor) -> None:
    """Refuse a negative `past_key_values_length`, or one whose ids would pass 2**53 (and wrap in int64 further on).

    Ints, and a 0-d tensor in host memory, raise a ValueError.  Otherwise (under torch.compile/export, where ints
    and sizes may be symbolic, or a tensor on an accelerator) the check is an assertion on a tensor, in the graph
    or on the device (``torch._assert_async``): no guard narrows an exported program's sizes, and no host waits
    for a device.
    """
    past, seq_len = past_key_values_length, input_ids.shape[1]
    if isinstance(past, torch.Tensor) and reads_values(past):
        past = int(past)
    if isinstance(past, torch.Tensor) or torch.compiler.is_compiling():
        value = past if isinstance(past, torch.Tensor) else torch.zeros((), dtype=torch.int64,
                                                                            device=input_ids.device) + past
        torch._assert_async((value >= 0) & (value <= MAX_EXACT_POSITION - padding_idx - seq_len), _ALLOWED)
    elif past < 0 or padding_idx + past + seq_len > MAX_EXACT_POSITION:
        raise ValueError(f"{_ALLOWED}, got past_key_values_length={past} with padding_idx={padding_idx} and "
                         f"seq_len={seq_len}")


def position_ids_from_input_ids(
    input_ids: torch.Tensor, padding_idx: int, past_key_values_length: int | torch.Tensor = 0
) -> torch.Tensor:
    """Position ids of a batch of tokens, fairseq's way: real tokens from ``padding_idx + 1``, pads at ``padding_idx``.

    fairseq's ``make_positions`` and Hugging Face's ``create_position_ids_from_input_ids``
    (M2M100, NLLB, FSMT, Speech2Text, and with ``padding_idx`` 1 RoBERTa-style models) number
    each sequence's real tokens ``padding_idx + 1 + past_key_values_length + k`` for the
    ``k``-th real token, so left padding does not shift them, and give every pad the id
    ``padding_idx``, whose row those models keep zero: pass the ids to
    :meth:`~companion.SinusoidalPositionalEncoding.rows` with the same `padding_idx`.

    Parameters
    ----------
    input_ids : Tensor, shape (batch, seq_len), integer dtype
        Token ids; ``padding_idx`` marks the pads.
    padding_idx : int
        The pad token's id (non-negative).
    past_key_values_length : int or 0-d integer Tensor, default 0
        Tokens already decoded (a key-value cache's length): added to the real tokens' ids.
        Non-negative, and at most ``2**53 - padding_idx - seq_len``, so that every id stays
        an exact position (the layer refuses ids beyond ``2**53``).

    Returns
    -------
    Tensor, shape (batch, seq_len), dtype int64, on the device of `input_ids`

    Raises
    ------
    TypeError
        If `input_ids` is not an integer tensor (bool refused), `padding_idx` is not an int,
        or `past_key_values_length` is neither an int nor a 0-d integer tensor.
    ValueError
        If `input_ids` is not 2-D, `padding_idx` is negative, or `past_key_values_length` is
        negative or above ``2**53 - padding_idx - seq_len``.  A tensor `past_key_values_length`
        on an accelerator is checked by the device (``torch._assert_async``) without waiting for
        it: a bad value fails the device's stream; under ``torch.compile``/``torch.export`` an
        assertion in the graph checks it (a ``RuntimeError``).

    Examples
    --------
    >>> position_ids_from_input_ids(torch.tensor([[1, 1, 5, 6, 7], [5, 6, 7, 8, 9]]), padding_idx=1)
    tensor([[1, 1, 2, 3, 4],
            [2, 3, 4, 5, 6]])
    >>> position_ids_from_input_ids(torch.tensor([[9]]), padding_idx=1, past_key_values_length=4)  # a decoding step
    tensor([[6]])
    """
    if (not isinstance(input_ids, torch.Tensor) or input_ids.is_floating_point() or input_ids.is_complex()
            or input_ids.dtype == torch.bool):
        raise TypeError(f"input_ids must be an integer tensor of token ids, got "
                        f"{input_ids.dtype if isinstance(input_ids, torch.Tensor) else type(input_ids).__name__}")
    if input_ids.dim() != 2:
        raise ValueError(f"input_ids must have shape (batch, seq_len), got shape {tuple(input_ids.shape)}")
    if isinstance(padding_idx, bool) or not isinstance(padding_idx, numbers.Integral):
        raise TypeError(f"padding_idx must be a non-negative int, got {padding_idx!r} of type "
                        f"{type(padding_idx).__name__}")
    if padding_idx < 0:
        raise ValueError(f"padding_idx must be a non-negative int, got {padding_idx}")
    if isinstance(past_key_values_length, torch.Tensor):
        if past_key_values_length.dim() != 0 or past_key_values_length.is_floating_point() or \
                past_key_values_length.is_complex() or past_key_values_length.dtype == torch.bool:
            raise TypeError(f"past_key_values_length must be an int or a 0-d integer tensor, got a "
                            f"{past_key_values_length.dtype} tensor of shape {tuple(past_key_values_length.shape)}")
    elif isinstance(past_key_values_length, bool) or not isinstance(past_key_values_length, numbers.Integral):
        raise TypeError(f"past_key_values_length must be an int or a 0-d integer tensor, got "
                        f"{past_key_values_length!r} of type {type(past_key_values_length).__name__}")
    _check_past_length(past_key_values_length, padding_idx, input_ids)
    real = input_ids.ne(padding_idx).to(torch.int64)
    return (torch.cumsum(real, dim=1) + past_key_values_length) * real + int(padding_idx)
